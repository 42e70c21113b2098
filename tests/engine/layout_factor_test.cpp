// Code layout as a random factor (engine/analysis/layout_factor.h): the interval over placement
// cells against an independent reference (SciPy and mpmath, tests/engine/stats_reference.py), and
// seeded simulations in which placements move the result: the chunk pairs alone call an A/A
// different most of the time, the cells hold the false-positive rate at alpha and still find a
// real difference.

#include <gtest/gtest.h>

#include <algorithm>
#include <cmath>
#include <iostream>
#include <random>

#include "engine/analysis/layout_factor.h"
#include "tests/engine/stats_reference.h"

namespace nf::engine {
namespace {

struct Pairs {
    std::vector<double> base, cand;
    std::vector<int> baseLayout, candLayout;
};

TEST(LayoutFactor, MatchesTheReferenceTIntervalOverCells)
{
    Pairs p;
    for (const auto& pair : test::reference().at("layout_cells").at("pairs")) {
        p.base.push_back(pair.at("b").get<double>());
        p.cand.push_back(pair.at("c").get<double>());
        p.baseLayout.push_back(pair.at("layout_b").get<int>());
        p.candLayout.push_back(pair.at("layout_c").get<int>());
    }
    for (const auto& [alpha, key] : {std::pair{0.05, "level95"}, std::pair{0.10, "level90"}}) {
        const auto& want = test::reference().at("layout_cells").at(key);
        CompareOptions o;
        o.alpha = alpha;
        const auto c = compareAcrossLayouts(p.base, p.cand, p.baseLayout, p.candLayout, 8, o);
        EXPECT_EQ(c.design, Design::Layouts);
        EXPECT_EQ(c.n, want.at("cells").get<std::size_t>());
        EXPECT_NEAR(c.interval.estimatePct, want.at("estimate_pct").get<double>(), 1e-9);
        EXPECT_NEAR(c.interval.ci.low, want.at("low_pct").get<double>(), 1e-9) << key;
        EXPECT_NEAR(c.interval.ci.high, want.at("high_pct").get<double>(), 1e-9) << key;
        EXPECT_NEAR(c.p, want.at("p").get<double>(), 1e-9);
        ASSERT_TRUE(c.layoutSpreadPct.has_value());
        EXPECT_NEAR(*c.layoutSpreadPct, want.at("spread_pct").get<double>(), 1e-9);
        EXPECT_EQ(c.layoutsMeasured, 8u);
        EXPECT_EQ(c.layoutsPlanned, 8u);
    }
}

// One simulated run of K placements: the baseline's code in placement i costs a[i] (log), the
// candidate's in placement perm(i) costs b[perm(i)], each drawn anew per run (another build, another
// layout); `pairs` chunk pairs per cell with noise `noise` (log sd) and a true difference `delta`.
Pairs simulatedRun(std::mt19937_64& rng, int layouts, int pairs, double layoutSd, double noise, double delta)
{
    std::normal_distribution<double> effect(0, layoutSd);
    std::normal_distribution<double> jitter(0, noise);
    std::vector<double> a(static_cast<std::size_t>(layouts));
    std::vector<double> b(static_cast<std::size_t>(layouts));
    for (int i = 0; i < layouts; ++i) {
        a[static_cast<std::size_t>(i)] = effect(rng);
        b[static_cast<std::size_t>(i)] = effect(rng);
    }
    std::vector<int> perm(static_cast<std::size_t>(layouts));
    for (int i = 0; i < layouts; ++i) {
        perm[static_cast<std::size_t>(i)] = i;
    }
    std::shuffle(perm.begin(), perm.end(), rng);
    Pairs p;
    for (int i = 0; i < layouts; ++i) {
        const int j = perm[static_cast<std::size_t>(i)];
        for (int k = 0; k < pairs; ++k) {
            const double base = 1000 * std::exp(a[static_cast<std::size_t>(i)] + jitter(rng));
            const double cand = 1000 * std::exp(delta + b[static_cast<std::size_t>(j)] + jitter(rng));
            p.base.push_back(base);
            p.cand.push_back(cand);
            p.baseLayout.push_back(i);
            p.candLayout.push_back(j);
        }
    }
    return p;
}

TEST(LayoutFactor, HoldsTheFalsePositiveRateWherePlacementMovesTheResult)
{
    std::mt19937_64 rng(20261205);
    constexpr int kRuns = 400;
    int cellsFound = 0;
    int pairsFound = 0;
    CompareOptions o;
    o.marginPct = 0.1;  // below the layout spread: a confident verdict on placement would be "different"
    for (int run = 0; run < kRuns; ++run) {
        const auto p = simulatedRun(rng, 8, 40, 0.01, 0.003, 0);
        auto cells = compareAcrossLayouts(p.base, p.cand, p.baseLayout, p.candLayout, 8, o);
        decideAdjusted(cells, cells.p, o);
        auto chunks = comparePaired(p.base, p.cand, o);
        decideAdjusted(chunks, chunks.p, o);
        cellsFound += foundDifference(cells.verdict) ? 1 : 0;
        pairsFound += foundDifference(chunks.verdict) ? 1 : 0;
    }
    const double cellRate = static_cast<double>(cellsFound) / kRuns;
    const double pairRate = static_cast<double>(pairsFound) / kRuns;
    std::cout << "A/A called a difference: " << cellRate * 100 << "% over placement cells, " << pairRate * 100
              << "% by the chunk pairs alone (" << kRuns << " simulated runs)\n";
    // 5% nominal; 3 binomial standard errors of 400 runs either side (about 3.3%).
    EXPECT_LE(cellRate, 0.05 + 3 * std::sqrt(0.05 * 0.95 / kRuns)) << cellRate;
    EXPECT_GE(cellRate, 0.05 - 3 * std::sqrt(0.05 * 0.95 / kRuns)) << cellRate;
    EXPECT_GT(pairRate, 0.5) << "the chunk pairs alone should be fooled by placement: " << pairRate;
}

TEST(LayoutFactor, StillFindsARealDifferenceLargerThanTheSpread)
{
    std::mt19937_64 rng(7);
    int found = 0;
    CompareOptions o;
    for (int run = 0; run < 100; ++run) {
        const auto p = simulatedRun(rng, 8, 40, 0.005, 0.003, std::log(1.03));
        auto cells = compareAcrossLayouts(p.base, p.cand, p.baseLayout, p.candLayout, 8, o);
        decideAdjusted(cells, cells.p, o);
        found += cells.verdict == Verdict::Different && cells.direction > 0 ? 1 : 0;
    }
    EXPECT_GE(found, 95);
}

TEST(LayoutFactor, SaysTheDesignIsIncompleteWithFewerCellsThanPlacements)
{
    std::mt19937_64 rng(3);
    auto p = simulatedRun(rng, 8, 10, 0.005, 0.003, 0);
    for (auto* layouts : {&p.baseLayout, &p.candLayout}) {
        for (std::size_t i = 50; i < layouts->size(); ++i) {
            (*layouts)[i] = -1;  // only the first five cells were measured
        }
    }
    const auto c = compareAcrossLayouts(p.base, p.cand, p.baseLayout, p.candLayout, 8, CompareOptions{});
    EXPECT_EQ(c.layoutsMeasured, 5u);
    EXPECT_EQ(c.layoutsPlanned, 8u);
    EXPECT_EQ(c.n, 5u);
    ASSERT_FALSE(c.warnings.empty());
    EXPECT_NE(c.warnings.back().find("incomplete layout design: 5 of 8 placements"), std::string::npos);
    EXPECT_NE(c.levels.find("incomplete: 5 of 8"), std::string::npos);
}

// A repetition the machine took away leaves a cell of a few pairs: it must not weigh as much as the
// others (its mean once turned -0.3% into +1.0%).
TEST(LayoutFactor, ACellOfAFewPairsIsLeftOutAndNamed)
{
    std::mt19937_64 rng(11);
    auto p = simulatedRun(rng, 8, 100, 0.001, 0.003, std::log(0.997));
    // Cell 3 keeps 4 of its 100 pairs, each 5% up.
    std::size_t kept = 0;
    for (std::size_t i = 0; i < p.base.size(); ++i) {
        if (p.baseLayout[i] == 3) {
            if (kept++ < 4) {
                p.cand[i] *= 1.05;
            } else {
                p.baseLayout[i] = p.candLayout[i] = -1;
            }
        }
    }
    const auto c = compareAcrossLayouts(p.base, p.cand, p.baseLayout, p.candLayout, 8, CompareOptions{});
    EXPECT_EQ(c.n, 7u);
    EXPECT_LT(c.interval.estimatePct, 0);
    ASSERT_EQ(c.layoutCells.size(), 8u);
    const auto thin =
        std::find_if(c.layoutCells.begin(), c.layoutCells.end(), [](const LayoutCell& x) { return x.baseline == 3; });
    ASSERT_NE(thin, c.layoutCells.end());
    EXPECT_TRUE(thin->leftOut);
    EXPECT_EQ(thin->pairs, 4u);
    bool named = false;
    for (const auto& w : c.warnings) {
        named = named || w.find("placement cells 3/") != std::string::npos;
    }
    EXPECT_TRUE(named);
}

TEST(LayoutFactor, OneCellGivesNoIntervalAndSaysWhy)
{
    const std::vector<double> base = {100, 101, 99};
    const std::vector<double> cand = {102, 103, 101};
    const std::vector<int> one = {2, 2, 2};
    const auto c = compareAcrossLayouts(base, cand, one, one, 8, CompareOptions{});
    EXPECT_FALSE(c.interval.bounded());
    EXPECT_FALSE(c.layoutSpreadPct.has_value());
    EXPECT_EQ(c.layoutsMeasured, 1u);
    EXPECT_NE(c.interval.note.find("one placement cell"), std::string::npos);
    EXPECT_TRUE(std::isnan(c.p));
}

}  // namespace
}  // namespace nf::engine
