// The decision across boots of a campaign until decided: Student's t per look with alpha spent
// over the looks. The intervals are checked against SciPy 1.10.1 (stats.t.ppf, computed with the
// formula of engine/analysis/boot_sequence.h: the values below), and the error rates by simulating
// campaigns that look after every pair of boots.

#include <gtest/gtest.h>

#include <cmath>
#include <random>

#include "engine/analysis/boot_sequence.h"
#include "engine/model/campaign.h"

namespace nf::engine {
namespace {

TEST(BootSequence, IntervalMatchesScipy)
{
    // /usr/bin/python3: a = 6*0.05/(pi**2*k*k); h = stats.t.ppf(1-a/2, n-1)*stdev(x)/sqrt(n);
    // 100*expm1(mean -+ h).
    const auto five = lookAcrossBoots({0.010, 0.025, -0.004, 0.018, 0.012}, 0.05, 1.0);
    EXPECT_NEAR(five.alphaLook, 0.0018997721932938337, 1e-15);
    EXPECT_NEAR(five.estimatePct, 1.2274723566646246, 1e-9);
    EXPECT_NEAR(five.ci.low, -2.259702181582675, 1e-7);
    EXPECT_NEAR(five.ci.high, 4.839062172250162, 1e-7);
    EXPECT_EQ(five.decision, Verdict::Inconclusive);
    ASSERT_TRUE(five.pairsStillNeeded.has_value());
    EXPECT_GT(*five.pairsStillNeeded, 0U);

    const auto ten = lookAcrossBoots({0.010, 0.025, -0.004, 0.018, 0.012, 0.015, 0.011, 0.02, 0.016, 0.013}, 0.05, 1.0);
    EXPECT_NEAR(ten.alphaLook, 0.0003752636431197696, 1e-15);
    EXPECT_NEAR(ten.ci.low, 0.022365887036209654, 1e-7);
    EXPECT_NEAR(ten.ci.high, 2.7343522381078467, 1e-7);
    EXPECT_EQ(ten.decision, Verdict::Different);
}

TEST(BootSequence, NoDecisionBeforeTwoPairs)
{
    const auto one = lookAcrossBoots({0.5}, 0.05, 1.0);
    EXPECT_EQ(one.pairs, 1U);
    EXPECT_EQ(one.decision, Verdict::Inconclusive);
    EXPECT_TRUE(std::isnan(one.ci.low));
    EXPECT_EQ(lookAcrossBoots({NAN, 0.1}, 0.05, 1.0).pairs, 1U);
}

TEST(BootSequence, TightPairsInsideTheMarginAreEquivalent)
{
    const auto look = lookAcrossBoots({0.001, -0.001, 0.0005, -0.0005, 0.0, 0.0002}, 0.05, 1.0);
    EXPECT_EQ(look.decision, Verdict::Equivalent);
}

// Campaigns that look after every pair from 2 to 15 pairs (4 to 30 boots).
double decidedRate(double effectLog, double sd, Verdict wanted, int campaigns, std::uint64_t seed)
{
    std::mt19937_64 rng(seed);
    std::normal_distribution<double> noise(effectLog, sd);
    int hits = 0;
    for (int c = 0; c < campaigns; ++c) {
        std::vector<double> pairs;
        for (int p = 0; p < 15; ++p) {
            pairs.push_back(noise(rng));
            const auto look = lookAcrossBoots(pairs, 0.05, 0.5);
            if (look.decision != Verdict::Inconclusive) {
                hits += look.decision == wanted ? 1 : 0;
                break;
            }
        }
    }
    return static_cast<double>(hits) / campaigns;
}

TEST(BootSequence, AnAaCampaignIsRarelyCalledDifferentAtAnyLook)
{
    // The union bound gives at most 5%; the simulation in the header's comment gave 3.2%.
    const double falseRate = decidedRate(0.0, 0.02, Verdict::Different, 4000, 7);
    EXPECT_LT(falseRate, 0.05);
    EXPECT_GT(falseRate, 0.005);  // the looks do spend alpha: not a test that cannot fail
}

TEST(BootSequence, AFivePercentStepIsFoundWithinFifteenPairs)
{
    // Boot-to-boot SD 2% per pair: the step of the seeds' page-frag example is found early.
    EXPECT_GT(decidedRate(std::log(1.05), 0.02, Verdict::Different, 2000, 11), 0.95);
}

TEST(BootOrder, CounterbalancedByDefaultAndNeverAllAThenAllB)
{
    std::string abba;
    std::string abab;
    for (int slot = 0; slot < 8; ++slot) {
        abba += kernelOfSlot(BootOrder::Abba, 0, slot) == 0 ? 'A' : 'B';
        abab += kernelOfSlot(BootOrder::Abab, 0, slot) == 0 ? 'A' : 'B';
    }
    EXPECT_EQ(abba, "ABBAABBA");
    EXPECT_EQ(abab, "ABABABAB");
    int firstA = 0;
    for (int pair = 0; pair < 200; ++pair) {
        const int a = kernelOfSlot(BootOrder::Random, 42, 2 * pair);
        EXPECT_NE(a, kernelOfSlot(BootOrder::Random, 42, 2 * pair + 1));  // one of each per pair
        firstA += a == 0 ? 1 : 0;
    }
    EXPECT_GT(firstA, 70);
    EXPECT_LT(firstA, 130);
}

}  // namespace
}  // namespace nf::engine
