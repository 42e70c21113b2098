// The perf counters of one running live session, read at sample boundaries.
#pragma once

#include <nlohmann/json.hpp>
#include <optional>
#include <string>
#include <vector>

#include "engine/model/run_data.h"
#include "engine/run/counter_columns.h"
#include "engine/run/run_context.h"
#include "engine/run/workload.h"
#include "probes/counter_group.h"

namespace nf::engine {

// Counters of one running session: on its receiver thread and on each of its counter CPUs, each
// with the two readings a sample is the difference of.
class SessionCounters {
public:
    // The run's counters (RunContext::counters()) opened on the session's thread and CPUs; each CPU
    // sees its share of the operations the simulated PMU counts by.
    SessionCounters(const RunCounters& counters, const LiveSession& session);

    // What opened and what did not (and why), with where each set counts.
    nlohmann::json describe() const;

    // The warning for counters opened user-only, on the thread or on any CPU.
    std::optional<std::string> userOnly(int paranoid) const;

    std::vector<std::string> threadQuantities() const;
    std::vector<std::string> cpuQuantities() const;

    // Reads every group into its newer reading; a failed read is an error naming where.
    Result<void> read();

    void advance();

    // The deltas since the last advance() into `values`: rx_<counter> for the thread, cpu_<counter>
    // summed over the CPUs, and counted:<quantity> (for the CPUs, their time running over their time
    // enabled, summed).
    void write(std::vector<double>& values, const RunLayout& layout);

private:
    std::optional<SampledCounters> m_thread;
    std::vector<SampledCounters> m_cpus;
    const probes::SimulatedPmu* m_simulated = nullptr;
};

}  // namespace nf::engine
