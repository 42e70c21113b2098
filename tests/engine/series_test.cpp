// Series mode on synthetic data with known change steps.

#include <gtest/gtest.h>

#include <random>

#include "engine/analysis/series.h"

namespace nf::engine {
namespace {

std::vector<SeriesStep> synthetic(const std::vector<double>& means, int n, double sd, std::uint64_t seed)
{
    std::mt19937_64 rng(seed);
    std::normal_distribution<double> noise(0.0, sd);
    std::vector<SeriesStep> steps;
    for (std::size_t k = 0; k < means.size(); ++k) {
        SeriesStep s{"step" + std::to_string(k + 1), {}};
        for (int i = 0; i < n; ++i) {
            s.values.push_back(means[k] + noise(rng));
        }
        steps.push_back(std::move(s));
    }
    return steps;
}

TEST(Series, FindsTheOneStepWhereTheMetricMoves)
{
    const auto steps = synthetic({100, 100, 100, 103, 103, 103}, 8, 1.0, 42);
    auto r = analyzeSeries(steps, {});
    ASSERT_TRUE(r.ok()) << r.error().message;
    ASSERT_EQ(r->changes.size(), 1u);
    EXPECT_EQ(r->changes[0].step, 3u);  // step4 is the first after the change
    EXPECT_LT(r->changes[0].pAdjusted, 0.01);
    EXPECT_NEAR(r->changes[0].effect.interval.estimatePct, 3.0, 0.6);
    EXPECT_LT(r->changes[0].effect.interval.ci.low, r->changes[0].effect.interval.estimatePct);
    EXPECT_NEAR(r->steps[3].deltaPrevPct, 3.0, 1.5);  // 3 standard errors of a difference of two means of 8
    EXPECT_LT(r->steps[3].pPrev, 0.05);
    EXPECT_GT(r->steps[1].pPrev, 0.05);
    EXPECT_TRUE(std::isnan(r->steps[0].deltaPrevPct));
}

TEST(Series, FindsTwoChangesByBinarySegmentation)
{
    const auto steps = synthetic({100, 100, 104, 104, 104, 98, 98}, 6, 1.0, 7);
    auto r = analyzeSeries(steps, {});
    ASSERT_TRUE(r.ok());
    ASSERT_EQ(r->changes.size(), 2u);
    EXPECT_EQ(r->changes[0].step, 2u);
    EXPECT_EQ(r->changes[1].step, 5u);
    EXPECT_GT(r->changes[0].effect.interval.estimatePct, 0);
    EXPECT_LT(r->changes[1].effect.interval.estimatePct, 0);
}

TEST(Series, NoChangeInAFlatSeries)
{
    const auto steps = synthetic({100, 100, 100, 100, 100}, 8, 1.0, 3);
    auto r = analyzeSeries(steps, {});
    ASSERT_TRUE(r.ok());
    EXPECT_TRUE(r->changes.empty());
    ASSERT_EQ(r->tested.size(), 1u);
    EXPECT_GT(r->tested[0].p, 0.05);
}

// The permutation p accounts for picking the best split: on flat series it rejects about alpha of
// the time (a plain Welch test of the best split would reject far more often). A rejection at the
// first or last step is said as that step differing, not as a change: both count here.
TEST(Series, FalseAlarmRateIsAboutAlphaOnFlatSeries)
{
    int alarms = 0;
    const int trials = 200;
    for (int i = 0; i < trials; ++i) {
        const auto steps = synthetic({10, 10, 10, 10, 10, 10}, 5, 1.0, 1000 + static_cast<std::uint64_t>(i));
        SeriesOptions o;
        o.permutations = 499;
        o.seed = static_cast<std::uint64_t>(i) + 1;
        auto r = analyzeSeries(steps, o);
        ASSERT_TRUE(r.ok());
        alarms += r->changes.empty() && r->apart.empty() ? 0 : 1;  // a change, or a step said to differ
    }
    EXPECT_GE(alarms, 2);
    EXPECT_LE(alarms, 22);  // 5% of 200 is 10; 22 is far in the tail of Binomial(200, 0.05)
}

TEST(Series, BestSplitAndBadInput)
{
    const auto best = bestSplit({1, 1.1, 0.9, 5, 5.1, 4.9}, {3, 3});
    EXPECT_EQ(best.step, 1u);
    EXPECT_GT(best.statistic, 10);
    EXPECT_FALSE(analyzeSeries({{"only", {1, 2}}}, {}).ok());
    EXPECT_FALSE(analyzeSeries({{"a", {1, 2}}, {"b", {}}}, {}).ok());
    auto one = analyzeSeries({{"a", {1}}, {"b", {2, 2.1}}}, {});
    ASSERT_TRUE(one.ok());
    EXPECT_EQ(one->warnings.size(), 1u);
}

}  // namespace
}  // namespace nf::engine
