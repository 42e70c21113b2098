#include "engine/model/metric.h"

#include <algorithm>
#include <cmath>
#include <limits>

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
        {"tsc_per_op", "ticks/op", quantity::kTscTicks, quantity::kOps, 1.0, false,
         "TSC ticks per operation (fenced rdtscp around the loop)", ""},
        {"ns_per_op", "ns/op", quantity::kElapsedNs, quantity::kOps, 1.0, false,
         "nanoseconds per operation (TSC converted with the calibrated frequency)", "tsc_per_op"},
        {"ops_per_sec", "ops/s", quantity::kOps, quantity::kElapsedNs, 1e9, true, "operations per second",
         "tsc_per_op"},
        {"cycles_per_op", "cycles/op", "cycles", quantity::kOps, 1.0, false, "CPU cycles per operation", ""},
        {"instructions_per_op", "instr/op", "instructions", quantity::kOps, 1.0, false,
         "instructions retired per operation", ""},
        {"ipc", "instr/cycle", "instructions", "cycles", 1.0, true, "instructions per cycle", ""},
        {"branch_misses_per_op", "misses/op", "branch-misses", quantity::kOps, 1.0, false,
         "mispredicted branches per operation", ""},
        {"cache_misses_per_op", "misses/op", "cache-misses", quantity::kOps, 1.0, false,
         "last-level cache misses per operation", ""},
    };
    std::vector<MetricSpec> present;
    for (auto& m : all) {
        if (has(quantities, m.numerator) && has(quantities, m.denominator)) {
            present.push_back(std::move(m));
        }
    }
    return present;
}

std::vector<MetricSpec> liveMetrics(const std::vector<std::string>& quantities)
{
    std::vector<MetricSpec> all = {
        {"pps", "packets/s", quantity::kPackets, quantity::kElapsedNs, 1e9, true, "packets received per second", ""},
        {"bytes_per_sec", "bytes/s", quantity::kBytes, quantity::kElapsedNs, 1e9, true,
         "payload bytes received per second", ""},
        {"drops_per_sec", "drops/s", quantity::kDrops, quantity::kElapsedNs, 1e9, false,
         "packets dropped per second by the receiving socket or device", ""},
        {"gen_pps", "packets/s", quantity::kGenPackets, quantity::kElapsedNs, 1e9, true,
         "packets the generator sent per second", ""},
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
    for (const auto* prefix : {quantity::kThreadPrefix, quantity::kCpuPrefix}) {
        const std::string p = prefix;
        const std::string where = p == quantity::kThreadPrefix ? "on the receiver thread" : "on the counter CPUs";
        for (const auto& q : quantities) {
            if (q.rfind(p, 0) != 0) {
                continue;
            }
            std::string name = q + "_per_packet";
            std::replace(name.begin(), name.end(), '-', '_');
            std::replace(name.begin(), name.end(), ':', '_');
            all.push_back({name, "per packet", q, quantity::kPackets, 1.0, false,
                           q.substr(p.size()) + " " + where + " per packet received", ""});
        }
        all.push_back({p + "ipc", "instr/cycle", p + "instructions", p + "cycles", 1.0, true,
                       "instructions per cycle " + where, ""});
    }
    std::vector<MetricSpec> present;
    for (auto& m : all) {
        if (has(quantities, m.numerator) && has(quantities, m.denominator)) {
            present.push_back(std::move(m));
        }
    }
    return present;
}

std::optional<double> metricValue(const MetricSpec& metric, const std::vector<std::string>& quantities,
                                  const std::vector<const std::vector<double>*>& rows)
{
    const auto num = std::find(quantities.begin(), quantities.end(), metric.numerator);
    const auto den = std::find(quantities.begin(), quantities.end(), metric.denominator);
    if (num == quantities.end() || den == quantities.end() || rows.empty()) {
        return std::nullopt;
    }
    const auto ni = static_cast<std::size_t>(num - quantities.begin());
    const auto di = static_cast<std::size_t>(den - quantities.begin());
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
