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

// A metric's title is part of its MetricSpec; metricTitle finds it by name for metrics read back
// from a store, which keeps no titles.
TEST(Metric, TitlesLiveInTheSpecAndAreFoundByName)
{
    const std::vector<std::pair<std::string, std::string>> titles = {
        {"pps", "PPS"},
        {"ops_per_sec", "PPS"},
        {"ipc", "IPC"},
        {"rx_ipc", "IPC, receiver thread"},
        {"cpu_ipc", "IPC, counted CPUs"},
        {"branch_misses_per_op", "branch misses per op"},
        {"rx_branch_misses_per_packet", "branch misses per packet, receiver thread"},
        {"cpu_branch_misses_per_packet", "branch misses per packet, counted CPUs"},
        {"branch_miss_ratio", "branch misses per branch"},
        {"cycles_per_op", "cycles per op"},
        {"rx_cycles_per_packet", "cycles per packet, receiver thread"},
        {"cpu_cycles_per_packet", "cycles per packet, counted CPUs"},
        {"tsc_per_op", "TSC ticks per op"},
    };
    for (const auto& [name, title] : titles) {
        EXPECT_EQ(metricTitle(name), title) << name;
    }
    EXPECT_EQ(metricTitle("ns_per_op"), "");
    EXPECT_EQ(metricTitle("rx_task_clock_per_packet"), "");
    EXPECT_EQ(metricTitle("no such metric"), "");
    const auto live = liveMetrics({quantity::kPackets, quantity::kElapsedNs, "rx_cycles", "rx_instructions"});
    for (const auto& m : live) {
        EXPECT_EQ(m.title, metricTitle(m.name)) << m.name;
    }
}

}  // namespace
}  // namespace nf::engine
