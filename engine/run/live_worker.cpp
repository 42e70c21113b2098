// The live worker: sets up every variant's session, measures one variant at a time for a repetition
// (the chunks of variants side by side are in live_chunks.cpp) and drives the run.

#include "engine/run/live_worker.h"

#include <algorithm>
#include <atomic>
#include <cerrno>
#include <cmath>
#include <memory>
#include <mutex>
#include <optional>
#include <random>
#include <set>
#include <string>
#include <utility>

#include "base/system_facts.h"
#include "engine/model/metric.h"
#include "engine/run/counter_columns.h"
#include "engine/run/environment.h"
#include "engine/run/live_worker_impl.h"
#include "engine/run/repetition_driver.h"
#include "engine/run/schedule.h"
#include "engine/run/scheduler.h"
#include "engine/run/session_counters.h"
#include "probes/counter_group.h"
#include "probes/softnet.h"
#include "probes/tsc_clock.h"

namespace nf::engine {

namespace live {

Result<void> LiveWorker::trialStart(std::size_t v, std::vector<std::string>& threadNames,
                                    std::vector<std::string>& cpuNames)
{
    auto& session = *m_sessions[v];
    if (auto r = session.start(); !r) {
        return Error{"variant " + m_spec.variants[v].name + ": " + r.error().message};
    }
    Running running(session);
    reportWarnings(v);
    SessionCounters counters = openCounters(session);
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
    const auto until = probes::readTsc() + static_cast<std::uint64_t>(std::max(m_spec.warmup, 0.1) * m_tsc->hz());
    waitUntil(until);
    if (auto s = session.sample(); !s) {
        return Error{"variant " + m_spec.variants[v].name + ": " + s.error().message};
    }
    return {};
}

Result<void> LiveWorker::setUp()
{
    auto tsc = probes::TscClock::calibrate(0.05);
    if (!tsc) {
        return tsc.error();
    }
    m_tsc = *tsc;
    if (m_p.simulated) {
        m_simulated = *m_p.simulated;
        m_simulated->tscHz = m_tsc->hz();
        m_simulated->operations = &m_operations;
    }
    if (m_spec.alternating()) {
        if (!m_p.implementation->makeLiveGroup) {
            return Error{m_p.workload->name + " cannot run its variants side by side"};
        }
        auto group = m_p.implementation->makeLiveGroup(m_p.params);
        if (!group) {
            return group.error();
        }
        m_group = std::move(*group);
        for (std::size_t v = 0; v < m_group->size(); ++v) {
            m_sessions.push_back(&m_group->variant(v));
        }
    }
    for (std::size_t v = 0; v < m_p.params.size() && !m_group; ++v) {
        auto session = m_p.implementation->makeLive(m_p.params[v]);
        if (!session) {
            return Error{(m_p.params.size() > 1 ? "variant " + m_spec.variants[v].name + ": " : "") +
                         session.error().message};
        }
        m_owned.push_back(std::move(*session));
        m_sessions.push_back(m_owned.back().get());
    }
    const auto quantities = m_sessions.front()->quantities();
    m_sessionQuantities = quantities.size();
    const auto packets = std::find(quantities.begin(), quantities.end(), quantity::kPackets);
    m_packets = packets == quantities.end() ? -1 : static_cast<int>(packets - quantities.begin());
    std::vector<std::string> threadNames;
    std::vector<std::string> cpuNames;
    for (std::size_t v = 0; v < m_sessions.size() && !m_stop.stop_requested(); ++v) {
        if (auto r = trialStart(v, threadNames, cpuNames); !r) {
            return r;
        }
    }
    m_layout.quantities = quantities;
    m_layout.quantities.emplace_back(quantity::kElapsedNs);
    m_layout.quantities.emplace_back(quantity::kTscTicks);
    m_layout.quantities.insert(m_layout.quantities.end(), threadNames.begin(), threadNames.end());
    m_layout.quantities.insert(m_layout.quantities.end(), cpuNames.begin(), cpuNames.end());
    // Per counted CPU (any variant's): its counters and its softnet work.
    std::set<int> breakdown;
    for (const auto& s : m_sessions) {
        const auto cpus = s->counterCpus();
        breakdown.insert(cpus.begin(), cpus.end());
    }
    for (int cpu : breakdown) {
        const std::string prefix = "cpu" + std::to_string(cpu) + "_";
        for (const auto& n : cpuNames) {
            if (n.rfind(quantity::kCpuPrefix, 0) == 0) {  // not the counted: shares
                m_layout.quantities.push_back(prefix + n.substr(std::string(quantity::kCpuPrefix).size()));
            }
        }
        for (const char* what : {"softnet_processed", "softnet_dropped", "softnet_squeezed"}) {
            m_layout.quantities.push_back(prefix + what);
        }
    }
    if (m_group) {
        m_layout.quantities.emplace_back(quantity::kGuardPackets);
        m_layout.quantities.emplace_back(quantity::kGuardNs);
        m_layout.quantities.emplace_back(quantity::kPlace);
    }
    m_layout.metrics = liveMetrics(m_layout.quantities);
    std::stable_partition(m_layout.metrics.begin(), m_layout.metrics.end(),
                          [&](const MetricSpec& m) { return m.name == m_p.workload->primaryMetric; });
    return {};
}

bool LiveWorker::waitUntil(std::uint64_t tsc)
{
    const auto now = probes::readTsc();
    if (tsc > now) {
        const auto deadline = std::chrono::steady_clock::now() +
                              std::chrono::nanoseconds(static_cast<std::int64_t>(m_tsc->toNanoseconds(tsc - now)));
        std::unique_lock lock(m_waitMutex);
        m_wait.wait_until(lock, m_stop, deadline, [] { return false; });
    }
    return !m_stop.stop_requested();
}

// Counters opened on a started session; the simulated PMU counts its packets from here.
SessionCounters LiveWorker::openCounters(const LiveSession& session)
{
    m_operations.store(0, std::memory_order_relaxed);
    return SessionCounters(m_p.counters, session, m_simulated ? &*m_simulated : nullptr);
}

Result<Reading> LiveWorker::read(std::size_t variant, SessionCounters& counters)
{
    Reading r;
    auto values = m_sessions[variant]->sample();
    if (!values) {
        return values.error();
    }
    r.tsc = probes::readTsc();
    r.session = std::move(*values);
    if (m_packets >= 0 && static_cast<std::size_t>(m_packets) < r.session.size()) {
        m_operations.store(static_cast<std::uint64_t>(std::max(0.0, r.session[static_cast<std::size_t>(m_packets)])),
                           std::memory_order_relaxed);
    }
    if (auto c = counters.read(); !c) {
        return c.error();
    }
    const auto& cpus = m_sessions[variant]->counterCpus();
    for (const auto& s : probes::readSoftnet(m_p.facts.onlineCpus)) {
        if (std::find(cpus.begin(), cpus.end(), s.cpu) != cpus.end()) {
            const std::string cpu = "cpu" + std::to_string(s.cpu) + "_softnet_";
            r.softnet.emplace_back(cpu + "processed", static_cast<double>(s.processed));
            r.softnet.emplace_back(cpu + "dropped", static_cast<double>(s.dropped));
            r.softnet.emplace_back(cpu + "squeezed", static_cast<double>(s.squeezed));
        }
    }
    return r;
}

Sample LiveWorker::sampleBetween(const Reading& a, const Reading& b) const
{
    Sample s;
    s.start = m_tsc->toSeconds(a.tsc - m_t0);
    s.duration = m_tsc->toSeconds(b.tsc - a.tsc);
    s.values.assign(m_layout.quantities.size(), std::nan(""));
    for (std::size_t i = 0; i < m_sessionQuantities && i < a.session.size() && i < b.session.size(); ++i) {
        s.values[i] = b.session[i] - a.session[i];
    }
    s.values[m_sessionQuantities] = m_tsc->toNanoseconds(b.tsc - a.tsc);
    s.values[m_sessionQuantities + 1] = static_cast<double>(b.tsc - a.tsc);
    for (const auto& [name, after] : b.softnet) {
        const int q = m_layout.quantityIndex(name);
        const auto before =
            std::find_if(a.softnet.begin(), a.softnet.end(), [&, &n = name](const auto& kv) { return kv.first == n; });
        if (q >= 0 && before != a.softnet.end()) {
            s.values[static_cast<std::size_t>(q)] = after - before->second;
        }
    }
    return s;
}

// Runs one variant for one repetition; false when stopped.
Result<bool> LiveWorker::measure(const ScheduleUnit& unit, int variant, int perVariant, RepetitionResult& rep,
                                 PartialSender& partial)
{
    const auto v = static_cast<std::size_t>(variant);
    auto& session = *m_sessions[v];
    if (auto r = session.start(); !r) {
        return r.error();
    }
    Running running(session);
    reportWarnings(v);
    SessionCounters counters = openCounters(session);
    const auto ticksPerInterval = static_cast<std::uint64_t>(m_spec.interval * m_tsc->hz());
    if (!waitUntil(probes::readTsc() + static_cast<std::uint64_t>(m_spec.warmup * m_tsc->hz()))) {
        return false;
    }
    auto previous = read(v, counters);
    if (!previous) {
        return previous.error();
    }
    counters.advance();
    auto next = previous->tsc;
    for (int i = 0; i < perVariant; ++i) {
        next += ticksPerInterval;
        if (!waitUntil(next)) {
            return false;
        }
        auto current = read(v, counters);
        if (!current) {
            return current.error();
        }
        Sample s = sampleBetween(*previous, *current);
        counters.write(s.values, m_layout);
        counters.advance();
        s.variant = variant;
        s.repetition = unit.repetition;
        s.index = i;
        rep.samples.push_back(std::move(s));
        partial.offer(unit.repetition, rep);
        previous = std::move(current);
    }
    return true;
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

nlohmann::json LiveWorker::measurementJson() const
{
    nlohmann::json facts = nlohmann::json::object();
    for (std::size_t v = 0; v < m_sessions.size(); ++v) {
        nlohmann::json own = nlohmann::json::object();
        for (const auto& [key, value] : m_sessions[v]->facts()) {
            own[key] = value;
        }
        facts[m_spec.variants[v].name] = own;
    }
    return {{"kind", "live"},
            {"variant_facts", facts},
            {"interval_seconds", m_spec.interval},
            {"warmup_seconds_per_start", m_spec.warmup},
            {"alternating", m_spec.alternating()},
            {"design", m_spec.alternating() ? "paired chunks, variants side by side" : "interleaved repetitions"},
            {"design_reason", designReason()},
            {"counters_note", "rx_* count on the receiver thread, cpu_* system-wide summed over counter_cpus"}};
}

WorkerDone LiveWorker::run(std::future<bool>& go)
{
    if (auto r = setUp(); !r) {
        return {RunStatus::Failed, r.error().message};
    }
    if (m_stop.stop_requested()) {
        return {RunStatus::Failed, "stopped before measuring"};
    }
    nlohmann::json counters =
        m_countersJson.is_null() ? nlohmann::json{{"target", "nothing (no thread or CPU)"}} : m_countersJson;
    m_out.push(WorkerReady{
        m_layout,
        {{"tsc", tscJson(m_tsc->calibration())}, {"counters", counters}, {"measurement", measurementJson()}}});
    if (!go.get()) {
        return {RunStatus::Failed, "not started"};
    }
    std::mt19937_64 rng(*m_spec.seed);
    const int perVariant = std::max(1, static_cast<int>(std::lround(m_spec.duration / m_spec.interval)));
    m_t0 = probes::readTsc();
    const int rounds = m_group ? std::max(1, static_cast<int>(std::lround(m_spec.duration / *m_spec.chunk))) : 0;
    const auto measureUnit = [&](const ScheduleUnit& unit, RepetitionResult& rep) -> Result<UnitEnd> {
        PartialSender partial(m_out);
        if (m_group) {
            auto done = measureChunks(unit, rounds, rng, rep, partial);
            if (!done) {
                return done.error();
            }
            return *done ? UnitEnd::Done : UnitEnd::Stopped;
        }
        for (int variant : unit.variants) {
            auto done = measure(unit, variant, perVariant, rep, partial);
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
    const auto outcome = driveRepetitions(m_spec, static_cast<int>(m_sessions.size()), rng, m_stop, measureUnit,
                                          [this](RepetitionResult&& rep) {
                                              m_out.push(std::move(rep));
                                              return true;
                                          });
    if (!m_lost.empty() && outcome.status == RunStatus::Aborted) {
        return {RunStatus::Aborted, m_lost + "; " + outcome.reason};
    }
    return {outcome.status, outcome.reason};
}

// Each warning a session gives (a thread it could not pin) is stored once per variant.
void LiveWorker::reportWarnings(std::size_t variant)
{
    for (const auto& w : m_sessions[variant]->warnings()) {
        const std::string text = "variant " + m_spec.variants[variant].name + ": " + w;
        if (m_warned.insert(text).second) {
            m_out.push(WorkerWarning{text});
        }
    }
}

}  // namespace live

void runLiveWorker(const PreparedExperiment& prepared, std::stop_token stop, Channel<WorkerMessage>& out,
                   std::future<bool> go)
{
    WorkerDone done;
    {
        live::LiveWorker worker(prepared, std::move(stop), out);
        done = worker.run(go);
    }  // sessions (and their testbeds) are gone before the run is reported finished
    out.push(std::move(done));
}

}  // namespace nf::engine
