// Reference values come from SciPy 1.10.1 (Debian 12's python3-scipy): the data and the calls that
// produced them are in tests/engine/stats_reference.py.

#include <gtest/gtest.h>

#include <algorithm>
#include <cmath>
#include <cstdio>
#include <random>

#include "engine/stats/comparison.h"
#include "engine/stats/descriptive.h"
#include "engine/stats/hypothesis_tests.h"
#include "engine/stats/robust.h"

namespace nf::engine::stats {
namespace {

const std::vector<double> k_x10 = {99.0004, 96.8421,  94.6112,  100.1967, 98.2409,
                                   99.3016, 100.1367, 102.0218, 98.2494,  101.5926};
const std::vector<double> k_y12 = {101.3062, 99.6684, 111.2481, 102.6494, 99.8493,  106.971,
                                   96.8338,  99.3586, 104.9527, 101.7126, 103.7261, 112.4243};
const std::vector<double> k_x5 = {11.2471, 7.9781, 9.3378, 9.3342, 9.8514};
const std::vector<double> k_y4 = {11.2628, 10.352, 12.7685, 12.4648};
const std::vector<double> k_xt = {2.0, 5.0, 2.0, 2.0, 1.0, 5.0, 3.0, 5.0, 3.0, 1.0, 4.0, 1.0, 0.0, 3.0, 2.0};
const std::vector<double> k_yt = {2.0, 4.0, 6.0, 1.0, 2.0, 1.0, 5.0, 6.0, 2.0, 2.0, 3.0, 4.0, 6.0};
const std::vector<double> k_x60 = {
    50.23148, 49.42824, 52.58973, 50.44712, 50.31775, 49.29818, 48.98452, 47.96637, 52.11642, 52.76898,
    49.61614, 50.61896, 50.31914, 52.93177, 50.53675, 49.62207, 49.27078, 49.61615, 49.89617, 48.81081,
    49.88587, 49.00399, 51.57617, 50.80016, 50.03141, 50.38732, 51.78295, 49.92628, 50.69573, 49.76596,
    45.9086,  51.48225, 46.18256, 49.6274,  51.31263, 49.50307, 50.76533, 46.58742, 50.74688, 49.46918,
    49.90971, 49.99684, 49.42782, 50.99681, 50.48203, 48.41033, 51.62458, 50.87062, 48.83864, 49.9644,
    49.16901, 50.20108, 47.81833, 51.84075, 51.8773,  51.59399, 51.27942, 50.95325, 47.85811, 49.94866};
const std::vector<double> k_y70 = {
    49.86494, 50.84222, 50.07786, 49.61372, 49.55408, 51.90282, 49.19657, 51.15571, 49.71234, 49.8642,
    49.69184, 49.25235, 50.20986, 49.79825, 50.73585, 50.28719, 50.0907,  51.81247, 47.66269, 54.91779,
    52.27736, 50.43611, 50.68124, 49.11751, 51.06007, 50.81575, 49.64376, 49.7705,  53.93513, 49.75605,
    48.52758, 49.40273, 51.05921, 49.83563, 49.90203, 47.88566, 54.72518, 51.11057, 51.57222, 51.41337,
    48.71718, 49.82991, 49.59538, 50.24969, 49.99051, 52.16456, 49.33827, 49.79747, 52.64294, 51.30371,
    52.26616, 50.06942, 51.87488, 51.09728, 50.68421, 50.12053, 49.80768, 49.30955, 48.19986, 51.16316,
    50.90279, 50.18052, 51.00624, 53.09282, 50.32342, 48.83581, 49.74529, 51.22488, 49.87378, 50.96463};
const std::vector<double> k_d20 = {-0.02022, 0.01357, 0.01776,  0.04147, -0.02188, 0.00732, -0.01798,
                                   0.00581,  0.01264, 0.01337,  0.01376, 0.02784,  0.0032,  0.03073,
                                   0.00438,  0.00455, -0.02065, 0.02396, 0.02725,  0.00238};
const std::vector<double> k_d80 = {
    -0.011599, 0.004316,  0.002098,  -0.031233, -0.007428, -0.014172, -0.00339,  0.004602,  -0.003759, -0.011459,
    0.002724,  0.013133,  -0.000192, 0.004166,  0.003129,  -0.002595, 0.011962,  -0.003849, 0.003148,  -0.001379,
    0.001512,  0.005029,  -0.007838, 0.014345,  0.012942,  -0.107663, -0.025865, -0.004339, 0.004768,  0.019617,
    0.002759,  0.011296,  0.009589,  -0.010229, 0.21085,   -0.002005, 0.012708,  0.007151,  -0.020095, 0.010314,
    0.000627,  0.031133,  0.08134,   0.009049,  -0.015788, 0.026084,  0.00582,   0.006586,  -0.004657, 0.016145,
    0.011344,  0.044638,  0.000726,  0.003156,  -0.004326, -0.001304, -0.004868, 0.010968,  -0.005435, 0.004557,
    0.027655,  0.003628,  0.004692,  0.014001,  0.009479,  0.007802,  -0.003805, 0.022756,  -0.010889, -0.000784,
    -0.010534, -0.004612, 0.009928,  0.015293,  -0.008219, -0.003896, 0.00476,   -0.008544, -0.001581, 0.006324};
const std::vector<double> k_dz = {0.0, 0.5, -0.25, 0.5, 1.0, 0.0, -1.5, 0.75, 2.0, 0.5, 1.25, -0.25, 1.0, 3.0};

constexpr double kTol = 1e-6;

TEST(Welch, MatchesScipy)
{
    auto r = welchT(k_x10, k_y12);
    EXPECT_NEAR(r.statistic, -2.825029920797685, kTol);
    EXPECT_NEAR(r.p, 0.012172473655001376, kTol);
    EXPECT_NEAR(welchT(k_x5, k_y4).p, 0.026884857292263965, kTol);
    EXPECT_NEAR(welchT(k_x60, k_y70).p, 0.09979945589876023, kTol);
}

TEST(MannWhitney, ExactWithoutTiesMatchesScipy)
{
    auto r = mannWhitneyU(k_x10, k_y12);
    EXPECT_TRUE(r.exact);
    EXPECT_DOUBLE_EQ(r.statistic, 24.0);
    EXPECT_NEAR(r.p, 0.01689950915957108, kTol);
    auto small = mannWhitneyU(k_x5, k_y4);
    EXPECT_TRUE(small.exact);
    EXPECT_NEAR(small.p, 0.031746031746031744, kTol);
}

TEST(MannWhitney, NormalApproximationWithTiesMatchesScipy)
{
    auto ties = mannWhitneyU(k_xt, k_yt);
    EXPECT_FALSE(ties.exact);
    EXPECT_DOUBLE_EQ(ties.statistic, 75.0);
    EXPECT_NEAR(ties.p, 0.3019531213388704, kTol);
    auto large = mannWhitneyU(k_x60, k_y70);
    EXPECT_FALSE(large.exact);
    EXPECT_NEAR(large.p, 0.30752618352116645, kTol);
}

TEST(MannWhitney, SmallestAttainableP)
{
    // 3 against 3: the most extreme arrangement has probability 1/20, two-sided 0.1.
    EXPECT_NEAR(mannWhitneyU({1, 2, 3}, {4, 5, 6}).minAttainableP, 0.1, 1e-12);
    EXPECT_NEAR(mannWhitneyU({1, 2, 3}, {4, 5, 6}).p, 0.1, 1e-12);
}

TEST(Wilcoxon, MatchesScipy)
{
    auto exact = wilcoxonSignedRank(k_d20);
    EXPECT_TRUE(exact.exact);
    EXPECT_DOUBLE_EQ(exact.statistic, 54.0);
    EXPECT_NEAR(exact.p, 0.058258056640625, kTol);
    auto approx = wilcoxonSignedRank(k_d80);
    EXPECT_FALSE(approx.exact);
    EXPECT_DOUBLE_EQ(approx.statistic, 1194.0);
    EXPECT_NEAR(approx.p, 0.041030828632169995, kTol);
    auto zerosAndTies = wilcoxonSignedRank(k_dz);
    EXPECT_FALSE(zerosAndTies.exact);
    EXPECT_DOUBLE_EQ(zerosAndTies.statistic, 13.0);
    EXPECT_NEAR(zerosAndTies.p, 0.04092086383512269, kTol);
    EXPECT_NEAR(wilcoxonSignedRank({1, 2, 3, 4, 5}).minAttainableP, 0.0625, 1e-12);
}

TEST(OneSampleT, MatchesScipy)
{
    EXPECT_NEAR(oneSampleT(k_d20).statistic, 2.1068977565492144, kTol);
    EXPECT_NEAR(oneSampleT(k_d20).p, 0.048644865674415984, kTol);
    EXPECT_NEAR(oneSampleT(k_d80).p, 0.1515453431326825, kTol);
}

TEST(Spearman, MatchesScipy)
{
    std::vector<double> down(10);
    std::vector<double> up(60);
    for (std::size_t i = 0; i < 10; ++i) {
        down[i] = 9.0 - static_cast<double>(i);
    }
    for (std::size_t i = 0; i < 60; ++i) {
        up[i] = static_cast<double>(i);
    }
    EXPECT_NEAR(spearman(k_x10, down).rho, -0.5757575757575757, kTol);
    EXPECT_NEAR(spearman(k_x10, down).p, 0.08155281477260236, kTol);
    EXPECT_NEAR(spearman(k_x60, up).p, 0.9261335060280724, kTol);
}

TEST(Holm, StepDownAdjustment)
{
    const auto a = holm({0.01, 0.04, 0.03, 0.5});
    EXPECT_NEAR(a[0], 0.04, 1e-12);  // 4 x 0.01
    EXPECT_NEAR(a[2], 0.09, 1e-12);  // 3 x 0.03
    EXPECT_NEAR(a[1], 0.09, 1e-12);  // max(2 x 0.04, 0.09)
    EXPECT_NEAR(a[3], 0.5, 1e-12);
}

TEST(Holm, MetricsWithoutATestAreNotInTheFamily)
{
    const double nan = std::nan("");
    const auto a = holm({nan, 0.01, nan, 0.04, 0.03, nan, 0.5, nan});
    EXPECT_NEAR(a[1], 0.04, 1e-12);  // the same as without the NaNs
    EXPECT_NEAR(a[4], 0.09, 1e-12);
    EXPECT_NEAR(a[3], 0.09, 1e-12);
    EXPECT_NEAR(a[6], 0.5, 1e-12);
    for (std::size_t i : {0u, 2u, 5u, 7u}) {
        EXPECT_TRUE(std::isnan(a[i])) << i;
    }
}

TEST(HodgesLehmann, MatchesBruteForceWalshAverages)
{
    std::mt19937_64 rng(3);
    std::student_t_distribution<double> t(2);
    for (std::size_t n : {1u, 2u, 7u, 30u, 51u, 200u}) {
        std::vector<double> d(n);
        for (auto& v : d) {
            v = std::round(t(rng) * 100) / 100;  // rounding makes ties
        }
        std::vector<double> walsh;
        for (std::size_t i = 0; i < n; ++i) {
            for (std::size_t j = i; j < n; ++j) {
                walsh.push_back((d[i] + d[j]) / 2);
            }
        }
        std::sort(walsh.begin(), walsh.end());
        std::vector<double> sorted = d;
        std::sort(sorted.begin(), sorted.end());
        for (std::size_t k = 1; k <= walsh.size(); k += std::max<std::size_t>(1, walsh.size() / 50)) {
            EXPECT_EQ(walshAverage(sorted, static_cast<double>(k)), walsh[k - 1]) << "n=" << n << " k=" << k;
        }
        const std::size_t m = walsh.size();
        const double expected = m % 2 == 1 ? walsh[m / 2] : (walsh[m / 2 - 1] + walsh[m / 2]) / 2;
        EXPECT_EQ(hodgesLehmann(d, 0.95).estimate, expected) << "n=" << n;
    }
}

TEST(HodgesLehmann, LargeSamplesWithHeavyTiesMatchBruteForce)
{
    std::mt19937_64 rng(5);
    std::normal_distribution<double> noise(0, 1);
    std::vector<double> d(3000);
    for (auto& v : d) {
        v = std::round(noise(rng) * 10) / 10;  // about 60 distinct values: huge tie blocks
    }
    std::vector<double> walsh;
    for (std::size_t i = 0; i < d.size(); ++i) {
        for (std::size_t j = i; j < d.size(); ++j) {
            walsh.push_back((d[i] + d[j]) / 2);
        }
    }
    std::sort(walsh.begin(), walsh.end());
    std::vector<double> sorted = d;
    std::sort(sorted.begin(), sorted.end());
    for (std::size_t k :
         {std::size_t{1}, std::size_t{1000}, walsh.size() / 3, walsh.size() / 2, walsh.size() - 7, walsh.size()}) {
        EXPECT_EQ(walshAverage(sorted, static_cast<double>(k)), walsh[k - 1]) << "k=" << k;
    }
}

TEST(HodgesLehmann, ExactIntervalForSmallSamples)
{
    // n = 10: P(V <= 8) = 0.0244 <= 0.025 < P(V <= 9), so k = 9 and the achieved coverage is
    // 1 - 2 * 0.0244 = 0.951 (Hollander and Wolfe, table A.4).
    const std::vector<double> d = {1, 2, 3, 4, 5, 6, 7, 8, 9, 10};
    const auto e = hodgesLehmann(d, 0.95);
    EXPECT_NEAR(e.confidence, 1 - 2 * 25.0 / 1024, 1e-12);
    EXPECT_DOUBLE_EQ(e.estimate, 5.5);
    EXPECT_DOUBLE_EQ(e.low, 3.0);   // 9th smallest Walsh average of 1..10
    EXPECT_DOUBLE_EQ(e.high, 8.0);  // 9th largest
}

TEST(Outliers, ModifiedZScoreFlagsOnlyTheFarValue)
{
    EXPECT_EQ(outliers({10, 10.1, 9.9, 10.05, 9.95, 13}), (std::vector<std::size_t>{5}));
    EXPECT_TRUE(outliers({1, 1, 1, 1}).empty());
    EXPECT_EQ(outliers({1, 1, 1, 1, 5}), (std::vector<std::size_t>{4}));  // MAD 0: mean deviation
    EXPECT_NEAR(mad({1, 2, 3, 4, 100}), 1.0, 1e-12);
}

TEST(CompareIndependent, FiellerIntervalMatchesReference)
{
    const auto c = compareIndependent(k_x10, k_y12, {});
    EXPECT_NEAR(c.ciLowPct, 1.10137274706954, kTol);
    EXPECT_NEAR(c.ciHighPct, 7.776292580148647, kTol);
    EXPECT_NEAR(c.tostLowPct, 1.6815396955515816, kTol);
    EXPECT_NEAR(c.tostHighPct, 7.18125041209321, kTol);
    EXPECT_NEAR(*c.pWelch, 0.012172473655001376, kTol);
    EXPECT_NEAR(*c.pMwu, 0.01689950915957108, kTol);
    EXPECT_EQ(c.design, Design::Independent);
}

// A summary (n, mean, standard deviation) of the values gives what the values give: the same
// SciPy references as compareIndependent, without the rank test.
TEST(CompareSummaries, FromTheValuesSummariesMatchTheReferences)
{
    const SummaryStats b{10, mean(k_x10), stddev(k_x10)};
    const SummaryStats c{12, mean(k_y12), stddev(k_y12)};
    const auto s = compareSummaries(b, c, {});
    EXPECT_NEAR(s.ciLowPct, 1.10137274706954, kTol);
    EXPECT_NEAR(s.ciHighPct, 7.776292580148647, kTol);
    EXPECT_NEAR(s.tostLowPct, 1.6815396955515816, kTol);
    EXPECT_NEAR(s.tostHighPct, 7.18125041209321, kTol);
    EXPECT_NEAR(*s.pWelch, 0.012172473655001376, kTol);
    EXPECT_FALSE(s.pMwu.has_value());
    EXPECT_NE(s.warnings.front().find("rank tests need the runs"), std::string::npos);
    const auto v = compareIndependent(k_x10, k_y12, {});
    EXPECT_NEAR(s.deltaPct, v.deltaPct, 1e-12);
    EXPECT_NEAR(s.effectSize, v.effectSize, 1e-12);
    EXPECT_NEAR(s.mdePct, v.mdePct, 1e-12);
    EXPECT_EQ(s.nNeeded, v.nNeeded);
}

// scipy.stats.ttest_ind_from_stats(equal_var=False), tests/engine/stats_reference.py.
TEST(CompareSummaries, WelchFromStatsMatchesScipy)
{
    auto r = welchTFromStats(7, 11.0, 2.5, 5, 10.0, 1.5);
    EXPECT_NEAR(r.statistic, 0.8629489272626913, kTol);
    EXPECT_NEAR(r.p, 0.40873098108733197, kTol);
    r = welchTFromStats(30, 101.0, 4.0, 30, 100.0, 3.0);
    EXPECT_NEAR(r.statistic, 1.0954451150103324, kTol);
    EXPECT_NEAR(r.p, 0.2782029598313271, kTol);
    EXPECT_NEAR(*compareSummaries({30, 100.0, 3.0}, {30, 101.0, 4.0}, {}).pWelch, 0.2782029598313271, kTol);
    EXPECT_TRUE(std::isnan(compareSummaries({1, 100.0, 0.0}, {30, 101.0, 4.0}, {}).p));
}

TEST(Verdict, DifferentEquivalentInconclusive)
{
    CompareOptions o;
    Comparison c;
    c.pAdjusted = 0.001;
    c.ciLowPct = 0.5;
    c.ciHighPct = 0.9;
    c.tostLowPct = 0.55;
    c.tostHighPct = 0.85;
    EXPECT_EQ(decide(c, o), Verdict::Different);
    c.pAdjusted = 0.3;
    c.ciLowPct = -0.4;
    c.tostLowPct = -0.3;
    EXPECT_EQ(decide(c, o), Verdict::Equivalent);
    c.tostHighPct = 1.2;
    EXPECT_EQ(decide(c, o), Verdict::Inconclusive);
}

// Heavy-tailed chunk noise like this machine's: most chunks within 0.3%, a few 10% off.
std::vector<double> noisyChunks(std::mt19937_64& rng, std::size_t n, double shift)
{
    std::student_t_distribution<double> t(2);
    std::vector<double> v(n);
    for (auto& x : v) {
        x = 1000 * std::exp(shift + 0.003 * t(rng));
    }
    return v;
}

TEST(Simulation, PairedFalsePositiveRateStaysWithinAlpha)
{
    std::mt19937_64 rng(11);
    int different = 0;
    constexpr int kRuns = 1000;
    for (int i = 0; i < kRuns; ++i) {
        const auto base = noisyChunks(rng, 100, 0);
        const auto cand = noisyChunks(rng, 100, 0);
        auto c = comparePaired(base, cand, {});
        adjustAndDecide({&c}, {}, true);
        different += c.verdict == Verdict::Different ? 1 : 0;
    }
    std::printf("paired A/A: %d of %d datasets 'different' (alpha 0.05)\n", different, kRuns);
    // alpha = 0.05 over 1000 runs: 50 expected, 3 sigma = 20.7
    EXPECT_GE(different, 29);
    EXPECT_LE(different, 71);
}

TEST(Simulation, IndependentFalsePositiveRateStaysWithinAlpha)
{
    std::mt19937_64 rng(12);
    std::normal_distribution<double> noise(0, 0.01);
    int different = 0;
    for (int i = 0; i < 1000; ++i) {
        std::vector<double> a(8);
        std::vector<double> b(8);
        for (auto& x : a) {
            x = 1000 * (1 + noise(rng));
        }
        for (auto& x : b) {
            x = 1000 * (1 + noise(rng));
        }
        auto c = compareIndependent(a, b, {});
        adjustAndDecide({&c}, {}, true);
        different += c.verdict == Verdict::Different ? 1 : 0;
    }
    std::printf("independent A/A: %d of 1000 datasets 'different' (alpha 0.05)\n", different);
    EXPECT_GE(different, 29);
    EXPECT_LE(different, 71);
}

TEST(Simulation, NNeededGivesEightyPercentPowerForOnePercent)
{
    std::mt19937_64 rng(13);
    const double shift = std::log(1.01);
    // A pilot run proposes n for a 1% effect; datasets of that size must find it >= 80% of the time.
    CompareOptions o;
    o.targetPct = 1.0;
    std::student_t_distribution<double> t(2);
    auto chunks = [&](std::size_t n, double s) {
        std::vector<double> v(n);
        for (auto& x : v) {
            x = 1000 * std::exp(s + 0.05 * t(rng));
        }
        return v;
    };
    const auto pilot = comparePaired(chunks(200, 0), chunks(200, shift), o);
    ASSERT_TRUE(pilot.nNeeded.has_value());
    const auto n = static_cast<std::size_t>(*pilot.nNeeded);
    int found = 0;
    constexpr int kRuns = 400;
    for (int i = 0; i < kRuns; ++i) {
        auto c = comparePaired(chunks(n, 0), chunks(n, shift), o);
        adjustAndDecide({&c}, o, true);
        found += c.verdict == Verdict::Different && c.deltaPct > 0 ? 1 : 0;
    }
    std::printf("1%% shift, n_needed = %zu pairs: found in %d of %d datasets\n", n, found, kRuns);
    // 80% power over 400 runs: sigma = 2%; allow 3 sigma below
    EXPECT_GE(found, static_cast<int>(0.74 * kRuns)) << "n_needed=" << n;
}

}  // namespace
}  // namespace nf::engine::stats
