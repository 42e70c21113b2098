#include "engine/run/run_context.h"

#include <algorithm>
#include <utility>

#include "base/system_facts.h"
#include "engine/run/cpu_claim.h"
#include "engine/run/scheduler.h"

namespace nf::engine {

CpuPolicy cpuPolicy(const PreparedExperiment& prepared)
{
    CpuPolicy policy{measuredCpus(prepared), prepared.workerCpu, {}};
    if (!prepared.spec.housekeeping.empty()) {  // given, and checked by prepareExperiment
        policy.housekeeping = prepared.spec.housekeeping;
        return policy;
    }
    // Not the CPUs a live run counts system-wide either (counter_cpus as a list; `auto` is the
    // traffic CPUs), where the harness's work would be in the counts.
    std::vector<int> avoid = policy.measured;
    for (const auto& params : prepared.params) {
        const auto counted = params.all().find("counter_cpus");
        if (counted == params.all().end()) {
            continue;
        }
        bool ok = false;
        const auto cpus = base::parseCpuList(counted->second, &ok);
        if (ok) {
            avoid.insert(avoid.end(), cpus.begin(), cpus.end());
        }
    }
    for (int cpu : prepared.facts.allowedCpus) {
        if (std::find(avoid.begin(), avoid.end(), cpu) == avoid.end()) {
            policy.housekeeping.push_back(cpu);
        }
    }
    return policy;
}

std::string describeHarness(const CpuPolicy& policy, bool moved)
{
    if (policy.housekeeping.empty()) {
        return "on the measured CPUs " + base::formatCpuList(policy.measured) + " (no other CPU allowed)";
    }
    const auto cpus = base::formatCpuList(policy.housekeeping);
    return moved ? "on CPU " + cpus : "where the system put it (the move to CPU " + cpus + " failed)";
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

void RunContext::addHarnessThread(pid_t tid)
{
    const std::lock_guard lock(m_harnessMutex);
    m_harness.push_back(tid);
}

std::vector<pid_t> RunContext::harnessThreads() const
{
    const std::lock_guard lock(m_harnessMutex);
    return m_harness;
}

}  // namespace nf::engine
