#pragma once
// How a live run reads its running sessions: at every sample boundary the session's cumulative
// quantities, the TSC, the session's counters and its CPUs' softnet work and time (/proc/stat:
// task, softirq, idle); a sample is the
// difference of two such readings. Between boundaries it sleeps on the run's stop token, so the
// sampler costs the measured threads nothing and a stop ends any wait at once.

#include <condition_variable>
#include <cstddef>
#include <cstdint>
#include <mutex>
#include <stop_token>
#include <string>
#include <utility>
#include <vector>

#include "base/result.h"
#include "engine/model/run_data.h"
#include "engine/run/session_counters.h"
#include "engine/run/workload.h"
#include "probes/tsc_clock.h"

namespace nf::engine {

struct PreparedExperiment;
class RunContext;

namespace live {

struct Reading {
    std::uint64_t tsc = 0;
    std::vector<double> session;
    // Cumulative, by quantity: cpuN_softnet_*, cpuN_time_*, the receiver's run delay and the
    // harness's CPU time and wakeups.
    std::vector<std::pair<std::string, double>> perCpu;
};

class LiveSampler {
public:
    LiveSampler(const PreparedExperiment& prepared, RunContext& context, std::stop_token stop);

    const probes::TscClock& tsc() const { return m_tsc; }
    std::uint64_t ticks(double seconds) const { return static_cast<std::uint64_t>(seconds * m_tsc.hz()); }
    // Sleeps until the TSC reads `tsc`; false when the run was stopped.
    bool waitUntil(std::uint64_t tsc);

    // Counters opened on a session started alone; the simulated PMU counts its packets from here.
    SessionCounters openCounters(const LiveSession& session);
    // Counters opened on a variant's view of the started group; the simulated PMU's count goes on.
    SessionCounters openViewCounters(const LiveSession& view);

    // The layout samples are written in; its first `sessionQuantities` are the sessions' own.
    void setLayout(const RunLayout& layout, std::size_t sessionQuantities);
    const RunLayout& layout() const { return m_layout; }
    // Where the session's packets are in its sample() values; -1 when it has none.
    int packets() const { return m_packets; }
    // From now on samples' start times count from here.
    void startClock();

    Result<Reading> read(LiveSession& session, SessionCounters& counters);
    // The sample between two readings (counters not yet written).
    Sample between(const Reading& a, const Reading& b) const;

private:
    const PreparedExperiment& m_p;
    RunContext& m_context;
    const probes::TscClock& m_tsc;
    std::stop_token m_stop;
    std::mutex m_waitMutex;
    std::condition_variable_any m_wait;
    RunLayout m_layout;
    std::size_t m_sessionQuantities = 0;
    int m_packets = -1;
    std::uint64_t m_t0 = 0;
};

}  // namespace live
}  // namespace nf::engine
