#include "engine/model/metric.h"

#include <gtest/gtest.h>

namespace nf::engine {
namespace {

TEST(Metric, RatioOfTotalsNotMeanOfRatios)
{
    const std::vector<std::string> q = {"ops", "tsc_ticks", "elapsed_ns"};
    const auto metrics = callLoopMetrics(q);
    ASSERT_EQ(metrics.size(), 3u);
    EXPECT_EQ(metrics[0].name, "tsc_per_op");
    const std::vector<double> a = {10, 100, 40};      // 10 ticks/op
    const std::vector<double> b = {1000, 2000, 800};  // 2 ticks/op
    // Mean of ratios would be 6; the ratio of totals is 2100 / 1010.
    EXPECT_DOUBLE_EQ(*metricValue(metrics[0], q, {&a, &b}), 2100.0 / 1010.0);
    EXPECT_DOUBLE_EQ(*metricValue(metrics[2], q, {&a}), 10 * 1e9 / 40);
}

TEST(Metric, CounterMetricsOnlyWhereCountersOpened)
{
    const auto without = callLoopMetrics({"ops", "tsc_ticks", "elapsed_ns", "task-clock"});
    for (const auto& m : without) {
        EXPECT_NE(m.name, "ipc");
    }
    const auto with = callLoopMetrics({"ops", "tsc_ticks", "elapsed_ns", "cycles", "instructions"});
    bool ipc = false;
    for (const auto& m : with) {
        ipc = ipc || m.name == "ipc";
    }
    EXPECT_TRUE(ipc);
}

TEST(Metric, UndefinedWhenDenominatorIsZeroOrMissing)
{
    const std::vector<std::string> q = {"ops", "tsc_ticks"};
    const MetricSpec m{"x", "", "tsc_ticks", "ops", 1, false, "", ""};
    const std::vector<double> zero = {0, 5};
    EXPECT_FALSE(metricValue(m, q, {&zero}).has_value());
    const MetricSpec missing{"y", "", "cycles", "ops", 1, false, "", ""};
    const std::vector<double> row = {1, 5};
    EXPECT_FALSE(metricValue(missing, q, {&row}).has_value());
    EXPECT_FALSE(metricValue(m, q, {}).has_value());
}

}  // namespace
}  // namespace nf::engine
