#include "engine/run/live_sampler.h"

#include <algorithm>
#include <chrono>
#include <cmath>

#include "engine/model/metric.h"
#include "engine/run/run_context.h"
#include "engine/run/scheduler.h"
#include "probes/cpu_time.h"
#include "probes/softnet.h"

namespace nf::engine::live {

LiveSampler::LiveSampler(const PreparedExperiment& prepared, RunContext& context, std::stop_token stop)
    : m_p(prepared), m_context(context), m_tsc(context.tsc()), m_stop(std::move(stop))
{
}

bool LiveSampler::waitUntil(std::uint64_t tsc)
{
    const auto now = probes::readTsc();
    if (tsc > now) {
        const auto deadline = std::chrono::steady_clock::now() +
                              std::chrono::nanoseconds(static_cast<std::int64_t>(m_tsc.toNanoseconds(tsc - now)));
        std::unique_lock lock(m_waitMutex);
        m_wait.wait_until(lock, m_stop, deadline, [] { return false; });
    }
    return !m_stop.stop_requested();
}

SessionCounters LiveSampler::openCounters(const LiveSession& session)
{
    m_context.counters().setOperations(0);
    return SessionCounters(m_context.counters(), session);
}

SessionCounters LiveSampler::openViewCounters(const LiveSession& view)
{
    return SessionCounters(m_context.counters(), view);
}

void LiveSampler::setLayout(const RunLayout& layout, std::size_t sessionQuantities)
{
    m_layout = layout;
    m_sessionQuantities = sessionQuantities;
    const int packets = layout.quantityIndex(quantity::kPackets);
    m_packets = packets >= 0 && static_cast<std::size_t>(packets) < sessionQuantities ? packets : -1;
}

void LiveSampler::startClock()
{
    m_t0 = probes::readTsc();
    m_context.setTimeOrigin(m_t0);
}

Result<Reading> LiveSampler::read(LiveSession& session, SessionCounters& counters)
{
    Reading r;
    r.session = NF_TRY(session.sample());
    r.tsc = probes::readTsc();
    if (m_packets >= 0 && static_cast<std::size_t>(m_packets) < r.session.size()) {
        m_context.counters().setOperations(
            static_cast<std::uint64_t>(std::max(0.0, r.session[static_cast<std::size_t>(m_packets)])));
    }
    NF_TRY(counters.read());
    if (const pid_t tid = session.counterThread(); tid != 0) {
        if (const auto stat = probes::readSchedStat(tid)) {
            r.perCpu.emplace_back(quantity::kThreadRunDelay, static_cast<double>(stat->waitNs));
        }
    }
    // The harness's threads summed; not a number when one of them cannot be read (a sum without it
    // would move by its whole count at the next reading).
    double harnessNs = 0;
    double harnessWakeups = 0;
    for (const pid_t tid : m_context.harnessThreads()) {
        if (const auto stat = probes::readSchedStat(tid)) {
            harnessNs += static_cast<double>(stat->runNs);
            harnessWakeups += static_cast<double>(stat->timeslices);
        } else {
            harnessNs = harnessWakeups = std::nan("");
        }
    }
    r.perCpu.emplace_back(quantity::kHarnessCpuNs, harnessNs);
    r.perCpu.emplace_back(quantity::kHarnessWakeups, harnessWakeups);
    const auto& cpus = session.counterCpus();
    for (const auto& s : probes::readSoftnet(m_p.facts.onlineCpus)) {
        if (std::find(cpus.begin(), cpus.end(), s.cpu) != cpus.end()) {
            const std::string cpu = "cpu" + std::to_string(s.cpu) + "_softnet_";
            r.perCpu.emplace_back(cpu + "processed", static_cast<double>(s.processed));
            r.perCpu.emplace_back(cpu + "dropped", static_cast<double>(s.dropped));
            r.perCpu.emplace_back(cpu + "squeezed", static_cast<double>(s.squeezed));
        }
    }
    for (const auto& t : probes::readCpuTimes()) {
        if (std::find(cpus.begin(), cpus.end(), t.cpu) != cpus.end()) {
            const std::string cpu = "cpu" + std::to_string(t.cpu) + "_time_";
            r.perCpu.emplace_back(cpu + "task", static_cast<double>(t.taskNs));
            r.perCpu.emplace_back(cpu + "softirq", static_cast<double>(t.softirqNs));
            r.perCpu.emplace_back(cpu + "idle", static_cast<double>(t.idleNs));
        }
    }
    return r;
}

Sample LiveSampler::between(const Reading& a, const Reading& b) const
{
    Sample s;
    s.start = m_tsc.toSeconds(a.tsc - m_t0);
    s.duration = m_tsc.toSeconds(b.tsc - a.tsc);
    s.values.assign(m_layout.quantities.size(), std::nan(""));
    for (std::size_t i = 0; i < m_sessionQuantities && i < a.session.size() && i < b.session.size(); ++i) {
        s.values[i] = b.session[i] - a.session[i];
    }
    s.values[m_sessionQuantities] = m_tsc.toNanoseconds(b.tsc - a.tsc);
    s.values[m_sessionQuantities + 1] = static_cast<double>(b.tsc - a.tsc);
    for (const auto& [name, after] : b.perCpu) {
        const int q = m_layout.quantityIndex(name);
        const auto before =
            std::find_if(a.perCpu.begin(), a.perCpu.end(), [&, &n = name](const auto& kv) { return kv.first == n; });
        if (q >= 0 && before != a.perCpu.end()) {
            s.values[static_cast<std::size_t>(q)] = after - before->second;
        }
    }
    return s;
}

}  // namespace nf::engine::live
