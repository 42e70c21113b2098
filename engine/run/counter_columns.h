#pragma once
// How a run's counters become a sample's quantities: each counter's delta over the sample, scaled
// by time enabled / time running (probes::scaleDelta), and for each hardware counter how much of
// the sample it was counted ("counted:<quantity>", 1 = all of it). Also the warnings a run stores
// about its counters (multiplexed samples, user-only counting) and the simulated PMU a spec asks for.

#include <optional>
#include <set>
#include <string>
#include <vector>

#include "engine/model/experiment_spec.h"
#include "engine/model/run_data.h"
#include "probes/counter_group.h"

namespace nf::engine {

// The simulated PMU's settings for `pmu` (nullopt for perf); a worker adds the TSC rate and the
// operation count it advances.
std::optional<probes::SimulatedPmu> simulatedPmu(const PmuChoice& pmu);

// The quantities a group's counters add to a sample: prefix + each counter, then
// counted:<prefix + counter> of each hardware counter.
std::vector<std::string> counterQuantities(const probes::CounterGroup& group, const std::string& prefix);

// A counter group with the two readings a sample is the difference of, made once: read() fills the
// newer one without allocating, advance() makes it the older one.
class SampledCounters {
public:
    explicit SampledCounters(probes::CounterGroup group);

    const probes::CounterGroup& group() const { return m_group; }
    Result<void> read() { return m_group.read(m_newer); }
    void advance() { std::swap(m_older, m_newer); }

    // Older to newer, per counter: the scaled value, and the time enabled and running.
    const std::vector<probes::ScaledCount>& deltas();
    double enabled(std::size_t counter) const;
    double running(std::size_t counter) const;

    // Writes the deltas at values[offset...] in counterQuantities() order.
    void write(std::vector<double>& values, std::size_t offset);

private:
    probes::CounterGroup m_group;
    probes::CounterReading m_older;
    probes::CounterReading m_newer;
    std::vector<probes::ScaledCount> m_deltas;
};

// One warning for the counted: quantities of `rep` below 100%, naming those not warned about yet
// (`warned` remembers them); nullopt when there are none.
std::optional<std::string> multiplexWarning(const RunLayout& layout, const RepetitionResult& rep,
                                            std::set<std::string>& warned);

// The warning for counters the kernel let count user mode only (perf_event_paranoid), nullopt when
// every counter counts kernel mode too.
std::optional<std::string> userOnlyWarning(const probes::CounterGroup& group, int perfEventParanoid,
                                           const std::string& where);

}  // namespace nf::engine
