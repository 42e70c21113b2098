// Scaling multiplexed counts as perf does, the simulated PMU's rates, its multiplexing and its
// failing read, and reads that allocate nothing.

#include <gtest/gtest.h>

#include <atomic>
#include <chrono>
#include <cmath>
#include <cstdlib>
#include <new>

#include "probes/counter_group.h"
#include "probes/simulated_pmu.h"
#include "probes/tsc_clock.h"

namespace {
// Allocations made by this thread while counting is on (the replaced operator new below).
thread_local bool t_counting = false;
thread_local long t_allocations = 0;
}  // namespace

// Out of line, so that no caller sees malloc and free behind new and delete (-Wmismatched-new-delete).
__attribute__((noinline)) void* operator new(std::size_t size)
{
    if (t_counting) {
        ++t_allocations;
    }
    if (void* p = std::malloc(size == 0 ? 1 : size)) {
        return p;
    }
    throw std::bad_alloc();
}

// The nothrow form too (std::stable_sort's temporary buffer): left to the sanitizer's runtime, its
// memory would come back through the free() below, an alloc-dealloc mismatch.
__attribute__((noinline)) void* operator new(std::size_t size, const std::nothrow_t& /*tag*/) noexcept
{
    if (t_counting) {
        ++t_allocations;
    }
    return std::malloc(size == 0 ? 1 : size);
}

__attribute__((noinline)) void operator delete(void* p) noexcept
{
    std::free(p);
}

__attribute__((noinline)) void operator delete(void* p, const std::nothrow_t& /*tag*/) noexcept
{
    std::free(p);
}

__attribute__((noinline)) void operator delete(void* p, std::size_t /*size*/) noexcept
{
    std::free(p);
}

namespace nf::probes {
namespace {

constexpr std::uint64_t kMs = 1'000'000;  // ns

// The worked example: 1 ms counted in full at 1 event/us, then 1 ms of which the counter
// ran half (0.5 ms) at 2 events/us. Over the second millisecond there were 2000 events.
TEST(Scaling, WorkedExampleGives2000)
{
    const std::uint64_t count0 = 1000;  // after the first ms
    const std::uint64_t enabled0 = 1 * kMs;
    const std::uint64_t running0 = 1 * kMs;
    const std::uint64_t count1 = count0 + 1000;  // 0.5 ms at 2 events/us
    const std::uint64_t enabled1 = 2 * kMs;
    const std::uint64_t running1 = running0 + kMs / 2;
    const ScaledCount c = scaleDelta(count0, enabled0, running0, count1, enabled1, running1);
    EXPECT_DOUBLE_EQ(c.value, 2000.0);
    EXPECT_DOUBLE_EQ(c.counted, 0.5);
    // What scaling each cumulative count and subtracting gives instead (the bias this replaces).
    const double scaledThenSubtracted = 2000.0 * 2.0 / 1.5 - 1000.0 * 1.0 / 1.0;
    EXPECT_NEAR(scaledThenSubtracted, 1666.67, 0.01);
    EXPECT_GT(std::fabs(c.value - scaledThenSubtracted), 300.0);
}

TEST(Scaling, EdgeCases)
{
    const ScaledCount full = scaleDelta(10, 100, 100, 60, 300, 300);
    EXPECT_DOUBLE_EQ(full.value, 50.0);
    EXPECT_DOUBLE_EQ(full.counted, 1.0);
    const ScaledCount noTime = scaleDelta(10, 100, 100, 10, 100, 100);
    EXPECT_DOUBLE_EQ(noTime.value, 0.0);
    EXPECT_DOUBLE_EQ(noTime.counted, 1.0);
    const ScaledCount neverRan = scaleDelta(10, 100, 50, 10, 200, 50);  // enabled, not scheduled
    EXPECT_TRUE(std::isnan(neverRan.value));
    EXPECT_DOUBLE_EQ(neverRan.counted, 0.0);
    const ScaledCount quarter = scaleDelta(0, 0, 0, 250, 4000, 1000);
    EXPECT_DOUBLE_EQ(quarter.value, 1000.0);
    EXPECT_DOUBLE_EQ(quarter.counted, 0.25);
}

TEST(Scaling, PerCounterDeltasOfTwoReadings)
{
    // Counter 0 never multiplexed; counter 1 ran 1/4 of the interval.
    const CounterReading a{{100, 40}, {1000, 1000}, {1000, 600}, {}};
    const CounterReading b{{300, 90}, {2000, 2000}, {2000, 850}, {}};
    std::vector<ScaledCount> out;
    scaledDeltas(a, b, out);
    ASSERT_EQ(out.size(), 2U);
    EXPECT_DOUBLE_EQ(out[0].value, 200.0);
    EXPECT_DOUBLE_EQ(out[0].counted, 1.0);
    EXPECT_DOUBLE_EQ(out[1].value, 200.0);
    EXPECT_DOUBLE_EQ(out[1].counted, 0.25);
}

std::vector<EventSpec> specs(const char* list)
{
    auto resolved = resolveEvents(list);
    EXPECT_TRUE(resolved.ok()) << resolved.error().message;
    return resolved.ok() ? *resolved : std::vector<EventSpec>{};
}

double hz()
{
    static const double value = [] {
        auto tsc = TscClock::calibrate(0.05);
        return tsc ? tsc->hz() : 0.0;
    }();
    return value;
}

void spinTicks(double ticks)
{
    const std::uint64_t end = readTsc() + static_cast<std::uint64_t>(ticks);
    while (readTsc() < end) {
    }
}

struct Interval {
    std::vector<ScaledCount> scaled;
    double enabledTicks = 0;
};

// Opens `list` on the calling thread with `pmu`, reads, does `ops` operations over `ms`, reads.
Interval measure(const char* list, SimulatedPmu pmu, std::uint64_t ops, double ms)
{
    std::atomic<std::uint64_t> operations{0};
    pmu.operations = &operations;
    pmu.tscHz = hz();
    auto group = CounterGroup::open(specs(list), CounterTarget::callingThread(), &pmu);
    EXPECT_TRUE(group.ok());
    CounterReading before = group->reading();
    CounterReading after = group->reading();
    EXPECT_TRUE(group->read(before).ok());
    spinTicks(ms * 1e-3 * hz());
    operations.fetch_add(ops);
    EXPECT_TRUE(group->read(after).ok());
    Interval out;
    scaledDeltas(before, after, out.scaled);
    out.enabledTicks = static_cast<double>(after.enabled[0] - before.enabled[0]);
    return out;
}

TEST(SimulatedPmu, CountsAtTheDocumentedRates)
{
    ASSERT_GT(hz(), 0);
    const Interval i = measure("cycles,instructions,branches,branch-misses,cache-misses", {}, 100000, 5);
    ASSERT_EQ(i.scaled.size(), 5U);
    const auto rates = simulatedRates();
    ASSERT_EQ(rates.size(), 5U);
    EXPECT_GT(i.enabledTicks, 5e-3 * hz() * 0.99);
    for (std::size_t k = 0; k < 5; ++k) {
        const double expected = rates[k].perTick * i.enabledTicks + rates[k].perOperation * 100000;
        EXPECT_NEAR(i.scaled[k].value, expected, 2.0) << rates[k].event;
        EXPECT_DOUBLE_EQ(i.scaled[k].counted, 1.0) << rates[k].event;
    }
    EXPECT_EQ(rates[0].event, "cycles");
    EXPECT_DOUBLE_EQ(rates[0].perTick, 1.0);  // cycles are TSC ticks
}

// Running half of every 1 ms period, a 20 ms interval is counted half the time, and scaling gives
// back the counts of the whole interval.
TEST(SimulatedPmu, MultiplexesInAKnownPatternAndScalingRecoversTheCounts)
{
    SimulatedPmu pmu;
    pmu.running = 0.5;
    pmu.periodMs = 1.0;
    const Interval i = measure("cycles,instructions,task-clock", pmu, 50000, 20);
    ASSERT_EQ(i.scaled.size(), 3U);
    EXPECT_NEAR(i.scaled[0].counted, 0.5, 0.05);  // within one period of 20
    EXPECT_NEAR(i.scaled[1].counted, 0.5, 0.05);
    EXPECT_DOUBLE_EQ(i.scaled[2].counted, 1.0);  // task-clock is the kernel's, never multiplexed
    EXPECT_NEAR(i.scaled[0].value, i.enabledTicks, i.enabledTicks * 1e-6 + 4);
    EXPECT_NEAR(i.scaled[1].value, 1.2 * i.enabledTicks + 8.0 * 50000, i.enabledTicks * 1e-6 + 8);
}

TEST(SimulatedPmu, RunningTicksFollowThePattern)
{
    SimulatedPmu pmu;
    pmu.running = 0.25;
    pmu.periodMs = 1.0;
    pmu.tscHz = 1e6;  // 1000 ticks per period, 250 counted at its start
    const SimulatedCounters c(pmu);
    EXPECT_DOUBLE_EQ(c.runningTicks(0), 0);
    EXPECT_DOUBLE_EQ(c.runningTicks(100), 100);
    EXPECT_DOUBLE_EQ(c.runningTicks(250), 250);
    EXPECT_DOUBLE_EQ(c.runningTicks(900), 250);
    EXPECT_DOUBLE_EQ(c.runningTicks(1100), 350);
    EXPECT_DOUBLE_EQ(c.runningTicks(4000), 1000);
}

TEST(SimulatedPmu, FailsTheReadItIsToldTo)
{
    SimulatedPmu pmu;
    pmu.failRead = 3;
    pmu.tscHz = hz();
    auto group = CounterGroup::open(specs("cycles,task-clock"), CounterTarget::callingThread(), &pmu);
    ASSERT_TRUE(group.ok());
    CounterReading r = group->reading();
    EXPECT_TRUE(group->read(r).ok());
    EXPECT_TRUE(group->read(r).ok());
    const Result<void> third = group->read(r);
    ASSERT_FALSE(third.ok());
    EXPECT_EQ(third.error().errnum, EIO);
    EXPECT_NE(third.error().message.find("simulated"), std::string::npos) << third.error().message;
    EXPECT_TRUE(group->read(r).ok());
}

TEST(SimulatedPmu, OnlyItsFiveEventsAndTheKernelsSoftwareEvents)
{
    SimulatedPmu pmu;
    pmu.tscHz = hz();
    auto group =
        CounterGroup::open(specs("ref-cycles,cycles,task-clock,branch-misses"), CounterTarget::callingThread(), &pmu);
    ASSERT_TRUE(group.ok());
    EXPECT_TRUE(group->simulated());
    EXPECT_EQ(group->names(), (std::vector<std::string>{"cycles", "task-clock", "branch-misses"}));
    EXPECT_EQ(group->hardware(), (std::vector<bool>{true, false, true}));
    ASSERT_EQ(group->unsupported().size(), 1U);
    EXPECT_EQ(group->unsupported()[0].name, "ref-cycles");
    EXPECT_NE(group->unsupported()[0].reason.find("not simulated"), std::string::npos);
    // Without a SimulatedPmu the same names come from the kernel (none on a machine without a PMU).
    auto real = CounterGroup::open(specs("cycles,task-clock"), CounterTarget::callingThread());
    ASSERT_TRUE(real.ok());
    EXPECT_FALSE(real->simulated());
}

TEST(SimulatedPmu, ACpuSeesItsShareOfTheOperations)
{
    std::atomic<std::uint64_t> operations{0};
    SimulatedPmu pmu;
    pmu.tscHz = hz();
    pmu.operations = &operations;
    pmu.operationsShare = 0.5;
    auto group = CounterGroup::open(specs("instructions"), CounterTarget::onCpu(0), &pmu);
    ASSERT_TRUE(group.ok());
    CounterReading a = group->reading();
    CounterReading b = group->reading();
    ASSERT_TRUE(group->read(a).ok());
    operations.fetch_add(1000000);
    ASSERT_TRUE(group->read(b).ok());
    std::vector<ScaledCount> d;
    scaledDeltas(a, b, d);
    ASSERT_EQ(d.size(), 1U);
    const double ticks = static_cast<double>(b.enabled[0] - a.enabled[0]);
    EXPECT_NEAR(d[0].value, 1.2 * ticks + 8.0 * 500000, 2.0);
}

TEST(CounterGroup, ReadsIntoTheCallersBufferWithoutAllocating)
{
    SimulatedPmu pmu;
    pmu.tscHz = hz();
    auto group = CounterGroup::open(specs("cycles,instructions,task-clock,context-switches,page-faults"),
                                    CounterTarget::callingThread(), &pmu);
    ASSERT_TRUE(group.ok());
    CounterReading r = group->reading();
    std::vector<ScaledCount> d;
    CounterReading before = group->reading();
    ASSERT_TRUE(group->read(before).ok());
    scaledDeltas(before, r, d);  // sizes `d` once
    t_allocations = 0;
    t_counting = true;
    bool ok = true;
    for (int i = 0; i < 100; ++i) {
        ok = ok && group->read(r).ok();
        scaledDeltas(before, r, d);
    }
    const long byReads = t_allocations;
    std::vector<int>* volatile probe = new std::vector<int>(1);  // the counting itself works: two allocations
    delete probe;
    t_counting = false;
    EXPECT_TRUE(ok);
    EXPECT_EQ(byReads, 0);
    EXPECT_EQ(t_allocations, 2);
    CounterReading wrong;
    EXPECT_FALSE(group->read(wrong).ok());  // a reading made for another group is refused
}

}  // namespace
}  // namespace nf::probes
