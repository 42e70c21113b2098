#include "engine/model/metric.h"

#include <algorithm>
#include <cctype>
#include <cmath>
#include <limits>

#include "base/default_counters.h"

namespace nf::engine {

namespace {

bool has(const std::vector<std::string>& quantities, const std::string& name)
{
    return std::find(quantities.begin(), quantities.end(), name) != quantities.end();
}

}  // namespace

std::vector<MetricSpec> callLoopMetrics(const std::vector<std::string>& quantities)
{
    std::vector<MetricSpec> all = {
        {.name = "tsc_per_op",
         .unit = "ticks/op",
         .numerator = quantity::kTscTicks,
         .denominator = quantity::kOps,
         .description = "TSC ticks per operation (fenced rdtscp around the loop)",
         .title = "TSC ticks per op"},
        {.name = "ns_per_op",
         .unit = "ns/op",
         .numerator = quantity::kElapsedNs,
         .denominator = quantity::kOps,
         .description = "nanoseconds per operation (TSC converted with the calibrated frequency)",
         .aliasOf = "tsc_per_op"},
        {.name = "ops_per_sec",
         .unit = "ops/s",
         .numerator = quantity::kOps,
         .denominator = quantity::kElapsedNs,
         .scale = 1e9,
         .higherIsBetter = true,
         .description = "operations per second",
         .aliasOf = "tsc_per_op",
         .title = "PPS"},
        {.name = "cycles_per_op",
         .unit = "cycles/op",
         .numerator = "cycles",
         .denominator = quantity::kOps,
         .description = "CPU cycles per operation",
         .title = "cycles per op"},
        {.name = "instructions_per_op",
         .unit = "instr/op",
         .numerator = "instructions",
         .denominator = quantity::kOps,
         .description = "instructions retired per operation"},
        {.name = "ipc",
         .unit = "instr/cycle",
         .numerator = "instructions",
         .denominator = "cycles",
         .higherIsBetter = true,
         .description = "instructions per cycle",
         .title = "IPC"},
        {.name = "branch_misses_per_op",
         .unit = "misses/op",
         .numerator = "branch-misses",
         .denominator = quantity::kOps,
         .description = "mispredicted branches per operation",
         .title = "branch misses per op"},
        {.name = "cache_misses_per_op",
         .unit = "misses/op",
         .numerator = "cache-misses",
         .denominator = quantity::kOps,
         .description = "last-level cache misses per operation"},
    };
    std::vector<MetricSpec> present;
    for (auto& m : all) {
        if (has(quantities, m.numerator) && has(quantities, m.denominator)) {
            present.push_back(std::move(m));
        }
    }
    return present;
}

namespace {

// A quantity's name as a metric name: "cpu0_task-clock" -> "cpu0_task_clock".
std::string metricName(std::string name)
{
    std::replace(name.begin(), name.end(), '-', '_');
    std::replace(name.begin(), name.end(), ':', '_');
    return name;
}

int breakdownCpuOf(const std::string& name);

// Where the packets and cycles went: each counted CPU's counters per packet received, its
// softnet work per second and its time in tasks, softirqs and idle as a share (cpuN_...), and the receiving device's
// own statistics per second (dev_...).
void addBreakdownMetrics(const std::vector<std::string>& quantities, std::vector<MetricSpec>& all)
{
    for (const auto& q : quantities) {
        const int cpu = breakdownCpuOf(q);
        if (q.rfind(quantity::kDevicePrefix, 0) == 0) {
            all.push_back({.name = metricName(q + "_per_sec"),
                           .unit = "1/s",
                           .numerator = q,
                           .denominator = quantity::kElapsedNs,
                           .scale = 1e9,
                           .description = "the receiving device's " + q.substr(4) + " (ethtool -S), per second"});
        } else if (cpu >= 0 && q.find("_softnet_") != std::string::npos) {
            all.push_back({.name = metricName(q + "_per_sec"),
                           .unit = "1/s",
                           .numerator = q,
                           .denominator = quantity::kElapsedNs,
                           .scale = 1e9,
                           .description = "CPU " + std::to_string(cpu) + " " + q.substr(q.find("_softnet_") + 1) +
                                          " (/proc/net/softnet_stat), per second"});
        } else if (cpu >= 0 && q.find("_time_") != std::string::npos) {
            const std::string what = q.substr(q.find("_time_") + 6);
            all.push_back({.name = metricName(q.substr(0, q.find("_time_")) + "_" + what + "_pct"),
                           .unit = "%",
                           .numerator = q,
                           .denominator = quantity::kElapsedNs,
                           .scale = 100,
                           .description = "share of CPU " + std::to_string(cpu) + "'s time " +
                                          (what == "task"      ? std::string("in tasks (user and system)")
                                           : what == "softirq" ? std::string("in interrupts and softirqs")
                                                               : std::string("idle")) +
                                          " (/proc/stat)"});
        } else if (cpu >= 0) {
            all.push_back(
                {.name = perPacketMetricName(q),
                 .unit = "per packet",
                 .numerator = q,
                 .denominator = quantity::kPackets,
                 .description = q.substr(q.find('_') + 1) + " on CPU " + std::to_string(cpu) + " per packet received"});
        }
    }
}

int breakdownCpuOf(const std::string& name)
{
    if (name.size() < 5 || name.rfind("cpu", 0) != 0 || std::isdigit(static_cast<unsigned char>(name[3])) == 0) {
        return -1;
    }
    std::size_t end = 3;
    while (end < name.size() && std::isdigit(static_cast<unsigned char>(name[end])) != 0) {
        ++end;
    }
    if (end >= name.size() || name[end] != '_' || end - 3 > 4) {
        return -1;
    }
    return std::stoi(name.substr(3, end - 3));
}

}  // namespace

std::string perPacketMetricName(const std::string& quantity)
{
    return metricName(quantity + "_per_packet");
}

int breakdownCpu(const std::string& name)
{
    return breakdownCpuOf(name);
}

bool isBreakdown(const MetricSpec& metric)
{
    return breakdownCpu(metric.name) >= 0 || metric.name.rfind(quantity::kDevicePrefix, 0) == 0;
}

std::vector<MetricSpec> liveMetrics(const std::vector<std::string>& quantities)
{
    std::vector<MetricSpec> all = {
        {.name = "pps",
         .unit = "packets/s",
         .numerator = quantity::kPackets,
         .denominator = quantity::kElapsedNs,
         .scale = 1e9,
         .higherIsBetter = true,
         .description = "packets received per second",
         .title = "PPS"},
        {.name = "bytes_per_sec",
         .unit = "bytes/s",
         .numerator = quantity::kBytes,
         .denominator = quantity::kElapsedNs,
         .scale = 1e9,
         .higherIsBetter = true,
         .description = "payload bytes received per second"},
        {.name = "drops_per_sec",
         .unit = "drops/s",
         .numerator = quantity::kDrops,
         .denominator = quantity::kElapsedNs,
         .scale = 1e9,
         .description = "packets dropped per second by the receiving socket or device"},
        {.name = "offered_pps",
         .unit = "packets/s",
         .numerator = quantity::kOfferedPackets,
         .denominator = quantity::kElapsedNs,
         .scale = 1e9,
         .higherIsBetter = true,
         .description = "packets the generator offered per second (sent, or XDP_TX verdicts)"},
    };
    // xdp-rx's statistics, each as a rate per second.
    const std::pair<const char*, const char*> rates[] = {
        {quantity::kXskRxDropped, "frames the AF_XDP socket dropped (no fill-ring frame, too big)"},
        {quantity::kXskRxInvalidDescs, "invalid descriptors on the RX side"},
        {quantity::kXskRxRingFull, "frames dropped because the RX ring was full"},
        {quantity::kXskRxFillRingEmpty, "times the kernel found the fill ring empty"},
        {quantity::kXskTxInvalidDescs, "invalid descriptors on the TX ring"},
        {quantity::kAppEmptyPolls, "application passes that found the RX ring empty"},
        {quantity::kAppFillFailures, "application passes without room on the fill (l2fwd: TX) ring"},
        {quantity::kAppTxPackets, "frames l2fwd sent back (completed)"},
        {quantity::kReturnedPackets, "frames that arrived back on the sending end"},
    };
    for (const auto& [q, what] : rates) {
        const bool sent = std::string(q) == quantity::kAppTxPackets || std::string(q) == quantity::kReturnedPackets;
        all.push_back({std::string(q) + "_per_sec", "1/s", q, quantity::kElapsedNs, 1e9, sent,
                       std::string(what) + ", per second", ""});
    }
    // The per-packet counters the GUI's panels show, by title.
    const std::pair<const char*, const char*> titled[] = {{"cycles", "cycles per packet"},
                                                          {"branch-misses", "branch misses per packet"}};
    for (const auto* prefix : {quantity::kThreadPrefix, quantity::kCpuPrefix}) {
        const std::string p = prefix;
        const bool thread = p == quantity::kThreadPrefix;
        const std::string where = thread ? "on the receiver thread" : "on the counter CPUs";
        const std::string titleWhere = thread ? ", receiver thread" : ", counted CPUs";
        for (const auto& q : quantities) {
            if (q.rfind(p, 0) != 0) {
                continue;
            }
            std::string name = perPacketMetricName(q);
            std::string title;
            for (const auto& [counter, what] : titled) {
                title = q.substr(p.size()) == counter ? what + titleWhere : title;
            }
            all.push_back({.name = name,
                           .unit = "per packet",
                           .numerator = q,
                           .denominator = quantity::kPackets,
                           .description = q.substr(p.size()) + " " + where + " per packet received",
                           .title = title});
        }
        all.push_back({.name = p + "ipc",
                       .unit = "instr/cycle",
                       .numerator = p + "instructions",
                       .denominator = p + "cycles",
                       .higherIsBetter = true,
                       .description = "instructions per cycle " + where,
                       .title = "IPC" + titleWhere});
    }
    addBreakdownMetrics(quantities, all);
    std::vector<MetricSpec> present;
    for (auto& m : all) {
        if (has(quantities, m.numerator) && has(quantities, m.denominator)) {
            present.push_back(std::move(m));
        }
    }
    return present;
}

std::vector<MetricSpec> importedCounterMetrics(const std::vector<std::string>& quantities)
{
    std::vector<MetricSpec> all = {
        {.name = "ipc",
         .unit = "instr/cycle",
         .numerator = "instructions",
         .denominator = "cycles",
         .higherIsBetter = true,
         .description = "instructions per cycle (perf stat's insn per cycle)",
         .title = "IPC"},
        {.name = "branch_miss_ratio",
         .unit = "misses/branch",
         .numerator = "branch-misses",
         .denominator = "branches",
         .description = "mispredicted branches per branch (perf stat's % of all branches, as a fraction)",
         .title = "branch misses per branch"},
    };
    std::vector<MetricSpec> present;
    for (auto& m : all) {
        if (has(quantities, m.numerator) && has(quantities, m.denominator)) {
            present.push_back(std::move(m));
        }
    }
    return present;
}

std::string metricTitle(const std::string& name)
{
    std::vector<std::string> callLoop = {quantity::kOps, quantity::kTscTicks, quantity::kElapsedNs};
    std::vector<std::string> live = {quantity::kPackets, quantity::kBytes, quantity::kDrops, quantity::kOfferedPackets,
                                     quantity::kElapsedNs};
    for (const auto& counter : base::defaultCounterNames(true)) {
        callLoop.push_back(counter);
        live.push_back(quantity::kThreadPrefix + counter);
        live.push_back(quantity::kCpuPrefix + counter);
    }
    for (const auto& list : {callLoopMetrics(callLoop), liveMetrics(live), importedCounterMetrics(callLoop)}) {
        for (const auto& m : list) {
            if (m.name == name) {
                return m.title;
            }
        }
    }
    return "";
}

std::optional<MetricColumns> metricColumns(const MetricSpec& metric, const std::vector<std::string>& quantities)
{
    const auto num = std::find(quantities.begin(), quantities.end(), metric.numerator);
    const auto den = std::find(quantities.begin(), quantities.end(), metric.denominator);
    if (num == quantities.end() || den == quantities.end()) {
        return std::nullopt;
    }
    return MetricColumns{static_cast<std::size_t>(num - quantities.begin()),
                         static_cast<std::size_t>(den - quantities.begin())};
}

std::optional<double> metricValue(const MetricSpec& metric, const std::vector<std::string>& quantities,
                                  const std::vector<const std::vector<double>*>& rows)
{
    const auto columns = metricColumns(metric, quantities);
    if (!columns || rows.empty()) {
        return std::nullopt;
    }
    const std::size_t ni = columns->numerator;
    const std::size_t di = columns->denominator;
    double sumNum = 0;
    double sumDen = 0;
    for (const auto* row : rows) {
        if (row->size() <= std::max(ni, di)) {
            return std::nullopt;
        }
        sumNum += (*row)[ni];
        sumDen += (*row)[di];
    }
    const double value = metricRatio(metric, sumNum, sumDen);
    return std::isnan(value) ? std::nullopt : std::optional<double>(value);
}

double metricRatio(const MetricSpec& metric, double numerator, double denominator)
{
    if (denominator == 0 || std::isnan(numerator) || std::isnan(denominator)) {
        return std::numeric_limits<double>::quiet_NaN();
    }
    return metric.scale * numerator / denominator;
}

}  // namespace nf::engine
