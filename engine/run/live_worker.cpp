// The live worker: makes every variant's session and tries each once, reports ready with the run's
// layout and environment, then drives the repetitions, measuring each one variant at a time
// (live_interleaved.cpp) or every variant side by side in chunks (live_chunks.cpp).

#include "engine/run/live_worker.h"

#include <algorithm>
#include <cerrno>
#include <optional>
#include <random>
#include <set>
#include <string>
#include <utility>
#include <vector>

#include "engine/model/metric.h"
#include "engine/run/counter_columns.h"
#include "engine/run/cpu_settings.h"
#include "engine/run/environment.h"
#include "engine/run/live_chunks.h"
#include "engine/run/live_interleaved.h"
#include "engine/run/live_sampler.h"
#include "engine/run/live_sessions.h"
#include "engine/run/pinned_thread.h"
#include "engine/run/repetition_driver.h"
#include "engine/run/run_context.h"
#include "engine/run/run_stop.h"
#include "engine/run/scheduler.h"

namespace nf::engine {

namespace live {
namespace {

class LiveWorker {
public:
    LiveWorker(const PreparedExperiment& p, RunContext& context, std::stop_token stop, Channel<WorkerMessage>& out)
        : m_p(p),
          m_spec(p.spec),
          m_context(context),
          m_stop(stop),
          m_out(out),
          m_sessions(p, out),
          m_sampler(p, context, std::move(stop))
    {
    }

    WorkerDone run(std::future<bool>& go);

private:
    Result<void> setUp();
    Result<void> trialStart(std::size_t variant, std::vector<std::string>& threadNames,
                            std::vector<std::string>& cpuNames);
    RunLayout layout(const std::vector<std::string>& sessionQuantities, const std::vector<std::string>& threadNames,
                     const std::vector<std::string>& cpuNames);
    std::string designReason() const;
    nlohmann::json measurementJson(bool harnessMoved) const;
    nlohmann::json testedState() const;

    const PreparedExperiment& m_p;
    const ExperimentSpec& m_spec;
    RunContext& m_context;
    std::stop_token m_stop;
    Channel<WorkerMessage>& m_out;
    LiveSessions m_sessions;
    LiveSampler m_sampler;
    RunLayout m_layout;
    nlohmann::json m_countersJson;
    std::set<std::string> m_multiplexWarned;
    std::string m_lost;  // why the connection to a remote generator ended, if it did
};

// Makes the sessions, starts each once (a trial that learns which counters open and lets a session
// refuse, e.g. an unreachable rate) and lays the run's samples out.
Result<void> LiveWorker::setUp()
{
    NF_TRY(m_sessions.make());
    const auto quantities = m_sessions[0].quantities();
    std::vector<std::string> threadNames;
    std::vector<std::string> cpuNames;
    for (std::size_t v = 0; v < m_sessions.size() && !m_stop.stop_requested(); ++v) {
        NF_TRY(trialStart(v, threadNames, cpuNames));
    }
    m_layout = layout(quantities, threadNames, cpuNames);
    m_sampler.setLayout(m_layout, quantities.size());
    return {};
}

Result<void> LiveWorker::trialStart(std::size_t v, std::vector<std::string>& threadNames,
                                    std::vector<std::string>& cpuNames)
{
    auto& session = m_sessions[v];
    const std::string variant = "variant " + m_spec.variants[v].name + ": ";
    NF_TRY(session.start().withContext(variant));
    Running running(session);
    m_sessions.reportWarnings(v);
    SessionCounters counters = m_sampler.openCounters(session);
    if (threadNames.empty()) {
        threadNames = counters.threadQuantities();
    }
    if (cpuNames.empty()) {
        cpuNames = counters.cpuQuantities();
    }
    if (m_countersJson.is_null()) {
        m_countersJson = counters.describe();
        if (auto w = counters.userOnly(m_p.facts.perfEventParanoid)) {
            m_out.push(WorkerWarning{*w});
        }
    }
    m_sampler.waitUntil(probes::readTsc() + m_sampler.ticks(std::max(m_spec.warmup, 0.1)));
    NF_TRY(session.sample().withContext(variant));
    return {};
}

// The sessions' own quantities, time, the counters on the receiver thread and the counter CPUs,
// per counted CPU its counters, its softnet work and where its time went, and for variants side by side the guards'
// packets and time and the chunk's place.
RunLayout LiveWorker::layout(const std::vector<std::string>& sessionQuantities,
                             const std::vector<std::string>& threadNames, const std::vector<std::string>& cpuNames)
{
    RunLayout layout;
    layout.quantities = sessionQuantities;
    layout.quantities.emplace_back(quantity::kElapsedNs);
    layout.quantities.emplace_back(quantity::kTscTicks);
    layout.quantities.insert(layout.quantities.end(), threadNames.begin(), threadNames.end());
    if (!threadNames.empty()) {
        layout.quantities.emplace_back(quantity::kThreadRunDelay);
    }
    layout.quantities.insert(layout.quantities.end(), cpuNames.begin(), cpuNames.end());
    // Per counted CPU (any variant's): its counters, its softnet work and its time.
    std::set<int> breakdown;
    for (std::size_t v = 0; v < m_sessions.size(); ++v) {
        const auto cpus = m_sessions[v].counterCpus();
        breakdown.insert(cpus.begin(), cpus.end());
    }
    for (int cpu : breakdown) {
        const std::string prefix = "cpu" + std::to_string(cpu) + "_";
        for (const auto& n : cpuNames) {
            if (n.rfind(quantity::kCpuPrefix, 0) == 0) {  // not the counted: shares
                layout.quantities.push_back(prefix + n.substr(std::string(quantity::kCpuPrefix).size()));
            }
        }
        for (const char* what :
             {"softnet_processed", "softnet_dropped", "softnet_squeezed", "time_task", "time_softirq", "time_idle"}) {
            layout.quantities.push_back(prefix + what);
        }
    }
    layout.quantities.emplace_back(quantity::kHarnessCpuNs);
    layout.quantities.emplace_back(quantity::kHarnessWakeups);
    if (m_sessions.group() != nullptr) {
        layout.quantities.emplace_back(quantity::kGuardPackets);
        layout.quantities.emplace_back(quantity::kGuardNs);
        layout.quantities.emplace_back(quantity::kPlace);
    }
    layout.metrics = liveMetrics(layout.quantities);
    std::stable_partition(layout.metrics.begin(), layout.metrics.end(),
                          [&](const MetricSpec& m) { return m.name == m_p.primaryMetric(); });
    return layout;
}

// Why the variants run in repetitions, or "" when they alternate in chunks side by side.
std::string LiveWorker::designReason() const
{
    if (m_spec.alternating()) {
        return "";
    }
    if (!m_p.workload->chunkBlocker) {
        return m_p.workload->name + " runs one variant at a time";
    }
    const auto blocker = m_p.workload->chunkBlocker(m_p.params);
    return blocker.empty() ? std::string("chunk 0") : blocker;
}

nlohmann::json LiveWorker::measurementJson(bool harnessMoved) const
{
    return {{"kind", "live"},
            {"variant_facts", m_sessions.facts()},
            {"interval_seconds", m_spec.interval},
            {"warmup_seconds_per_start", m_spec.warmup},
            {"alternating", m_spec.alternating()},
            {"design", m_spec.alternating() ? "paired chunks, variants side by side" : "interleaved repetitions"},
            {"design_reason", designReason()},
            {"harness", describeHarness(m_context.cpus(), harnessMoved)},
            {"counters_note", "rx_* count on the receiver thread, cpu_* system-wide summed over counter_cpus"}};
}

// The settings of the interfaces the variants' traffic crosses and of the counted CPUs.
nlohmann::json LiveWorker::testedState() const
{
    auto state = m_sessions.testedState();
    std::set<int> cpus;
    for (std::size_t v = 0; v < m_sessions.size(); ++v) {
        const auto counted = m_sessions[v].counterCpus();
        cpus.insert(counted.begin(), counted.end());
    }
    state.merge(readCpuSettings({cpus.begin(), cpus.end()}));
    return state;
}

WorkerDone LiveWorker::run(std::future<bool>& go)
{
    if (auto r = setUp(); !r) {
        // A stop that ended a wait in the set-up (an ssh connect) is a stop, not a failure.
        return {m_stop.stop_requested() ? RunStatus::Aborted : RunStatus::Failed,
                m_stop.stop_requested() ? "stopped before measuring" : r.error().message};
    }
    if (m_stop.stop_requested()) {
        return {RunStatus::Aborted, "stopped before measuring"};
    }
    // The sessions are made (their CPUs checked against this thread's, all the run's); from here
    // the sampler is harness and leaves the measured CPUs, where the machine has others.
    const OffCpu offCpu(m_context.cpus().housekeeping);
    nlohmann::json counters =
        m_countersJson.is_null() ? nlohmann::json{{"target", "nothing (no thread or CPU)"}} : m_countersJson;
    m_out.push(WorkerReady{m_layout,
                           {{"tsc", tscJson(m_context.tsc().calibration())},
                            {"counters", counters},
                            {"measurement", measurementJson(offCpu.moved())}}});
    if (!go.get()) {
        return {RunStatus::Failed, "not started"};
    }
    std::mt19937_64 rng(*m_spec.seed);
    m_sampler.startClock();
    std::optional<SideBySide> sideBySide;
    std::optional<Interleaved> interleaved;
    if (m_sessions.group() != nullptr) {
        sideBySide.emplace(m_spec, m_sessions, m_sampler);
    } else {
        interleaved.emplace(m_spec, m_sessions, m_sampler);
    }
    const auto measure = [&](const ScheduleUnit& unit, RepetitionResult& rep) -> Result<UnitEnd> {
        PartialSender partial(m_out, m_context.watched());
        if (sideBySide) {
            return NF_TRY(sideBySide->measure(unit, rng, rep, partial)) ? UnitEnd::Done : UnitEnd::Stopped;
        }
        for (int variant : unit.variants) {
            auto done = interleaved->measure(unit, variant, rep, partial);
            if (!done && done.error().errnum == ECONNABORTED) {  // a remote generator's ssh dropped
                m_lost = done.error().message;
                return UnitEnd::Stopped;
            }
            if (!done) {
                return Error{"variant " + m_spec.variants[static_cast<std::size_t>(variant)].name + ": " +
                             done.error().message};
            }
            if (!*done) {
                return UnitEnd::Stopped;
            }
        }
        if (auto w = multiplexWarning(m_layout, rep, m_multiplexWarned)) {
            m_out.push(WorkerWarning{*w});
        }
        return UnitEnd::Done;
    };
    // The tested interfaces' and CPUs' settings before and after the unit's measuring, never while it
    // measures: a comparison finds what changed during the run from them.
    const auto measureUnit = [&](const ScheduleUnit& unit, RepetitionResult& rep) -> Result<UnitEnd> {
        rep.state["before"] = testedState();
        auto end = measure(unit, rep);
        if (end && *end == UnitEnd::Done) {
            rep.state["after"] = testedState();
        }
        return end;
    };
    const auto outcome = driveRepetitions(m_spec, static_cast<int>(m_sessions.size()), rng, m_stop,
                                          m_context.failures(), measureUnit, [this](RepetitionResult&& rep) {
                                              m_out.push(std::move(rep));
                                              return true;
                                          });
    if (!m_lost.empty() && outcome.status == RunStatus::Aborted) {
        return {RunStatus::Aborted, m_lost + "; " + outcome.reason};
    }
    return {outcome.status, outcome.reason};
}

}  // namespace
}  // namespace live

void runLiveWorker(const PreparedExperiment& prepared, RunContext& context, std::stop_token stop,
                   Channel<WorkerMessage>& out, std::future<bool> go)
{
    WorkerDone done;
    {
        const RunStop::Scope runStop(stop);  // what waits inside a workload's factory sees the stop
        live::LiveWorker worker(prepared, context, std::move(stop), out);
        done = worker.run(go);
    }  // sessions (and their testbeds) are gone before the run is reported finished
    out.push(std::move(done));
}

}  // namespace nf::engine
