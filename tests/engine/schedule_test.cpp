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

}  // namespace
}  // namespace nf::engine
