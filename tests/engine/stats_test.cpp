// The statistics' building blocks against SciPy and mpmath (tests/engine/stats_reference.h).

#include <gtest/gtest.h>

#include <algorithm>
#include <cmath>
#include <cstdio>
#include <random>

#include "engine/stats/descriptive.h"
#include "engine/stats/hypothesis_tests.h"
#include "engine/stats/power.h"
#include "engine/stats/ratio.h"
#include "engine/stats/robust.h"
#include "tests/engine/stats_reference.h"

namespace nf::engine::stats {
namespace {

using test::reference;

std::vector<double> data(const std::string& name)
{
    return test::referenceData(name);
}

double ref(const std::string& group, const std::string& name, const std::string& field)
{
    return test::referenceValue(group, name, field);
}

constexpr double kTol = 1e-6;

TEST(Welch, MatchesScipy)
{
    auto r = welchT(data("x10"), data("y12"));
    EXPECT_NEAR(r.statistic, ref("welch", "x10_y12", "t"), kTol);
    EXPECT_NEAR(r.p, ref("welch", "x10_y12", "p"), kTol);
    EXPECT_NEAR(welchT(data("x5"), data("y4")).p, ref("welch", "x5_y4", "p"), kTol);
    EXPECT_NEAR(welchT(data("x60"), data("y70")).p, ref("welch", "x60_y70", "p"), kTol);
}

// Values near 1e-100 (seconds of something very fast) and 1e100: the variances' squares under- and
// overflow in the values' own units, which made the degrees of freedom NaN and Boost.Math throw.
TEST(Welch, ScaleFreeAt1eMinus100And1e100MatchesMpmath)
{
    for (const char* name : {"tiny", "huge"}) {
        const auto& f = reference()["fieller"][name];
        const auto r = welchT(data(f["candidate"]), data(f["baseline"]));
        EXPECT_NEAR(r.statistic, f["welch"]["t"].get<double>(), 1e-12) << name;
        EXPECT_NEAR(r.df, f["welch"]["df"].get<double>(), 1e-9) << name;
        EXPECT_NEAR(r.p, f["welch"]["p"].get<double>(), 1e-12) << name;
    }
}

// 1e12 + 3 against 1e12 with a standard deviation of 5: the difference of the means needs the
// digits a plain mean rounds away.
TEST(Welch, CloseMeansOfLargeCountersMatchMpmath)
{
    for (const char* name : {"count1e9", "count1e12", "count1e12sd5"}) {
        const auto& f = reference()["fieller"][name];
        const auto r = welchT(data(f["candidate"]), data(f["baseline"]));
        EXPECT_NEAR(r.statistic, f["welch"]["t"].get<double>(), 1e-9) << name;
        EXPECT_NEAR(r.p, f["welch"]["p"].get<double>(), 1e-9) << name;
    }
}

TEST(Descriptive, MeanIsCompensated)
{
    // a million counter values near 1e12: a plain running sum is off by 0.45 in the mean
    std::vector<double> counts;
    for (int i = 0; i < 1000000; ++i) {
        counts.push_back(1e12 + 0.1 * (i % 10));
    }
    const double exact = reference()["mean_million_1e12"]["mean"];
    EXPECT_NEAR(mean(counts), exact, 2e-4);  // one rounding of 1e12 is 1.2e-4
    EXPECT_EQ(mean({1e16, 1.0, -1e16, 1.0}), 0.5);
}

TEST(Descriptive, StandardDeviationIsScaleFree)
{
    // Scaling by a power of two is exact, so the standard deviation must scale exactly with it.
    const auto x = data("x10");
    for (int e : {-1000, -300, 300, 1000}) {
        std::vector<double> scaled;
        for (double v : x) {
            scaled.push_back(std::ldexp(v, e));
        }
        EXPECT_EQ(stddev(scaled), std::ldexp(stddev(x), e)) << e;
    }
}

TEST(MannWhitney, ExactWithoutTiesMatchesScipy)
{
    auto r = mannWhitneyU(data("x10"), data("y12"));
    EXPECT_TRUE(r.exact);
    EXPECT_DOUBLE_EQ(r.statistic, ref("mwu", "x10_y12", "U"));
    EXPECT_NEAR(r.p, ref("mwu", "x10_y12", "p"), kTol);
    auto small = mannWhitneyU(data("x5"), data("y4"));
    EXPECT_TRUE(small.exact);
    EXPECT_NEAR(small.p, ref("mwu", "x5_y4", "p"), kTol);
}

TEST(MannWhitney, NormalApproximationWithTiesMatchesScipy)
{
    auto ties = mannWhitneyU(data("xt"), data("yt"));
    EXPECT_FALSE(ties.exact);
    EXPECT_DOUBLE_EQ(ties.statistic, ref("mwu", "xt_yt", "U"));
    EXPECT_NEAR(ties.p, ref("mwu", "xt_yt", "p"), kTol);
    auto large = mannWhitneyU(data("x60"), data("y70"));
    EXPECT_FALSE(large.exact);
    EXPECT_NEAR(large.p, ref("mwu", "x60_y70", "p"), kTol);
}

TEST(MannWhitney, SmallestAttainableP)
{
    // 3 against 3: the most extreme arrangement has probability 1/20, two-sided 0.1.
    EXPECT_NEAR(mannWhitneyU({1, 2, 3}, {4, 5, 6}).minAttainableP, 0.1, 1e-12);
    EXPECT_NEAR(mannWhitneyU({1, 2, 3}, {4, 5, 6}).p, 0.1, 1e-12);
}

TEST(Wilcoxon, MatchesScipy)
{
    auto exact = wilcoxonSignedRank(data("d20"));
    EXPECT_TRUE(exact.exact);
    EXPECT_DOUBLE_EQ(exact.statistic, ref("wilcoxon", "d20", "T"));
    EXPECT_NEAR(exact.p, ref("wilcoxon", "d20", "p"), kTol);
    auto approx = wilcoxonSignedRank(data("d80"));
    EXPECT_FALSE(approx.exact);
    EXPECT_DOUBLE_EQ(approx.statistic, ref("wilcoxon", "d80", "T"));
    EXPECT_NEAR(approx.p, ref("wilcoxon", "d80", "p"), kTol);
    auto zerosAndTies = wilcoxonSignedRank(data("dz"));
    EXPECT_FALSE(zerosAndTies.exact);
    EXPECT_DOUBLE_EQ(zerosAndTies.statistic, ref("wilcoxon", "dz", "T"));
    EXPECT_NEAR(zerosAndTies.p, ref("wilcoxon", "dz", "p"), kTol);
    EXPECT_NEAR(wilcoxonSignedRank({1, 2, 3, 4, 5}).minAttainableP, 0.0625, 1e-12);
}

// Six differences alike and a zero: SciPy 1.10's normal approximation (zeros force it) gives
// 0.0277, below 2 / 2^6, the smallest p of any arrangement of six signs. Held at that bound, which
// is SciPy's exact p of the six.
TEST(Wilcoxon, TheNormalApproximationIsHeldAtTheSmallestExactP)
{
    const auto& z = reference()["wilcoxon_zero_floor"];
    const auto r = wilcoxonSignedRank(z["d"].get<std::vector<double>>());
    EXPECT_FALSE(r.exact);
    EXPECT_LT(z["p_scipy_approx"].get<double>(), r.minAttainableP);
    EXPECT_DOUBLE_EQ(r.minAttainableP, 0.03125);
    EXPECT_DOUBLE_EQ(r.p, z["p_exact_nonzero"].get<double>());
}

// The signed-rank statistic's mean and variance at a shift, against every sample of n values from a
// five-valued distribution, R+ from SciPy's midranks (stats_reference.py).
TEST(SignedRankPower, MomentsMatchEnumeration)
{
    for (const auto& m : reference()["signed_rank_moments"]) {
        auto population = m["population"].get<std::vector<double>>();
        std::sort(population.begin(), population.end());
        const SignedRankPower power(population);
        const double theta = m["theta"];
        const double n = m["n"];
        const auto got = power.moments(theta, n);
        EXPECT_NEAR(got.mean, m["mean"].get<double>(), 1e-12 * m["mean"].get<double>()) << theta << " n " << n;
        EXPECT_NEAR(got.variance, m["variance"].get<double>(), 1e-12 * m["variance"].get<double>())
            << theta << " n " << n;
    }
}

TEST(SignedRankPower, NoShiftIsDetectedWhereTheTestCannotReachAlpha)
{
    const SignedRankPower power({-0.02, -0.01, 0, 0.01, 0.03});
    EXPECT_EQ(power.power(1.0, 5, 0.05), 0);  // 2 / 2^5 = 0.0625
    EXPECT_TRUE(std::isnan(power.detectable(5, +1, 0.05, 0.8)));
    EXPECT_EQ(power.power(1.0, 6, 0.05), 1);  // every value and sum positive: R+ at its extreme
    EXPECT_EQ(*power.sampleSize(1.0, 0.05, 0.8), 6);
    EXPECT_EQ(*power.sampleSize(1.0, 0.03125, 0.8), 7);
    EXPECT_FALSE(power.sampleSize(0, 0.05, 0.8).has_value());
}

TEST(OneSampleT, MatchesScipy)
{
    EXPECT_NEAR(oneSampleT(data("d20")).statistic, ref("ttest1", "d20", "t"), kTol);
    EXPECT_NEAR(oneSampleT(data("d20")).p, ref("ttest1", "d20", "p"), kTol);
    EXPECT_NEAR(oneSampleT(data("d80")).p, ref("ttest1", "d80", "p"), kTol);
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
    const auto& j = reference();
    EXPECT_NEAR(spearman(data("x10"), down).rho, j["spearman_x10_down"]["rho"].get<double>(), kTol);
    EXPECT_NEAR(spearman(data("x10"), down).p, j["spearman_x10_down"]["p"].get<double>(), kTol);
    EXPECT_NEAR(spearman(data("x60"), up).p, j["spearman_x60_up"]["p"].get<double>(), kTol);
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

// Benjamini and Hochberg (1995), J. R. Statist. Soc. B 57(1):289-300, section 4.1: the 15 p-values
// of Neuhaus et al.'s trial; at q* = 0.05 the procedure rejects the four smallest (Bonferroni's
// three). R's p.adjust(p, "BH") gives the adjusted values below.
TEST(BenjaminiHochberg, ThePapersExample)
{
    const std::vector<double> p = {0.0201, 0.0001, 0.7590, 0.0004, 0.0019, 0.0095, 0.0278, 0.0298,
                                   0.0344, 0.0459, 0.3240, 0.4262, 0.5719, 0.6528, 1.0000};
    const auto q = benjaminiHochberg(p);
    EXPECT_EQ(std::count_if(q.begin(), q.end(), [](double v) { return v <= 0.05; }), 4);
    EXPECT_NEAR(q[1], 0.0015, 1e-12);           // 0.0001 x 15 / 1
    EXPECT_NEAR(q[5], 0.035625, 1e-12);         // 0.0095 x 15 / 4
    EXPECT_NEAR(q[0], 0.0603, 1e-12);           // 0.0201 x 15 / 5
    EXPECT_NEAR(q[6], 0.0638571428571, 1e-12);  // min(0.0278 x 15 / 6, 0.0298 x 15 / 7)
    EXPECT_NEAR(q[14], 1.0, 1e-12);
}

TEST(BenjaminiHochberg, RowsWithoutATestAreNotInTheFamily)
{
    const double nan = std::nan("");
    const auto q = benjaminiHochberg({nan, 0.01, 0.04, nan});
    EXPECT_NEAR(q[1], 0.02, 1e-12);  // 0.01 x 2 / 1
    EXPECT_NEAR(q[2], 0.04, 1e-12);
    EXPECT_TRUE(std::isnan(q[0]) && std::isnan(q[3]));
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

// A drop rate that is zero in most repetitions: its Student t interval reaches far below zero, the
// log-scale one stays above it; both ends match mpmath (and SciPy's t.interval on the log scale).
TEST(LogScaleMean, MatchesMpmathAndStaysPositive)
{
    for (const auto& [name, row] : reference()["log_scale_mean"].items()) {
        const auto xs = row["values"].get<std::vector<double>>();
        const auto s = summarize(xs);
        for (const auto& [key, level] : {std::pair<std::string, double>{"ci95", 0.95}, {"ci90", 0.90}}) {
            const auto r = logScaleMeanInterval(s.mean, s.stddev, static_cast<double>(s.n), level);
            const auto& want = row[key];
            EXPECT_NEAR(r.low / want["low"].get<double>(), 1, 1e-9) << name << " " << key;
            EXPECT_NEAR(r.high / want["high"].get<double>(), 1, 1e-9) << name << " " << key;
            EXPECT_GT(r.low, 0) << name;
        }
    }
    EXPECT_LT(reference()["log_scale_mean"]["drops5"]["ci95"]["t_low"].get<double>(), 0);
}

TEST(LogScaleMean, DegenerateCases)
{
    const auto constant = logScaleMeanInterval(5, 0, 3, 0.95);
    EXPECT_EQ(constant.low, 5);
    EXPECT_EQ(constant.high, 5);
    EXPECT_TRUE(std::isnan(logScaleMeanInterval(5, 1, 1, 0.95).low));  // one value
    EXPECT_TRUE(std::isnan(logScaleMeanInterval(0, 0, 5, 0.95).low));  // nothing to take the log of
    EXPECT_TRUE(std::isnan(logScaleMeanInterval(-2, 1, 5, 0.95).high));
}

}  // namespace
}  // namespace nf::engine::stats
