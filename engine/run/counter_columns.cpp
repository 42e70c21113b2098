#include "engine/run/counter_columns.h"

#include <fmt/format.h>

#include <algorithm>
#include <cmath>
#include <map>

#include "engine/model/metric.h"

namespace nf::engine {

std::optional<probes::SimulatedPmu> simulatedPmu(const PmuChoice& pmu)
{
    if (!pmu.simulated) {
        return std::nullopt;
    }
    probes::SimulatedPmu s;
    s.running = pmu.running;
    s.periodMs = pmu.periodMs;
    s.failRead = pmu.failRead;
    return s;
}

std::vector<std::string> counterQuantities(const probes::CounterGroup& group, const std::string& prefix)
{
    std::vector<std::string> out;
    for (const auto& name : group.names()) {
        out.push_back(prefix + name);
    }
    for (std::size_t i = 0; i < group.names().size(); ++i) {
        if (group.hardware()[i]) {
            out.push_back(quantity::kCountedPrefix + prefix + group.names()[i]);
        }
    }
    return out;
}

SampledCounters::SampledCounters(probes::CounterGroup group)
    : m_group(std::move(group)), m_older(m_group.reading()), m_newer(m_group.reading())
{
    probes::scaledDeltas(m_older, m_newer, m_deltas);  // sized once
}

const std::vector<probes::ScaledCount>& SampledCounters::deltas()
{
    probes::scaledDeltas(m_older, m_newer, m_deltas);
    return m_deltas;
}

double SampledCounters::enabled(std::size_t counter) const
{
    return static_cast<double>(m_newer.enabled[counter] - m_older.enabled[counter]);
}

double SampledCounters::running(std::size_t counter) const
{
    return static_cast<double>(m_newer.running[counter] - m_older.running[counter]);
}

void SampledCounters::write(std::vector<double>& values, std::size_t offset)
{
    const auto& d = deltas();
    std::size_t at = offset;
    for (const auto& c : d) {
        values[at++] = c.value;
    }
    for (std::size_t i = 0; i < d.size(); ++i) {
        if (m_group.hardware()[i]) {
            values[at++] = d[i].counted;
        }
    }
}

std::optional<std::string> multiplexWarning(const RunLayout& layout, const RepetitionResult& rep,
                                            std::set<std::string>& warned)
{
    const std::string prefix = quantity::kCountedPrefix;
    struct Share {
        double sum = 0;
        double lowest = 1;
        int samples = 0;
        int none = 0;  // samples it was not counted at all
    };
    std::map<std::string, Share> low;
    for (std::size_t q = 0; q < layout.quantities.size(); ++q) {
        const auto& name = layout.quantities[q];
        if (name.rfind(prefix, 0) != 0 || warned.contains(name)) {
            continue;
        }
        Share share;
        for (const auto& s : rep.samples) {
            if (q < s.values.size() && std::isfinite(s.values[q])) {
                share.sum += s.values[q];
                share.lowest = std::min(share.lowest, s.values[q]);
                ++share.samples;
                share.none += s.values[q] <= 0 ? 1 : 0;
            }
        }
        if (share.samples > 0 && share.lowest < 1.0 - 1e-9) {
            low[name] = share;
        }
    }
    if (low.empty()) {
        return std::nullopt;
    }
    std::string names;
    double mean = 0;
    double lowest = 1;
    int none = 0;
    for (const auto& [name, share] : low) {
        warned.insert(name);
        names += (names.empty() ? "" : ", ") + name.substr(prefix.size());
        mean = std::max(mean, share.sum / share.samples);
        lowest = std::min(lowest, share.lowest);
        none = std::max(none, share.none);
    }
    std::string text = fmt::format(
        "counters multiplexed from repetition {}: {} counted {:.1f}% of the time (lowest sample {:.1f}%); their "
        "values are scaled by time enabled / time running, so they are estimates (docs/measurement.md)",
        rep.index + 1, names, mean * 100, lowest * 100);
    if (none > 0) {
        text += fmt::format("; {} sample{} not counted at all have no value", none, none == 1 ? " was" : "s were");
    }
    return text;
}

std::optional<std::string> userOnlyWarning(const probes::CounterGroup& group, int perfEventParanoid,
                                           const std::string& where)
{
    if (group.userOnly().empty()) {
        return std::nullopt;
    }
    std::string names;
    for (const auto& n : group.userOnly()) {
        names += (names.empty() ? "" : ", ") + n;
    }
    return fmt::format(
        "perf_event_paranoid is {}: {} on {} counted user mode only, so kernel work (system calls, softirq "
        "processing) is not in them; run as root or with CAP_PERFMON, or sysctl kernel.perf_event_paranoid=1",
        perfEventParanoid, names, where);
}

}  // namespace nf::engine
