#pragma once
// The simulated PMU (`--pmu simulated`): cycles, instructions, branches, branch-misses and
// cache-misses made up from the TSC and the workload's own operation count at fixed rates, so that
// the counter path (grouping, multiplexing and its scaling, failed reads, naming, storage, reports,
// the GUI) can be tested on a machine without a hardware PMU. It is chosen only explicitly and
// everything a run with it prints says SIMULATED counters; it measures nothing about the machine.
// The rates and the multiplexing pattern are in docs/measurement.md.

#include <atomic>
#include <cstdint>
#include <span>
#include <string_view>
#include <vector>

#include "probes/event_spec.h"

namespace nf::probes {

struct SimulatedPmu {
    // Multiplexing: every simulated counter counts during the first `running` fraction of each
    // period of `periodMs`, counted from the group's open (1 = never multiplexed).
    double running = 1.0;
    double periodMs = 1.0;
    int failRead = 0;  // the n-th read of every group fails (EIO); 0 = never
    double tscHz = 0;  // TSC ticks per second, for the period
    // The workload's cumulative operation count (calls, packets), advanced by the harness; null
    // counts no operations. A target sees `operationsShare` of it (one of n counted CPUs: 1/n).
    const std::atomic<std::uint64_t>* operations = nullptr;
    double operationsShare = 1.0;
};

// A simulated count per TSC tick the counter runs, plus per operation done while it runs.
struct SimulatedRate {
    std::string_view event;
    double perTick;
    double perOperation;
};
std::span<const SimulatedRate> simulatedRates();

// Whether the simulated PMU makes `spec` up (the five generic hardware events above).
bool isSimulatedEvent(const EventSpec& spec);

// The made-up counts of one counter group: raw counts and the group's time enabled and running, in
// TSC ticks, advanced to now at every read.
class SimulatedCounters {
public:
    explicit SimulatedCounters(const SimulatedPmu& pmu);

    // Adds a counter for `spec` (isSimulatedEvent) written at `slot` of a reading.
    void add(const EventSpec& spec, std::size_t slot);
    std::size_t size() const { return m_counters.size(); }
    void setSlot(std::size_t counter, std::size_t slot) { m_counters[counter].slot = slot; }
    std::size_t slot(std::size_t counter) const { return m_counters[counter].slot; }

    // Advances to now and writes every counter at its slot; false on the configured failing read.
    bool read(std::vector<std::uint64_t>& value, std::vector<std::uint64_t>& enabled,
              std::vector<std::uint64_t>& running) const;

    // Ticks counted (running) of [0, t) since the open, under the multiplexing pattern.
    double runningTicks(double t) const;

private:
    struct Counter {
        const SimulatedRate* rate = nullptr;
        std::size_t slot = 0;
    };
    SimulatedPmu m_pmu;
    std::vector<Counter> m_counters;
    std::uint64_t m_start = 0;
    double m_periodTicks = 0;
    // Advanced by read(): the state at the last read.
    mutable std::vector<double> m_raw;
    mutable double m_lastTicks = 0;
    mutable double m_lastOperations = 0;
    mutable int m_reads = 0;
};

}  // namespace nf::probes
