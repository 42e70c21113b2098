#pragma once
// What every runner of one run shares, set up once by runExperiment before any of them starts:
// the calibrated TSC, the run's counters (the resolved events and, with --pmu simulated, the
// simulated PMU with the operation count it counts by), the CPU policy, the harness's threads
// (whose CPU time a live run counts), whether anything watches the run, and the sink the run's
// helper threads report their failures to. The call-loop, live and command runners take it
// instead of each repeating that set-up.

#include <sys/types.h>

#include <atomic>
#include <cstdint>
#include <memory>
#include <mutex>
#include <optional>
#include <string>
#include <vector>

#include "base/result.h"
#include "engine/run/failure_sink.h"
#include "probes/counter_group.h"
#include "probes/simulated_pmu.h"
#include "probes/tsc_clock.h"

namespace nf::engine {

struct PreparedExperiment;

// Where a run's threads belong.
struct CpuPolicy {
    std::vector<int> measured;      // the CPUs the run measures on, the ones it locks (cpu_claim.h)
    int worker = 0;                 // the measuring thread's CPU (a command's, for the command workload)
    std::vector<int> housekeeping;  // the allowed CPUs not measured: for the harness's own threads
};

// The measured CPUs of `prepared` (measuredCpus) and the CPUs for the harness: --housekeeping's,
// else the rest of the CPUs it may use but those a live run counts (counter_cpus).
CpuPolicy cpuPolicy(const PreparedExperiment& prepared);

// Where the harness's threads run, for the plan and the run's environment: "on CPU 2-3", "on the
// measured CPUs 0-1 (no other CPU allowed)", or, when the move to the housekeeping CPUs failed
// (`moved` false), "where the system put it (the move to CPU 2-3 failed)".
std::string describeHarness(const CpuPolicy& policy, bool moved = true);

// Opens counter groups with the run's events on the backend the run asked for: perf, or the
// simulated PMU, which counts by the operations the runner reports here (calls made, packets
// received). Any thread may open and report.
class RunCounters {
public:
    // `tscHz`: the TSC's rate, which the simulated PMU counts time by. `mode`: whether hardware
    // events count the kernel too (--counters-mode); software events always do.
    RunCounters(std::vector<probes::EventSpec> events, std::optional<probes::SimulatedPmu> simulated, double tscHz,
                probes::CounterMode mode = probes::CounterMode::UserAndKernel);
    RunCounters(const RunCounters&) = delete;
    RunCounters& operator=(const RunCounters&) = delete;

    // A group on `target`. `operationsShare`: the share of the operations the target sees (one of
    // n counted CPUs: 1/n); only the simulated PMU uses it.
    Result<probes::CounterGroup> open(const probes::CounterTarget& target, double operationsShare = 1.0) const;
    const std::vector<probes::EventSpec>& events() const { return m_events; }
    // The simulated PMU's settings, for the run's environment; null on perf.
    const probes::SimulatedPmu* simulated() const { return m_simulated ? &*m_simulated : nullptr; }
    probes::CounterMode mode() const { return m_mode; }

    void addOperations(std::uint64_t n) { m_operations.fetch_add(n, std::memory_order_relaxed); }
    void setOperations(std::uint64_t n) { m_operations.store(n, std::memory_order_relaxed); }

private:
    std::vector<probes::EventSpec> m_events;
    std::optional<probes::SimulatedPmu> m_simulated;  // with the TSC's rate and m_operations
    std::atomic<std::uint64_t> m_operations{0};
    probes::CounterMode m_mode = probes::CounterMode::UserAndKernel;
};

class RunContext {
public:
    // Calibrates the TSC (for in-process and live runs; a command run keeps time with the steady
    // clock and has none) and sets up the rest from `prepared`. Fails where the TSC cannot be used.
    static Result<std::unique_ptr<RunContext>> create(const PreparedExperiment& prepared);

    RunContext(const RunContext&) = delete;
    RunContext& operator=(const RunContext&) = delete;

    // In-process and live runs only.
    const probes::TscClock& tsc() const { return *m_tsc; }
    RunCounters& counters() { return m_counters; }
    const RunCounters& counters() const { return m_counters; }
    const CpuPolicy& cpus() const { return m_cpus; }
    FailureSink& failures() { return m_failures; }

    // The harness's own threads (the recorder, the measuring worker of a live run), whose CPU
    // time and wakeups a live run counts per chunk. Any thread may add itself.
    void addHarnessThread(pid_t tid);
    std::vector<pid_t> harnessThreads() const;
    // Whether anything watches the run as it goes (an event stream): then the worker sends the
    // samples of a running repetition more often (PartialSender), each send a wakeup of the
    // recording thread.
    void setWatched(bool watched) { m_watched = watched; }
    bool watched() const { return m_watched; }
    // The TSC at the run's time 0, from which Sample::start counts: set by the runner when it
    // starts measuring; a profile places its samples in the chunks by it. 0 until then.
    void setTimeOrigin(std::uint64_t tsc) { m_timeOrigin.store(tsc); }
    std::uint64_t timeOrigin() const { return m_timeOrigin.load(); }

private:
    RunContext(const PreparedExperiment& prepared, std::optional<probes::TscClock> tsc);

    std::optional<probes::TscClock> m_tsc;
    RunCounters m_counters;
    CpuPolicy m_cpus;
    FailureSink m_failures;
    mutable std::mutex m_harnessMutex;
    std::vector<pid_t> m_harness;
    bool m_watched = true;
    std::atomic<std::uint64_t> m_timeOrigin{0};
};

}  // namespace nf::engine
