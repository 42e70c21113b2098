#include "engine/run/run_context.h"

#include <algorithm>
#include <utility>

#include "engine/run/cpu_claim.h"
#include "engine/run/scheduler.h"

namespace nf::engine {

CpuPolicy cpuPolicy(const PreparedExperiment& prepared)
{
    CpuPolicy policy{measuredCpus(prepared), prepared.workerCpu, {}};
    for (int cpu : prepared.facts.allowedCpus) {
        if (std::find(policy.measured.begin(), policy.measured.end(), cpu) == policy.measured.end()) {
            policy.housekeeping.push_back(cpu);
        }
    }
    return policy;
}

RunCounters::RunCounters(std::vector<probes::EventSpec> events, std::optional<probes::SimulatedPmu> simulated,
                         double tscHz, probes::CounterMode mode)
    : m_events(std::move(events)), m_simulated(simulated), m_mode(mode)
{
    if (m_simulated) {
        m_simulated->tscHz = tscHz;
        m_simulated->operations = &m_operations;
    }
}

Result<probes::CounterGroup> RunCounters::open(const probes::CounterTarget& target, double operationsShare) const
{
    if (!m_simulated) {
        return probes::CounterGroup::open(m_events, target, nullptr, m_mode);
    }
    auto pmu = *m_simulated;
    pmu.operationsShare = operationsShare;
    return probes::CounterGroup::open(m_events, target, &pmu, m_mode);
}

Result<std::unique_ptr<RunContext>> RunContext::create(const PreparedExperiment& prepared)
{
    std::optional<probes::TscClock> tsc;
    if (prepared.workload->kind != WorkloadKind::External) {
        tsc = NF_TRY(probes::TscClock::calibrate(0.05));
    }
    return std::unique_ptr<RunContext>(new RunContext(prepared, tsc));
}

RunContext::RunContext(const PreparedExperiment& prepared, std::optional<probes::TscClock> tsc)
    : m_tsc(tsc),
      m_counters(prepared.counters, prepared.simulated, m_tsc ? m_tsc->hz() : 0.0,
                 prepared.spec.countersMode.value_or(CountersMode::All) == CountersMode::User
                     ? probes::CounterMode::User
                     : probes::CounterMode::UserAndKernel),
      m_cpus(cpuPolicy(prepared))
{
}

}  // namespace nf::engine
