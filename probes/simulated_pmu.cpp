#include "probes/simulated_pmu.h"

#include <linux/perf_event.h>

#include <algorithm>
#include <array>
#include <cmath>

#include "probes/tsc_clock.h"

namespace nf::probes {

namespace {

// docs/measurement.md lists these; tests/probes/counter_group_test.cpp checks them.
constexpr std::array kRates{
    SimulatedRate{"cycles", 1.0, 0.0},
    SimulatedRate{"instructions", 1.2, 8.0},
    SimulatedRate{"branches", 0.2, 2.0},
    SimulatedRate{"branch-misses", 0.0005, 0.01},
    SimulatedRate{"cache-misses", 0.0002, 0.001},
};

const SimulatedRate* rateFor(const EventSpec& spec)
{
    if (spec.type != PERF_TYPE_HARDWARE) {
        return nullptr;
    }
    switch (spec.config) {
        case PERF_COUNT_HW_CPU_CYCLES: return &kRates[0];
        case PERF_COUNT_HW_INSTRUCTIONS: return &kRates[1];
        case PERF_COUNT_HW_BRANCH_INSTRUCTIONS: return &kRates[2];
        case PERF_COUNT_HW_BRANCH_MISSES: return &kRates[3];
        case PERF_COUNT_HW_CACHE_MISSES: return &kRates[4];
        default: return nullptr;
    }
}

}  // namespace

std::span<const SimulatedRate> simulatedRates()
{
    return kRates;
}

bool isSimulatedEvent(const EventSpec& spec)
{
    return rateFor(spec) != nullptr;
}

SimulatedCounters::SimulatedCounters(const SimulatedPmu& pmu)
    : m_pmu(pmu), m_start(readTsc()), m_periodTicks(pmu.periodMs * 1e-3 * pmu.tscHz)
{
    if (m_pmu.operations != nullptr) {
        m_lastOperations = static_cast<double>(m_pmu.operations->load(std::memory_order_relaxed)) * pmu.operationsShare;
    }
}

void SimulatedCounters::add(const EventSpec& spec, std::size_t slot)
{
    m_counters.push_back({rateFor(spec), slot});
    m_raw.push_back(0.0);
}

double SimulatedCounters::runningTicks(double t) const
{
    if (m_pmu.running >= 1.0 || !(m_periodTicks > 0)) {
        return t;
    }
    const double on = m_pmu.running * m_periodTicks;
    const double periods = std::floor(t / m_periodTicks);
    return periods * on + std::min(t - periods * m_periodTicks, on);
}

bool SimulatedCounters::read(std::vector<std::uint64_t>& value, std::vector<std::uint64_t>& enabled,
                             std::vector<std::uint64_t>& running) const
{
    if (++m_reads == m_pmu.failRead) {
        return false;
    }
    const auto now = static_cast<double>(readTsc() - m_start);
    const double operations =
        m_pmu.operations != nullptr
            ? static_cast<double>(m_pmu.operations->load(std::memory_order_relaxed)) * m_pmu.operationsShare
            : 0.0;
    const double dEnabled = now - m_lastTicks;
    const double dRunning = runningTicks(now) - runningTicks(m_lastTicks);
    // Operations done while the counter ran: the interval's share of them, as a real counter that
    // runs part of the time sees only the events of that part.
    const double dOperations = (operations - m_lastOperations) * (dEnabled > 0 ? dRunning / dEnabled : 1.0);
    m_lastTicks = now;
    m_lastOperations = operations;
    const double counted = runningTicks(now);
    for (std::size_t i = 0; i < m_counters.size(); ++i) {
        const Counter& c = m_counters[i];
        m_raw[i] += c.rate->perTick * dRunning + c.rate->perOperation * dOperations;
        value[c.slot] = static_cast<std::uint64_t>(m_raw[i]);
        enabled[c.slot] = static_cast<std::uint64_t>(now);
        running[c.slot] = static_cast<std::uint64_t>(counted);
    }
    return true;
}

}  // namespace nf::probes
