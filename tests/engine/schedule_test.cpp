#include "engine/run/schedule.h"

#include <gtest/gtest.h>

#include <set>

namespace nf::engine {
namespace {

std::vector<int> variantsOf(const std::vector<SliceRef>& slices)
{
    std::vector<int> out;
    for (const auto& s : slices) {
        out.push_back(s.variant);
    }
    return out;
}

TEST(Schedule, InterleavedRepetitionsAlternateDirection)
{
    std::mt19937_64 rng(1);
    const auto units = planUnits(2, 4, Order::Interleaved, rng);
    ASSERT_EQ(units.size(), 4u);
    EXPECT_EQ(units[0].variants, (std::vector<int>{0, 1}));
    EXPECT_EQ(units[1].variants, (std::vector<int>{1, 0}));
    EXPECT_EQ(units[2].variants, (std::vector<int>{0, 1}));
    EXPECT_EQ(units[3].repetition, 3);
}

TEST(Schedule, InterleavedChunksAreABBA)
{
    std::mt19937_64 rng(1);
    const auto slices = planSlices({0, {0, 1}}, 4, 0, Order::Interleaved, rng);
    EXPECT_EQ(variantsOf(slices), (std::vector<int>{0, 1, 1, 0, 0, 1, 1, 0}));
    EXPECT_EQ(slices[2].pair, 1);
    EXPECT_EQ(slices[7].pair, 3);
}

TEST(Schedule, ThreeVariantsCounterbalancePositions)
{
    std::mt19937_64 rng(1);
    const auto slices = planSlices({0, {0, 1, 2}}, 2, 0, Order::Interleaved, rng);
    EXPECT_EQ(variantsOf(slices), (std::vector<int>{0, 1, 2, 2, 1, 0}));
}

TEST(Schedule, BlockedRunsOneVariantPerUnit)
{
    std::mt19937_64 rng(1);
    const auto units = planUnits(2, 3, Order::Blocked, rng);
    ASSERT_EQ(units.size(), 6u);
    EXPECT_EQ(units[0].variants, (std::vector<int>{0}));
    EXPECT_EQ(units[2].variants, (std::vector<int>{0}));
    EXPECT_EQ(units[3].variants, (std::vector<int>{1}));
    EXPECT_EQ(units[3].repetition, 0);
}

TEST(Schedule, RandomIsSeededAndEachRoundHasEveryVariant)
{
    std::mt19937_64 a(7);
    std::mt19937_64 b(7);
    const auto sa = planSlices({0, {0, 1, 2}}, 50, 0, Order::Random, a);
    const auto sb = planSlices({0, {0, 1, 2}}, 50, 0, Order::Random, b);
    EXPECT_EQ(variantsOf(sa), variantsOf(sb));
    const auto order = variantsOf(sa);
    std::set<std::vector<int>> orders;
    for (std::size_t r = 0; r < 50; ++r) {
        const std::vector<int> round(order.begin() + static_cast<long>(3 * r),
                                     order.begin() + static_cast<long>(3 * r + 3));
        EXPECT_EQ(std::set<int>(round.begin(), round.end()).size(), 3u);
        EXPECT_EQ(sa[3 * r].pair, static_cast<int>(r));
        orders.insert(round);
    }
    EXPECT_GT(orders.size(), 1u);
}

TEST(Schedule, NotAlternatingRunsConsecutiveIntervals)
{
    std::mt19937_64 rng(1);
    const auto slices = planSlices({0, {1, 0}}, 0, 3, Order::Interleaved, rng);
    EXPECT_EQ(variantsOf(slices), (std::vector<int>{1, 1, 1, 0, 0, 0}));
    EXPECT_EQ(slices[0].pair, -1);
}

// Code placements per repetition (LayoutPlan): every variant runs each placement once per cycle of
// K repetitions, two variants always meet in the same K cells, and a pinned variant stays put.
TEST(LayoutPlan, EachVariantRunsEveryPlacementOncePerCycleInFixedCells)
{
    const LayoutPlan plan(8, {std::nullopt, std::nullopt, std::nullopt}, 42);
    std::set<std::pair<int, int>> cells01;
    for (int cycle = 0; cycle < 3; ++cycle) {
        std::vector<std::set<int>> seen(3);
        for (int r = cycle * 8; r < cycle * 8 + 8; ++r) {
            const auto placements = plan.at(r);
            ASSERT_EQ(placements.size(), 3u);
            for (std::size_t v = 0; v < 3; ++v) {
                ASSERT_GE(placements[v], 0);
                ASSERT_LT(placements[v], 8);
                seen[v].insert(placements[v]);
            }
            cells01.insert({placements[0], placements[1]});
        }
        for (const auto& s : seen) {
            EXPECT_EQ(s.size(), 8u) << "cycle " << cycle;
        }
    }
    EXPECT_EQ(cells01.size(), 8u) << "the variants met in other cells in another cycle";
    EXPECT_EQ(plan.at(5), LayoutPlan(8, {std::nullopt, std::nullopt, std::nullopt}, 42).at(5));
}

TEST(LayoutPlan, CyclesAreShuffledAndVariantsDoNotShareAPlacementByDesign)
{
    const LayoutPlan plan(8, {std::nullopt, std::nullopt}, 1);
    std::vector<int> first;
    std::vector<int> second;
    int same = 0;
    for (int r = 0; r < 8; ++r) {
        first.push_back(plan.at(r)[0]);
        second.push_back(plan.at(r + 8)[0]);
        same += plan.at(r)[0] == plan.at(r)[1] ? 1 : 0;
    }
    EXPECT_NE(first, second);
    EXPECT_EQ(same, 0);  // a permutation of its own for variant 1 that shares no cell with the baseline's
}

TEST(LayoutPlan, NoTwoVariantsShareAPlacementInARepetition)
{
    for (std::uint64_t seed = 0; seed < 50; ++seed) {
        const LayoutPlan plan(8, {std::nullopt, std::nullopt, std::nullopt, std::nullopt}, seed);
        for (int r = 0; r < 8; ++r) {
            const auto p = plan.at(r);
            EXPECT_EQ(std::set<int>(p.begin(), p.end()).size(), 4u) << "seed " << seed << " repetition " << r;
        }
    }
}

TEST(LayoutPlan, FewerRepetitionsThanPlacementsDrawWithoutReplacement)
{
    const LayoutPlan plan(8, {std::nullopt, std::nullopt}, 9);
    std::set<int> drawn;
    for (int r = 0; r < 5; ++r) {
        drawn.insert(plan.at(r)[0]);
    }
    EXPECT_EQ(drawn.size(), 5u);
}

TEST(LayoutPlan, APinnedVariantStaysAndNoLayoutsMeansPlacementZero)
{
    const LayoutPlan pinned(8, {std::nullopt, 3}, 5);
    const LayoutPlan off(0, {std::nullopt, 6}, 5);
    for (int r = 0; r < 16; ++r) {
        EXPECT_EQ(pinned.at(r)[1], 3);
        EXPECT_EQ(off.at(r), (std::vector<int>{0, 6}));
    }
}

}  // namespace
}  // namespace nf::engine
