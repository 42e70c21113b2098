#pragma once
// Metrics are ratios of summed raw quantities: tsc_per_op = sum(tsc_ticks) / sum(ops).
// The same definition gives a sample's value, a repetition's value and a variant's value, and
// never averages ratios.

#include <cstddef>
#include <optional>
#include <string>
#include <vector>

namespace nf::engine {

// Raw quantity names every sample of an in-process workload carries. Counter quantities are named
// after the counter ("cycles", "instructions", "branch-misses", ...).
namespace quantity {
inline constexpr const char* kOps = "ops";
inline constexpr const char* kTscTicks = "tsc_ticks";
inline constexpr const char* kElapsedNs = "elapsed_ns";
// Live workloads: what the receiver got, what the socket or device dropped, what the generator sent.
inline constexpr const char* kPackets = "packets";
inline constexpr const char* kBytes = "bytes";
inline constexpr const char* kDrops = "drops";
inline constexpr const char* kOfferedPackets = "offered_packets";
// Live chunks side by side: what every variant received in the guard before the chunk (not in
// any chunk), and the guard's length.
inline constexpr const char* kGuardPackets = "guard_packets";
inline constexpr const char* kGuardNs = "guard_ns";
// Live chunks side by side: where the variant was (udp-rx: its port, xdp-rx: its testbed, from 0);
// the variants trade places between the phases of each repetition.
inline constexpr const char* kPlace = "place";
// What a remote generator tried to send (sent plus what its kernel refused), two-host runs.
inline constexpr const char* kGenOffered = "gen_offered";
// xdp-rx: the AF_XDP socket's XDP_STATISTICS, the application's own statistics, and frames l2fwd
// sent back (completed on its TX ring, and arrived back on the sending end).
inline constexpr const char* kXskRxDropped = "xsk_rx_dropped";
inline constexpr const char* kXskRxInvalidDescs = "xsk_rx_invalid_descs";
inline constexpr const char* kXskRxRingFull = "xsk_rx_ring_full";
inline constexpr const char* kXskRxFillRingEmpty = "xsk_rx_fill_ring_empty_descs";
inline constexpr const char* kXskTxInvalidDescs = "xsk_tx_invalid_descs";
inline constexpr const char* kAppEmptyPolls = "app_empty_polls";
inline constexpr const char* kAppPolls = "app_polls";
inline constexpr const char* kAppFillFailures = "app_fill_failures";
inline constexpr const char* kAppTxPackets = "app_tx_packets";
inline constexpr const char* kReturnedPackets = "returned_packets";
// Prefixes of counter quantities in live runs: on the receiver thread, and summed over counter_cpus.
inline constexpr const char* kThreadPrefix = "rx_";
inline constexpr const char* kCpuPrefix = "cpu_";
// How long the receiver thread waited for its CPU, runnable (ns, from schedstat): a quantity of
// the validity rules, not a metric compared (it would join every live run's Holm family).
inline constexpr const char* kThreadRunDelay = "receiver_run_delay";
// The harness's own threads (the sampler, the recorder): their CPU time (ns) and how often they
// were put on a CPU, from schedstat; quantities of the report, on the measured CPUs when the
// machine has no other (--housekeeping).
inline constexpr const char* kHarnessCpuNs = "harness_cpu_ns";
inline constexpr const char* kHarnessWakeups = "harness_wakeups";
// Breakdowns of live runs: "cpu3_<counter>" and "cpu3_softnet_processed" (dropped, squeezed) per
// counted CPU, and "dev_<statistic>" from the receiving device's own statistics (ethtool -S).
inline constexpr const char* kDevicePrefix = "dev_";
// How much of a sample a hardware counter was counted: time running / time enabled (1 = all of it;
// below 1 it was multiplexed and its value is scaled). "counted:cycles", "counted:rx_cycles".
inline constexpr const char* kCountedPrefix = "counted:";
}  // namespace quantity

struct MetricSpec {
    std::string name{};         // "tsc_per_op"
    std::string unit{};         // "ticks/op"
    std::string numerator{};    // quantity name
    std::string denominator{};  // quantity name
    double scale = 1.0;         // value = scale * sum(numerator) / sum(denominator)
    bool higherIsBetter = false;
    std::string description{};
    std::string aliasOf{};  // another metric this one only converts (ns_per_op of tsc_per_op)
    std::string title{};    // what the GUI's panels call it ("IPC, receiver thread"); "" for none but the name
};

// The metrics every call-loop workload reports, in this order: tsc_per_op, ns_per_op,
// ops_per_sec, then per-op counter metrics (cycles_per_op, instructions_per_op, ipc,
// branch_misses_per_op, cache_misses_per_op) for those whose quantities are present.
std::vector<MetricSpec> callLoopMetrics(const std::vector<std::string>& quantities);

// The metrics of a live workload, in this order: pps, bytes_per_sec, drops_per_sec, offered_pps, the
// per-second rates of xdp-rx's socket and application statistics where present, then
// per-packet counter metrics for every rx_* and cpu_* counter quantity (rx_cycles_per_packet, ...)
// and rx_ipc / cpu_ipc where cycles and instructions are both present.
std::vector<MetricSpec> liveMetrics(const std::vector<std::string>& quantities);

// The metric of a counter quantity per packet received, named as every workload and import names it:
// "rx_branch-misses" -> "rx_branch_misses_per_packet", "cycles" -> "cycles_per_packet".
std::string perPacketMetricName(const std::string& quantity);

// The CPU a per-CPU breakdown quantity or metric is of ("cpu3_task-clock" -> 3), else -1.
int breakdownCpu(const std::string& name);
// A per-CPU or device breakdown: shown by `show` and exported, compared only when asked for by
// name (the default comparison keeps to the totals).
bool isBreakdown(const MetricSpec& metric);

// The metrics derived from imported counter events that carry their perf names, in this order:
// ipc (instructions / cycles) and branch_miss_ratio (branch-misses / branches), where both
// quantities are present. The raw events stay metrics of their own beside them.
std::vector<MetricSpec> importedCounterMetrics(const std::vector<std::string>& quantities);

// The title of a standard metric (one of the lists above) by its name, for metrics read back from a
// store, which keeps no titles; "" when the metric has none.
std::string metricTitle(const std::string& name);

// scale * numerator / denominator of already summed quantities; NaN where undefined (a zero
// denominator or a missing value).
double metricRatio(const MetricSpec& metric, double numerator, double denominator);

// A metric's numerator and denominator as columns of a run's quantities, found by name once so
// that code over many samples indexes columns instead of looking names up per sample.
struct MetricColumns {
    std::size_t numerator = 0;
    std::size_t denominator = 0;
};
// nullopt when either quantity is not among `quantities`.
std::optional<MetricColumns> metricColumns(const MetricSpec& metric, const std::vector<std::string>& quantities);

// Value of `metric` over rows of quantities (each row laid out like `quantities`); nullopt when a
// quantity is missing or the denominator sums to zero.
std::optional<double> metricValue(const MetricSpec& metric, const std::vector<std::string>& quantities,
                                  const std::vector<const std::vector<double>*>& rows);

}  // namespace nf::engine
