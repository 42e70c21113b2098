// The one pinned-thread helper and the one repetition driver of every runner.

#include <gtest/gtest.h>

#include <sched.h>
#include <new>
#include <stdexcept>

#include <atomic>
#include <thread>

#include "engine/run/failure_sink.h"
#include "engine/run/pinned_thread.h"
#include "engine/run/repetition_driver.h"

namespace nf::engine {
namespace {

int currentCpuSetSize()
{
    cpu_set_t set;
    CPU_ZERO(&set);
    return sched_getaffinity(0, sizeof set, &set) == 0 ? CPU_COUNT(&set) : -1;
}

TEST(PinnedThread, PinsBeforeTheBodyRuns)
{
    std::atomic<int> seen{-1};
    auto t = PinnedThread::start("test thread", 0, [&](const std::stop_token&) {
        seen = sched_getcpu() == 0 && currentCpuSetSize() == 1 ? 1 : 0;
    });
    t.join();
    EXPECT_TRUE(t.pinned());
    EXPECT_EQ(t.warning(), "");
    EXPECT_EQ(seen.load(), 1);
}

TEST(PinnedThread, AThreadThatCannotBePinnedRunsAndSaysSo)
{
    std::atomic<bool> ran{false};
    auto t = PinnedThread::start("receiver thread", 4000, [&](const std::stop_token&) { ran = true; });
    t.join();
    EXPECT_TRUE(ran.load());
    EXPECT_FALSE(t.pinned());
    EXPECT_EQ(t.warning().rfind("receiver thread: cannot pin to CPU 4000", 0), 0u) << t.warning();
    EXPECT_NE(t.warning().find("it ran unpinned"), std::string::npos);
}

TEST(PinnedThread, StopReachesTheBody)
{
    auto t = PinnedThread::start("loop", -1, [](const std::stop_token& stop) {
        while (!stop.stop_requested()) {
            sched_yield();
        }
    });
    t.requestStop();
    t.join();
    EXPECT_TRUE(t.pinned());
}

ExperimentSpec spec(int reps, Order order)
{
    ExperimentSpec s;
    s.repetitions = reps;
    s.order = order;
    return s;
}

TEST(RepetitionDriver, HandsOnEveryUnitInPlanOrder)
{
    std::mt19937_64 rng(1);
    FailureSink failures;
    std::vector<std::vector<int>> orders;
    const auto outcome = driveRepetitions(
        spec(3, Order::Interleaved), 2, rng, {}, failures,
        [](const ScheduleUnit& unit, RepetitionResult& rep) -> Result<UnitEnd> {
            for (int v : unit.variants) {
                rep.samples.push_back(
                    {.variant = v, .repetition = unit.repetition, .start = unit.repetition * 1.0, .duration = 0.5});
            }
            return UnitEnd::Done;
        },
        [&](RepetitionResult&& rep) {
            orders.push_back(rep.variants);
            EXPECT_EQ(rep.start, rep.index * 1.0);
            EXPECT_EQ(rep.end, rep.index * 1.0 + 0.5);
            return true;
        });
    EXPECT_EQ(outcome.status, RunStatus::Complete);
    EXPECT_EQ(outcome.kept, 3);
    EXPECT_EQ(orders, (std::vector<std::vector<int>>{{0, 1}, {1, 0}, {0, 1}}));
}

TEST(RepetitionDriver, AStopInsideAUnitDiscardsItWithTheOneLine)
{
    std::mt19937_64 rng(1);
    FailureSink failures;
    int units = 0;
    const auto outcome = driveRepetitions(
        spec(10, Order::Interleaved), 2, rng, {}, failures,
        [&](const ScheduleUnit&, RepetitionResult&) -> Result<UnitEnd> {
            return ++units == 3 ? UnitEnd::Stopped : UnitEnd::Done;
        },
        [](RepetitionResult&&) { return true; });
    EXPECT_EQ(outcome.status, RunStatus::Aborted);
    EXPECT_EQ(outcome.reason, "stopped during repetition 3 of 10 (discarded; 2 kept)");
    EXPECT_EQ(outcome.kept, 2);
}

TEST(RepetitionDriver, AStopBeforeAUnitAndAFailureAndARefusal)
{
    std::mt19937_64 rng(1);
    FailureSink failures;
    std::stop_source stop;
    stop.request_stop();
    const auto measureNothing = [](const ScheduleUnit&, RepetitionResult&) -> Result<UnitEnd> { return UnitEnd::Done; };
    auto stopped = driveRepetitions(spec(4, Order::Blocked), 2, rng, stop.get_token(), failures, measureNothing,
                                    [](RepetitionResult&&) { return true; });
    EXPECT_EQ(stopped.reason, "stopped during repetition 1 of 8 (discarded; 0 kept)");
    auto failed = driveRepetitions(
        spec(4, Order::Random), 2, rng, {}, failures,
        [](const ScheduleUnit&, RepetitionResult&) -> Result<UnitEnd> { return Error{"variant b: no socket"}; },
        [](RepetitionResult&&) { return true; });
    EXPECT_EQ(failed.status, RunStatus::Failed);
    EXPECT_EQ(failed.reason, "variant b: no socket");
    auto refused = driveRepetitions(spec(4, Order::Random), 2, rng, {}, failures, measureNothing,
                                    [](RepetitionResult&&) { return false; });
    EXPECT_EQ(refused.status, RunStatus::Failed);
    EXPECT_EQ(refused.kept, 0);
}

// An exception out of a measuring function or a helper thread is one line and a failed run, never
// std::terminate (and the repetition in flight is not kept).
TEST(RepetitionDriver, AnExceptionFailsTheRunWithOneLine)
{
    std::mt19937_64 rng(1);
    FailureSink failures;
    const FailureSink::Scope run(&failures);  // as the measuring thread of a run
    int kept = 0;
    auto thrown = driveRepetitions(
        spec(4, Order::Blocked), 2, rng, {}, failures,
        [](const ScheduleUnit& unit, RepetitionResult&) -> Result<UnitEnd> {
            if (unit.repetition == 1) {
                throw std::bad_alloc();
            }
            return UnitEnd::Done;
        },
        [&](RepetitionResult&&) { return ++kept > 0; });
    EXPECT_EQ(thrown.status, RunStatus::Failed);
    EXPECT_NE(thrown.reason.find("internal error in repetition"), std::string::npos) << thrown.reason;
    EXPECT_NE(thrown.reason.find("std::bad_alloc"), std::string::npos) << thrown.reason;
    EXPECT_EQ(thrown.kept, kept);

    auto failed = driveRepetitions(
        spec(4, Order::Blocked), 2, rng, {}, failures,
        [](const ScheduleUnit&, RepetitionResult&) -> Result<UnitEnd> {
            static_cast<void>(PinnedThread::start("test thread", -1, [](const std::stop_token&) {
                throw std::runtime_error("boom");
            }));  // destroyed, so joined, before the driver looks
            return UnitEnd::Done;
        },
        [](RepetitionResult&&) { return true; });
    EXPECT_EQ(failed.status, RunStatus::Failed);
    EXPECT_EQ(failed.reason, "test thread: internal error: boom in repetition 1 (discarded; 0 kept)");
    EXPECT_FALSE(failures.take()) << "taken by the driver";
}

// A helper thread reports to the sink of the run whose thread started it, and so do the threads it
// starts; runs at the same time on other threads, and threads outside any run, see none of it.
TEST(FailureSink, EachRunSeesOnlyTheFailuresOfItsOwnThreads)
{
    FailureSink first;
    FailureSink second;
    std::atomic<bool> firstFailed{false};
    std::thread a([&] {
        const FailureSink::Scope run(&first);
        auto receiver = PinnedThread::start("receiver thread", -1, [](const std::stop_token&) {
            auto inner = PinnedThread::start("generator thread", -1,
                                             [](const std::stop_token&) { throw std::runtime_error("no socket"); });
            inner.join();
            throw std::logic_error("second, so not kept");
        });
        receiver.join();
        firstFailed = true;
    });
    std::thread b([&] {
        const FailureSink::Scope run(&second);
        while (!firstFailed) {  // the other run's failure is there before this one looks
            sched_yield();
        }
        auto helper = PinnedThread::start("pop thread", -1, [](const std::stop_token&) {});
        helper.join();
    });
    a.join();
    b.join();
    EXPECT_EQ(first.take(), "generator thread: internal error: no socket");
    EXPECT_FALSE(first.take()) << "taken once";
    EXPECT_FALSE(second.take());
    EXPECT_EQ(FailureSink::current(), nullptr) << "the scopes ended with their threads";

    auto outside = PinnedThread::start("test thread", -1, [](const std::stop_token&) { throw 7; });
    outside.join();
    EXPECT_EQ(outside.takeFailure(), "test thread: internal error");
}

TEST(UnitPlan, PlansLazily)
{
    std::mt19937_64 rng(1);
    UnitPlan plan(2, 100000, Order::Interleaved, rng);  // a plan of 100,000 units holds none of them
    EXPECT_EQ(plan.total(), 100000u);
    auto first = plan.next();
    ASSERT_TRUE(first.has_value());
    EXPECT_EQ(plan.issued(), 1u);
    ScheduleUnit unit{0, {0, 1}};
    SlicePlan slices(unit, 43200000, 0, Order::Interleaved, rng);  // a day of 2 ms chunks
    EXPECT_EQ(slices.next()->variant, 0);
    EXPECT_EQ(slices.next()->variant, 1);
    EXPECT_EQ(slices.next()->variant, 1);
}

}  // namespace
}  // namespace nf::engine

// A warning a workload gives after it started (a helper thread it could not pin) reaches the
// observer, which stores it with the run, once per variant, for in-process and live workloads
// alike. The implementations here stand in for spin and udp-rx so that nothing else runs.
#include "engine/run/run_collector.h"
#include "engine/run/scheduler.h"

namespace nf::engine {
namespace {

class UnpinnedLoop final : public CallLoop {
public:
    UnpinnedLoop() : m_helper(PinnedThread::start("helper thread", 4000, [](const std::stop_token&) {})) {}
    void run(std::uint64_t calls) override
    {
        for (std::uint64_t i = 0; i < calls; ++i) {
            asm volatile("" ::: "memory");
        }
    }
    std::vector<std::string> warnings() const override { return nonEmpty({m_helper.warning()}); }

private:
    PinnedThread m_helper;
};

class UnpinnedSession final : public LiveSession {
public:
    std::vector<std::string> quantities() const override { return {"packets", "bytes", "drops", "offered_packets"}; }
    Result<void> start() override
    {
        m_thread = PinnedThread::start("receiver thread", 4000, [](const std::stop_token&) {});
        return {};
    }
    Result<std::vector<double>> sample() override { return std::vector<double>{++m_n, m_n * 64, 0, m_n}; }
    void stop() override { m_thread.join(); }
    std::vector<std::string> warnings() const override { return nonEmpty({m_thread.warning()}); }

private:
    PinnedThread m_thread;
    double m_n = 0;
};

TEST(RunWarnings, AnUnpinnedThreadIsAWarningOfTheRunOncePerVariant)
{
    const WorkloadImplementations fakes = {
        {.name = "spin",
         .make = [](const ParamSet&, std::size_t) -> Result<std::unique_ptr<CallLoop>> {
             return std::unique_ptr<CallLoop>(std::make_unique<UnpinnedLoop>());
         }},
        {.name = "udp-rx",
         .makeLive = [](const ParamSet&) -> Result<std::unique_ptr<LiveSession>> {
             return std::unique_ptr<LiveSession>(std::make_unique<UnpinnedSession>());
         }},
    };
    for (const char* workload : {"spin", "udp-rx"}) {
        ExperimentSpec spec;
        spec.workload = workload;
        spec.variants = {{"a", {}}, {"b", {}}};
        spec.repetitions = 2;
        spec.duration = 0.02;
        spec.warmup = 0.01;
        spec.interval = 0.01;
        if (std::string(workload) == "udp-rx") {
            spec.chunk = 0;  // its variants side by side would be chunked; this test is about pinning
        }
        auto p = prepareExperiment(spec, base::readSystemFacts(), fakes);
        ASSERT_TRUE(p.ok()) << p.error().message;
        RunCollector collector;
        const auto outcome = runExperiment(*p, collector, {});
        ASSERT_EQ(outcome.status, RunStatus::Complete) << workload << ": " << outcome.reason;
        ASSERT_EQ(collector.warnings().size(), 2u) << workload;
        EXPECT_EQ(collector.warnings()[0].rfind("variant a: ", 0), 0u) << collector.warnings()[0];
        EXPECT_NE(collector.warnings()[1].find("cannot pin to CPU 4000"), std::string::npos);
    }
}

}  // namespace
}  // namespace nf::engine

// An exception that escapes a helper thread of a workload fails the run the thread works for, and
// no other: a run measuring at the same time, and one after it in the same process, complete.
namespace nf::engine {
namespace {

class FailingLoop final : public CallLoop {
public:
    FailingLoop()
        : m_helper(PinnedThread::start("helper thread", -1,
                                       [](const std::stop_token&) { throw std::runtime_error("boom"); }))
    {
        m_helper.join();  // it failed before the first repetition
    }
    void run(std::uint64_t calls) override
    {
        for (std::uint64_t i = 0; i < calls; ++i) {
            asm volatile("" ::: "memory");
        }
    }

private:
    PinnedThread m_helper;
};

class QuietLoop final : public CallLoop {
public:
    void run(std::uint64_t calls) override
    {
        for (std::uint64_t i = 0; i < calls; ++i) {
            asm volatile("" ::: "memory");
        }
    }
};

template <class Loop>
WorkloadImplementations spinMadeOf()
{
    return {{.name = "spin", .make = [](const ParamSet&, std::size_t) -> Result<std::unique_ptr<CallLoop>> {
                 return std::unique_ptr<CallLoop>(std::make_unique<Loop>());
             }}};
}

RunOutcome runSpin(const WorkloadImplementations& implementations)
{
    ExperimentSpec spec;
    spec.workload = "spin";
    spec.variants = {{"a", {}}, {"b", {}}};
    spec.repetitions = 3;
    spec.duration = 0.02;
    spec.warmup = 0.01;
    spec.shareCpus = true;  // both runs measure on the first CPU
    auto p = prepareExperiment(spec, base::readSystemFacts(), implementations);
    if (!p) {
        return {RunStatus::Failed, p.error().message, 0};
    }
    RunCollector collector;
    return runExperiment(*p, collector, {});
}

TEST(RunFailures, AHelperThreadThatThrowsFailsItsOwnRunOnly)
{
    const auto failing = spinMadeOf<FailingLoop>();
    const auto quiet = spinMadeOf<QuietLoop>();
    RunOutcome failed;
    std::thread other([&] { failed = runSpin(failing); });
    const auto alongside = runSpin(quiet);
    other.join();
    EXPECT_EQ(failed.status, RunStatus::Failed);
    EXPECT_EQ(failed.reason, "helper thread: internal error: boom in repetition 1 (discarded; 0 kept)");
    EXPECT_EQ(alongside.status, RunStatus::Complete) << alongside.reason;
    const auto after = runSpin(quiet);
    EXPECT_EQ(after.status, RunStatus::Complete) << after.reason;
    EXPECT_EQ(after.repetitionsDone, 3);
}

}  // namespace
}  // namespace nf::engine
