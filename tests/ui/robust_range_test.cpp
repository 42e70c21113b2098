// robustRange (ui/robust_range.h): the Live samples plot's y limits follow the bulk of the data.

#include <gtest/gtest.h>

#include <cmath>
#include <random>

#include "ui/robust_range.h"

namespace nf::ui {
namespace {

TEST(RobustRange, AnOutlierDoesNotStretchTheRange)
{
    std::mt19937_64 rng(2);
    std::normal_distribution<double> bulk(100, 1);
    std::vector<double> v;
    for (int i = 0; i < 1000; ++i) {
        v.push_back(bulk(rng));
    }
    v.push_back(5000);  // one interval the worker was switched out of
    v.push_back(NAN);
    const auto r = robustRange(v);
    EXPECT_GT(r.low, 90);
    EXPECT_LT(r.high, 110);
    EXPECT_FALSE(r.holds(5000));
    // Every value of the bulk is inside (3 IQR reach about 4.7 sd from the median).
    EXPECT_EQ(std::count_if(v.begin(), v.begin() + 1000, [&](double x) { return !r.holds(x); }), 0);
}

TEST(RobustRange, NeverWiderThanTheDataAndEmptyWithoutValues)
{
    const auto r = robustRange({3, 4, 5});
    EXPECT_DOUBLE_EQ(r.low, 3);
    EXPECT_DOUBLE_EQ(r.high, 5);
    EXPECT_TRUE(std::isnan(robustRange({}).low));
    EXPECT_TRUE(std::isnan(robustRange({NAN, INFINITY}).high));
}

}  // namespace
}  // namespace nf::ui
