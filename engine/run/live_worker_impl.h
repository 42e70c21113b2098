#pragma once
// The live worker's state, shared by its two halves: engine/run/live_worker.cpp sets the sessions
// up, runs one variant at a time for a repetition and drives the run; engine/run/live_chunks.cpp
// runs every variant side by side in chunks. Only those two files include this header.

#include <atomic>
#include <condition_variable>
#include <cstdint>
#include <deque>
#include <future>
#include <memory>
#include <mutex>
#include <nlohmann/json.hpp>
#include <optional>
#include <random>
#include <set>
#include <stop_token>
#include <string>
#include <utility>
#include <vector>

#include "engine/model/run_data.h"
#include "engine/run/call_loop_worker.h"
#include "engine/run/channel.h"
#include "engine/run/schedule.h"
#include "engine/run/scheduler.h"
#include "engine/run/session_counters.h"
#include "engine/run/workload.h"
#include "probes/simulated_pmu.h"
#include "probes/tsc_clock.h"

namespace nf::engine::live {

// Stops a started session on every path out of a scope.
class Running {
public:
    explicit Running(LiveSession& session) : m_session(session) {}
    ~Running() { m_session.stop(); }
    Running(const Running&) = delete;
    Running& operator=(const Running&) = delete;

private:
    LiveSession& m_session;
};

struct Reading {
    std::uint64_t tsc = 0;
    std::vector<double> session;
    std::vector<std::pair<std::string, double>> softnet;  // cumulative, cpuN_softnet_*
};

class LiveWorker {
public:
    LiveWorker(const PreparedExperiment& p, std::stop_token stop, Channel<WorkerMessage>& out)
        : m_p(p), m_spec(p.spec), m_stop(std::move(stop)), m_out(out)
    {
    }

    WorkerDone run(std::future<bool>& go);

private:
    Result<void> setUp();
    Result<void> trialStart(std::size_t variant, std::vector<std::string>& threadNames,
                            std::vector<std::string>& cpuNames);
    SessionCounters openCounters(const LiveSession& session);
    Result<Reading> read(std::size_t variant, SessionCounters& counters);
    Sample sampleBetween(const Reading& a, const Reading& b) const;
    bool waitUntil(std::uint64_t tsc);  // false when stopped
    // Each measures into `rep` and offers what it adds to `partial`, for watching.
    Result<bool> measure(const ScheduleUnit& unit, int variant, int perVariant, RepetitionResult& rep,
                         PartialSender& partial);
    Result<bool> startPhase(std::size_t rotation, std::deque<SessionCounters>& counters,
                            std::optional<Running>& running, std::size_t& offered);
    Result<bool> measureChunks(const ScheduleUnit& unit, int rounds, std::mt19937_64& rng, RepetitionResult& rep,
                               PartialSender& partial);
    std::optional<double> packetsNow();
    std::string designReason() const;
    void reportWarnings(std::size_t variant);
    nlohmann::json measurementJson() const;

    const PreparedExperiment& m_p;
    const ExperimentSpec& m_spec;
    std::stop_token m_stop;
    Channel<WorkerMessage>& m_out;
    std::optional<probes::TscClock> m_tsc;
    std::unique_ptr<LiveGroup> m_group;                 // alternating: every variant side by side
    std::vector<std::unique_ptr<LiveSession>> m_owned;  // not alternating: a session per variant
    std::vector<LiveSession*> m_sessions;               // per variant: its session or its view of m_group
    std::size_t m_sessionQuantities = 0;
    RunLayout m_layout;
    nlohmann::json m_countersJson;
    std::optional<probes::SimulatedPmu> m_simulated;  // with the TSC rate and m_operations
    std::atomic<std::uint64_t> m_operations{0};       // packets received, for the simulated PMU
    int m_packets = -1;                               // index of the packets quantity in a session sample
    std::set<std::string> m_multiplexWarned;
    std::uint64_t m_t0 = 0;
    std::mutex m_waitMutex;
    std::condition_variable_any m_wait;
    std::set<std::string> m_warned;
    std::string m_lost;  // why the connection to a remote generator ended, if it did
};

}  // namespace nf::engine::live
