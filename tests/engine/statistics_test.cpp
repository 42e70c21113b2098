#include "engine/stats/descriptive.h"

#include <gtest/gtest.h>

namespace nf::engine {
namespace {

TEST(Statistics, Summary)
{
    const auto s = summarize({2, 4, 4, 4, 5, 5, 7, 9});
    EXPECT_EQ(s.n, 8u);
    EXPECT_DOUBLE_EQ(s.mean, 5);
    EXPECT_DOUBLE_EQ(s.median, 4.5);
    EXPECT_NEAR(s.stddev, 2.138089935, 1e-9);  // sample (n - 1) standard deviation
    EXPECT_NEAR(s.cv, 2.138089935 / 5, 1e-9);
    EXPECT_DOUBLE_EQ(s.min, 2);
    EXPECT_DOUBLE_EQ(s.max, 9);
}

TEST(Statistics, SmallSamples)
{
    EXPECT_EQ(summarize({}).n, 0u);
    const auto one = summarize({3});
    EXPECT_DOUBLE_EQ(one.mean, 3);
    EXPECT_DOUBLE_EQ(one.stddev, 0);
    EXPECT_DOUBLE_EQ(median({3, 1, 2}), 2);
}

}  // namespace
}  // namespace nf::engine
