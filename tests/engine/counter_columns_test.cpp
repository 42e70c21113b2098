// How counters become sample quantities: one metric naming scheme for every workload and import
// (docs/measurement.md, "Metric names"), the counted share of each hardware counter per sample,
// and the warnings a run stores about multiplexed and user-only counting.

#include "engine/run/counter_columns.h"

#include <gtest/gtest.h>

#include <atomic>
#include <cmath>
#include <set>

#include "engine/model/metric.h"
#include "probes/tsc_clock.h"

namespace nf::engine {
namespace {

std::set<std::string> names(const std::vector<MetricSpec>& metrics)
{
    std::set<std::string> out;
    for (const auto& m : metrics) {
        out.insert(m.name);
    }
    return out;
}

TEST(MetricNames, OneSchemeForInProcessLiveAndImported)
{
    const std::vector<std::string> counters = {"cycles", "instructions", "branches", "branch-misses"};
    std::vector<std::string> inProcess = {quantity::kOps, quantity::kTscTicks, quantity::kElapsedNs};
    inProcess.insert(inProcess.end(), counters.begin(), counters.end());
    const auto callLoop = names(callLoopMetrics(inProcess));
    for (const char* n : {"ipc", "cycles_per_op", "branch_misses_per_op"}) {
        EXPECT_EQ(callLoop.count(n), 1U) << n;
    }

    std::vector<std::string> live = {quantity::kPackets, quantity::kElapsedNs};
    for (const auto& c : counters) {
        live.push_back(quantity::kThreadPrefix + c);
        live.push_back(quantity::kCpuPrefix + c);
        live.push_back(quantity::kCountedPrefix + std::string(quantity::kThreadPrefix) + c);
    }
    const auto liveNames = names(liveMetrics(live));
    for (const char* n : {"rx_ipc", "rx_cycles_per_packet", "rx_branch_misses_per_packet", "cpu_ipc",
                          "cpu_cycles_per_packet", "cpu_branch_misses_per_packet"}) {
        EXPECT_EQ(liveNames.count(n), 1U) << n;
    }
    for (const auto& n : liveNames) {
        EXPECT_EQ(n.find("counted"), std::string::npos) << n << ": the counted share is not a per-packet metric";
    }

    const auto imported = importedCounterMetrics(counters);
    ASSERT_EQ(imported.size(), 2U);
    EXPECT_EQ(imported[0].name, "ipc");
    EXPECT_EQ(imported[0].numerator, "instructions");
    EXPECT_EQ(imported[0].denominator, "cycles");
    EXPECT_TRUE(imported[0].higherIsBetter);
    EXPECT_EQ(imported[1].name, "branch_miss_ratio");
    EXPECT_EQ(imported[1].numerator, "branch-misses");
    EXPECT_EQ(imported[1].denominator, "branches");
    EXPECT_TRUE(importedCounterMetrics({"cycles", "branches"}).empty());  // neither pair complete
}

double tscHz()
{
    static const double hz = [] {
        auto tsc = probes::TscClock::calibrate(0.05);
        return tsc ? tsc->hz() : 0.0;
    }();
    return hz;
}

// A simulated PMU counting half of every 1 ms on the calling thread, with task-clock beside it.
SampledCounters halfCounted(std::atomic<std::uint64_t>& operations, probes::SimulatedPmu& pmu)
{
    PmuChoice choice;
    choice.simulated = true;
    choice.running = 0.5;
    pmu = *simulatedPmu(choice);
    pmu.tscHz = tscHz();
    pmu.operations = &operations;
    auto events = probes::resolveEvents("cycles,instructions,task-clock");
    EXPECT_TRUE(events.ok());
    auto group = probes::CounterGroup::open(*events, probes::CounterTarget::callingThread(), &pmu);
    EXPECT_TRUE(group.ok());
    return SampledCounters(std::move(*group));
}

void spinMs(double ms)
{
    const auto end = probes::readTsc() + static_cast<std::uint64_t>(ms * 1e-3 * tscHz());
    while (probes::readTsc() < end) {
    }
}

TEST(SampledCounters, QuantitiesAndTheCountedShareOfEachHardwareCounter)
{
    ASSERT_GT(tscHz(), 0);
    std::atomic<std::uint64_t> operations{0};
    probes::SimulatedPmu pmu;
    SampledCounters counters = halfCounted(operations, pmu);
    EXPECT_EQ(counterQuantities(counters.group(), "rx_"),
              (std::vector<std::string>{"rx_cycles", "rx_instructions", "rx_task-clock", "counted:rx_cycles",
                                        "counted:rx_instructions"}));

    RunLayout layout;
    layout.quantities = counterQuantities(counters.group(), "");
    RepetitionResult rep;
    rep.index = 0;
    ASSERT_TRUE(counters.read().ok());
    counters.advance();
    for (int s = 0; s < 4; ++s) {
        spinMs(10);
        operations.fetch_add(1000);
        ASSERT_TRUE(counters.read().ok());
        Sample sample;
        sample.values.assign(layout.quantities.size(), -1.0);
        counters.write(sample.values, 0);
        EXPECT_NEAR(sample.values[3], 0.5, 0.06);  // counted:cycles, ten 1 ms periods at half
        EXPECT_NEAR(sample.values[4], 0.5, 0.06);
        EXPECT_NEAR(counters.running(0) / counters.enabled(0), sample.values[3], 1e-12);
        // Scaled back, cycles are the interval's TSC ticks (the simulated rate is one per tick),
        // though they were counted half of it.
        EXPECT_GE(counters.enabled(0), 10e-3 * tscHz());
        EXPECT_NEAR(sample.values[0] / counters.enabled(0), 1.0, 1e-3);
        EXPECT_GT(sample.values[2], 0);  // task-clock: ns the thread ran (the machine is shared)
        rep.samples.push_back(sample);
        counters.advance();
    }

    std::set<std::string> warned;
    const auto warning = multiplexWarning(layout, rep, warned);
    ASSERT_TRUE(warning.has_value());
    EXPECT_NE(warning->find("counters multiplexed from repetition 1: cycles, instructions counted "), std::string::npos)
        << *warning;
    EXPECT_NE(warning->find("scaled by time enabled / time running"), std::string::npos);
    EXPECT_FALSE(multiplexWarning(layout, rep, warned).has_value());  // once per counter and run
}

TEST(SampledCounters, NoWarningWhenCountedThroughoutAndOneForSamplesNeverCounted)
{
    RunLayout layout;
    layout.quantities = {"cycles", "counted:cycles"};
    RepetitionResult rep;
    rep.index = 2;
    rep.samples.resize(3);
    for (auto& s : rep.samples) {
        s.values = {100.0, 1.0};
    }
    std::set<std::string> warned;
    EXPECT_FALSE(multiplexWarning(layout, rep, warned).has_value());
    rep.samples[1].values = {std::nan(""), 0.0};
    const auto warning = multiplexWarning(layout, rep, warned);
    ASSERT_TRUE(warning.has_value());
    EXPECT_NE(warning->find("from repetition 3: cycles counted 66.7%"), std::string::npos) << *warning;
    EXPECT_NE(warning->find("1 sample was not counted at all"), std::string::npos) << *warning;
}

TEST(SampledCounters, NoUserOnlyWarningWhenKernelModeIsCounted)
{
    auto events = probes::resolveEvents("task-clock");
    ASSERT_TRUE(events.ok());
    auto group = probes::CounterGroup::open(*events, probes::CounterTarget::callingThread());
    ASSERT_TRUE(group.ok());
    if (!group->userOnly().empty()) {
        GTEST_SKIP() << "this process may count user mode only";
    }
    EXPECT_FALSE(userOnlyWarning(*group, 2, "the worker thread").has_value());
}

}  // namespace
}  // namespace nf::engine
