#include "engine/run/session_counters.h"

#include <algorithm>
#include <cmath>

#include "engine/model/metric.h"
#include "engine/run/environment.h"

namespace nf::engine {

SessionCounters::SessionCounters(const RunCounters& counters, const LiveSession& session)
    : m_simulated(counters.simulated())
{
    if (const pid_t tid = session.counterThread(); tid != 0) {
        if (auto g = counters.open(probes::CounterTarget::thread(tid))) {
            m_thread.emplace(std::move(*g));
        }
    }
    const auto cpus = session.counterCpus();
    const double share = 1.0 / static_cast<double>(std::max<std::size_t>(cpus.size(), 1));
    for (int cpu : cpus) {
        if (auto g = counters.open(probes::CounterTarget::onCpu(cpu), share)) {
            m_cpus.emplace_back(std::move(*g));
        }
    }
}

nlohmann::json SessionCounters::describe() const
{
    const probes::CounterGroup* any = m_thread ? &m_thread->group() : (m_cpus.empty() ? nullptr : &m_cpus[0].group());
    if (any == nullptr) {
        return nullptr;
    }
    auto json = countersJson(*any, m_simulated);
    std::string target = m_thread ? "the receiver thread (rx_*)" : "";
    if (!m_cpus.empty()) {
        std::vector<int> cpus;
        for (const auto& g : m_cpus) {
            cpus.push_back(g.group().target().cpu);
        }
        target +=
            (target.empty() ? "" : " and ") + std::string("CPUs ") + base::formatCpuList(cpus) + " system-wide (cpu_*)";
    }
    json["target"] = target;
    return json;
}

std::optional<std::string> SessionCounters::userOnly(int paranoid) const
{
    if (m_thread) {
        if (auto w = userOnlyWarning(m_thread->group(), paranoid, "the receiver thread")) {
            return w;
        }
    }
    for (const auto& g : m_cpus) {
        if (auto w = userOnlyWarning(g.group(), paranoid, "the counter CPUs")) {
            return w;
        }
    }
    return std::nullopt;
}

std::vector<std::string> SessionCounters::threadQuantities() const
{
    return m_thread ? counterQuantities(m_thread->group(), quantity::kThreadPrefix) : std::vector<std::string>{};
}

std::vector<std::string> SessionCounters::cpuQuantities() const
{
    return m_cpus.empty() ? std::vector<std::string>{} : counterQuantities(m_cpus[0].group(), quantity::kCpuPrefix);
}

Result<void> SessionCounters::read()
{
    if (m_thread) {
        if (auto r = m_thread->read(); !r) {
            return Error{"reading the receiver thread's counters: " + r.error().message, r.error().errnum};
        }
    }
    for (auto& g : m_cpus) {
        if (auto r = g.read(); !r) {
            return Error{
                "reading the counters of CPU " + std::to_string(g.group().target().cpu) + ": " + r.error().message,
                r.error().errnum};
        }
    }
    return {};
}

void SessionCounters::advance()
{
    if (m_thread) {
        m_thread->advance();
    }
    for (auto& g : m_cpus) {
        g.advance();
    }
}

void SessionCounters::write(std::vector<double>& values, const RunLayout& layout)
{
    const auto put = [&](const std::string& name, double value) {
        if (const int q = layout.quantityIndex(name); q >= 0) {
            values[static_cast<std::size_t>(q)] = value;
        }
    };
    const std::string counted = quantity::kCountedPrefix;
    if (m_thread) {
        const auto& d = m_thread->deltas();
        for (std::size_t i = 0; i < d.size(); ++i) {
            const std::string name = quantity::kThreadPrefix + m_thread->group().names()[i];
            put(name, d[i].value);
            if (m_thread->group().hardware()[i]) {
                put(counted + name, d[i].counted);
            }
        }
    }
    if (m_cpus.empty()) {
        return;
    }
    const auto& names = m_cpus[0].group().names();
    for (std::size_t i = 0; i < names.size(); ++i) {
        double sum = 0;
        double enabled = 0;
        double running = 0;
        for (auto& g : m_cpus) {
            const auto& d = g.deltas();
            const auto& own = g.group().names();
            const auto k = static_cast<std::size_t>(std::find(own.begin(), own.end(), names[i]) - own.begin());
            if (k >= own.size()) {
                sum = std::nan("");  // this CPU did not open it
                continue;
            }
            sum += d[k].value;
            enabled += g.enabled(k);
            running += g.running(k);
            // Each CPU's own count too: where the receive work ran.
            put("cpu" + std::to_string(g.group().target().cpu) + "_" + names[i], d[k].value);
        }
        const std::string name = quantity::kCpuPrefix + names[i];
        put(name, sum);
        if (m_cpus[0].group().hardware()[i]) {
            put(counted + name, enabled > 0 ? std::min(1.0, running / enabled) : 1.0);
        }
    }
}
}  // namespace nf::engine
