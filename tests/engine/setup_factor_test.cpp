// The setups of a live run side by side as a random factor (engine/analysis/setup_factor.h): the t
// test over the setups' median log ratios against SciPy (tests/data/stats/reference.json), and
// seeded simulations in which each start of the receivers shifts a variant's rate for as long as
// it lives (measured on the veth testbed: docs/benchmarks.md): the chunk pairs alone call an A/A
// different far more often than alpha, the setups hold the rate at alpha and still find a real
// difference.

#include <gtest/gtest.h>

#include <algorithm>
#include <cmath>
#include <iostream>
#include <random>

#include "engine/analysis/setup_factor.h"
#include "tests/engine/stats_reference.h"

namespace nf::engine {
namespace {

struct Pairs {
    std::vector<double> base, cand;
    std::vector<int> setup;
};

// Setup i's pairs have log ratios x[i] + {-0.04, -0.01, 0, +0.002, +0.003}: their median is x[i],
// their mean is not, so the test below also says which one stands for a setup.
TEST(SetupFactor, TOverTheSetupsMediansMatchesScipy)
{
    const auto x = test::reference().at("data").at("d20").get<std::vector<double>>();
    Pairs p;
    for (std::size_t i = 0; i < x.size(); ++i) {
        for (const double off : {-0.04, -0.01, 0.0, 0.002, 0.003}) {
            p.base.push_back(1000);
            p.cand.push_back(1000 * std::exp(x[i] + off));
            p.setup.push_back(static_cast<int>(i));
        }
    }
    const auto c = compareAcrossSetups(p.base, p.cand, p.setup, CompareOptions{});
    EXPECT_EQ(c.design, Design::Setups);
    EXPECT_EQ(c.n, x.size());
    EXPECT_NEAR(c.p, test::reference().at("ttest1").at("d20").at("p").get<double>(), 1e-9);
    double mean = 0;
    for (const double v : x) {
        mean += v / static_cast<double>(x.size());
    }
    EXPECT_NEAR(c.interval.estimatePct, std::expm1(mean) * 100, 1e-9);
    ASSERT_TRUE(c.setupSpreadPct.has_value());
    ASSERT_EQ(c.setupCells.size(), x.size());
    EXPECT_NEAR(c.setupCells[3].deltaPct, std::expm1(x[3]) * 100, 1e-9);
    EXPECT_EQ(c.setupCells[3].pairs, 5u);
    EXPECT_EQ(c.levels, "20 setups of 100 pairs");
}

// One simulated live run: `setups` setups of `pairs` chunk pairs, each variant's rate in a setup
// shifted by its own draw (log sd setupSd), chunk noise `noise` (log sd), a true difference `delta`.
Pairs simulatedRun(std::mt19937_64& rng, int setups, int pairs, double setupSd, double noise, double delta)
{
    std::normal_distribution<double> draw(0, setupSd);
    std::normal_distribution<double> jitter(0, noise);
    Pairs p;
    for (int s = 0; s < setups; ++s) {
        const double a = draw(rng);
        const double b = draw(rng);
        for (int k = 0; k < pairs; ++k) {
            p.base.push_back(1e6 * std::exp(a + jitter(rng)));
            p.cand.push_back(1e6 * std::exp(delta + b + jitter(rng)));
            p.setup.push_back(s);
        }
    }
    return p;
}

// As measured on the testbed (2026-12-06): setups of 200 chunk pairs shifted each variant by about
// 0.7%, chunk pairs scattered by about 10%; 6 setups per run.
TEST(SetupFactor, HoldsTheFalsePositiveRateWhereEachStartShiftsTheRate)
{
    std::mt19937_64 rng(20261206);
    constexpr int kRuns = 1000;
    int setupsFound = 0;
    int pairsFound = 0;
    CompareOptions o;
    for (int run = 0; run < kRuns; ++run) {
        const auto p = simulatedRun(rng, 6, 200, 0.007, 0.1, 0);
        auto setups = compareAcrossSetups(p.base, p.cand, p.setup, o);
        decideAdjusted(setups, setups.p, o);
        auto chunks = comparePaired(p.base, p.cand, o);
        decideAdjusted(chunks, chunks.p, o);
        setupsFound += foundDifference(setups.verdict) ? 1 : 0;
        pairsFound += foundDifference(chunks.verdict) ? 1 : 0;
    }
    const double setupRate = static_cast<double>(setupsFound) / kRuns;
    const double pairRate = static_cast<double>(pairsFound) / kRuns;
    std::cout << "A/A called a difference: " << setupRate * 100 << "% over setups, " << pairRate * 100
              << "% by the chunk pairs alone (" << kRuns << " simulated runs)\n";
    // 5% nominal; 3 binomial standard errors of 1000 runs (about 2.1%). The chunk pairs alone call
    // about three times as many (15% in 3000 runs).
    EXPECT_LE(setupRate, 0.05 + 3 * std::sqrt(0.05 * 0.95 / kRuns)) << setupRate;
    EXPECT_GT(pairRate, 0.1) << "the chunk pairs alone should be fooled by the setups: " << pairRate;
}

TEST(SetupFactor, StillFindsARealDifferenceLargerThanTheSpread)
{
    std::mt19937_64 rng(7);
    int found = 0;
    CompareOptions o;
    for (int run = 0; run < 100; ++run) {
        const auto p = simulatedRun(rng, 12, 200, 0.007, 0.1, std::log(1.03));
        auto setups = compareAcrossSetups(p.base, p.cand, p.setup, o);
        decideAdjusted(setups, setups.p, o);
        found += setups.verdict == Verdict::Different && setups.direction > 0 ? 1 : 0;
    }
    EXPECT_GE(found, 95);
}

// A setup the machine took away (most of its chunks preempted) must not weigh as much as the others.
TEST(SetupFactor, ASetupOfAFewPairsIsLeftOutAndNamed)
{
    std::mt19937_64 rng(11);
    auto p = simulatedRun(rng, 6, 100, 0.001, 0.01, std::log(0.997));
    std::size_t kept = 0;
    for (std::size_t i = 0; i < p.base.size(); ++i) {
        if (p.setup[i] == 3) {  // the fourth setup: setup 4 in the reports
            if (kept++ < 4) {
                p.cand[i] *= 1.05;
            } else {
                p.setup[i] = -1;
            }
        }
    }
    const auto c = compareAcrossSetups(p.base, p.cand, p.setup, CompareOptions{});
    EXPECT_EQ(c.n, 5u);
    EXPECT_LT(c.interval.estimatePct, 0);
    const auto thin =
        std::find_if(c.setupCells.begin(), c.setupCells.end(), [](const SetupCell& x) { return x.setup == 4; });
    ASSERT_NE(thin, c.setupCells.end());
    EXPECT_TRUE(thin->leftOut);
    EXPECT_EQ(thin->pairs, 4u);
    ASSERT_FALSE(c.warnings.empty());
    EXPECT_NE(c.warnings.front().find("setups 4 (4 pairs) left out"), std::string::npos) << c.warnings.front();
}

TEST(SetupFactor, OneSetupGivesNoIntervalAndSaysWhy)
{
    const std::vector<double> base = {100, 101, 99};
    const std::vector<double> cand = {102, 103, 101};
    const std::vector<int> one = {0, 0, 0};
    const auto c = compareAcrossSetups(base, cand, one, CompareOptions{});
    EXPECT_FALSE(c.interval.bounded());
    EXPECT_FALSE(c.setupSpreadPct.has_value());
    EXPECT_EQ(c.n, 1u);
    EXPECT_NE(c.interval.note.find("one setup measured"), std::string::npos);
    EXPECT_TRUE(std::isnan(c.p));
}

}  // namespace
}  // namespace nf::engine

namespace nf::engine {
namespace {

// A Holm-adjusted level so close to 1 that its tail rounds to 0 (a secondary metric with p = 1e-300
// in a group whose p is larger) is an unbounded interval, not an overflow in the t quantile.
TEST(SetupFactor, ALevelThatLeavesNoTailIsUnbounded)
{
    std::vector<double> base;
    std::vector<double> cand;
    std::vector<int> setup;
    for (int s = 0; s < 12; ++s) {
        for (int i = 0; i < 5; ++i) {
            base.push_back(1000);
            cand.push_back(1200 + s + i);
            setup.push_back(s);
        }
    }
    CompareOptions options;
    options.alpha = 1e-300;
    const auto c = compareAcrossSetups(base, cand, setup, options);
    EXPECT_TRUE(std::isnan(c.interval.ci.low) && std::isnan(c.interval.ci.high));
    EXPECT_NEAR(c.interval.estimatePct, 20.6, 0.5);
}

}  // namespace
}  // namespace nf::engine
