#include "engine/import/rate_join.h"

#include <algorithm>
#include <cmath>
#include <regex>

#include <fmt/format.h>

#include "engine/model/metric.h"

namespace nf::engine {

const char* const kPacketRateForms = "22.8Mpps, 22.8 Mpps, 850Kpps, 1.2e6pps or 22800000";

namespace {

// The most packets per second one receiver is credited with: a 400 Gb/s link carries about 600
// Mpps of minimal frames, so a figure above this is a typo or another unit.
constexpr double kMostPps = 1e10;

// The length of a rate file may differ from the block's elapsed time by this share of it.
constexpr double kLengthTolerance = 0.10;

// The counters that mean something per packet, in the order the metrics follow.
constexpr const char* kPerPacketCounters[] = {"cycles", "instructions", "branches", "branch-misses"};

// The packet-rate metrics of the rate tools' tables, in the order they are preferred: what was received,
// else what was sent (pktgen, xdpsock txonly).
constexpr const char* kRateMetrics[] = {"rx_pps", "pps", "tx_pps", "xmit_pps"};

// "22.8 Mpps" from 22.8e6: the rate as a mail would write it.
std::string mpps(double pps)
{
    return pps >= 1e6 ? fmt::format("{:.6g} Mpps", pps / 1e6) : fmt::format("{:.6g} pps", pps);
}

std::string seconds(double s)
{
    return fmt::format("{:.6g} s", s);
}

std::string lower(std::string_view text)
{
    std::string out(text);
    std::transform(out.begin(), out.end(), out.begin(),
                   [](unsigned char c) { return static_cast<char>(std::tolower(c)); });
    return out;
}

double sampleValue(const ImportTable& table, const ImportSample& s, const std::string& quantity)
{
    const int q = table.layout.quantityIndex(quantity);
    return q < 0 ? std::nan("") : s.values[static_cast<std::size_t>(q)];
}

}  // namespace

Result<PacketRate> packetRateFigure(std::string_view text)
{
    const std::string given(text);
    const auto refused = [&](const std::string& why) {
        return Error{"--rate '" + given + "': " + why + " (give packets per second: " + kPacketRateForms +
                     ", or a file of xdpsock, xdp-bench, sar -n DEV or pktgen output)"};
    };
    static const std::regex re(
        R"(\s*((?:\d{1,3}(?:,\d{3})+|\d+)(?:\.\d+)?(?:[eE][+-]?\d+)?|\.\d+)\s*([kKMG]?)\s*([A-Za-z/]*)\s*)");
    std::smatch m;
    if (!std::regex_match(given, m, re)) {
        return refused("not a packet rate");
    }
    const std::string unit = lower(m[3].str());
    if (m[2].str().empty() && unit == "mpps") {
        return refused("m is milli; M is million (22.8Mpps)");
    }
    if (!unit.empty() && unit != "pps" && unit != "packets/s" && unit != "pkt/s") {
        return refused("'" + m[3].str() + "' is not a unit of packets per second");
    }
    const auto number = parseNumber(m[1].str(), true);
    if (!number) {
        return refused("not a number it can hold");
    }
    const std::string prefix = m[2].str();
    const double scale = prefix == "M" ? 1e6 : prefix == "G" ? 1e9 : prefix.empty() ? 1.0 : 1e3;
    const double pps = *number * scale;
    if (!(pps > 0) || !std::isfinite(pps)) {
        return refused("not a rate above zero");
    }
    if (pps > kMostPps) {
        return refused("more than " + mpps(kMostPps) + ", more than one machine receives");
    }
    PacketRate rate;
    rate.pps = pps;
    rate.what = "given as --rate " + std::string(trim(given));
    rate.origin = {{"figure", std::string(trim(given))}, {"pps", pps}};
    return rate;
}

Result<PacketRate> packetRateOfFile(const ImportSource& src, const ImportOptions& options)
{
    const auto* format = NF_TRY(detectImportFormat(src));
    const auto table = NF_TRY(parseImportFiles(*format, {src}, options));
    const auto* metric = [&]() -> const MetricSpec* {
        for (const char* name : kRateMetrics) {
            for (const auto& m : table.layout.metrics) {
                if (m.name == name) {
                    return &m;
                }
            }
        }
        return nullptr;
    }();
    if (metric == nullptr) {
        return importError(src, 0,
                           format->name +
                               " output, which gives no packet rate: --rate takes xdpsock, xdp-bench, "
                               "sar -n DEV or pktgen output");
    }
    if (table.repetitions.size() != 1) {
        return importError(src, 0,
                           std::to_string(table.repetitions.size()) + " runs of " + format->name +
                               ": --rate takes the rate of the one run the perf stat block counted");
    }
    PacketRate rate;
    std::vector<const std::vector<double>*> rows;
    const auto& samples = table.repetitions.front();
    for (const auto& s : samples) {
        rows.push_back(&s.values);
        rate.seconds += s.duration;
        // Intervals added up cover a span only to within one of them; one sample is its own length.
        rate.period = samples.size() > 1 ? std::max(rate.period, s.duration) : 0.0;
    }
    // The first rate that counted packets: an rxdrop file's tx_pps is all zeros.
    for (const char* name : kRateMetrics) {
        const auto it = std::find_if(table.layout.metrics.begin(), table.layout.metrics.end(),
                                     [&](const MetricSpec& m) { return m.name == name; });
        if (it == table.layout.metrics.end()) {
            continue;
        }
        if (const auto v = metricValue(*it, table.layout.quantities, rows); v && *v > 0) {
            rate.pps = *v;
            metric = &*it;
            break;
        }
    }
    if (!(rate.pps > 0)) {
        return importError(src, 0, format->name + " output in which no packet was counted (" + metric->name + " 0)");
    }
    const std::string tool = table.tool.empty() ? format->name : table.tool;
    rate.what = metric->name + " of " + tool + " output in " + src.path;
    rate.origin = {{"file", src.path},       {"tool", tool},    {"format", format->name},
                   {"metric", metric->name}, {"pps", rate.pps}, {"detected", table.detected}};
    if (rate.seconds > 0) {
        rate.origin["seconds"] = rate.seconds;
    }
    return rate;
}

Result<ImportTable> joinPacketRate(ImportTable counters, const PacketRate& rate)
{
    if (counters.summarised()) {
        return Error{
            "--rate: perf stat -r summaries hold the runs' means, not the counts of the run the rate was "
            "measured in: join a rate with a single perf stat run"};
    }
    if (counters.repetitions.size() != 1 || counters.repetitions.front().size() != 1) {
        return Error{"--rate: " + std::to_string(counters.repetitions.size()) +
                     " perf stat runs (or -I intervals): one rate joins the block of the one run it was measured in; "
                     "import each run with its own --rate"};
    }
    auto& sample = counters.repetitions.front().front();
    const double elapsed = sampleValue(counters, sample, "time_elapsed");
    if (!(elapsed > 0)) {
        return Error{
            "--rate: the perf stat output has no 'seconds time elapsed' (-x, and --json print none): "
            "the packets the counters saw cannot be counted without it"};
    }
    if (rate.seconds > 0) {
        const bool byPeriod = rate.period > kLengthTolerance * elapsed;
        if (std::fabs(rate.seconds - elapsed) > std::max(kLengthTolerance * elapsed, rate.period)) {
            return Error{"--rate: the rate was measured over " + seconds(rate.seconds) + " (" + rate.what +
                         "), the perf stat block over " + seconds(elapsed) + ": more than " +
                         (byPeriod ? "one of the rate's intervals" : "10%") +
                         " apart, so not the same run; give the rate of the block's run"};
        }
    }
    std::vector<std::string> counted;
    for (const char* c : kPerPacketCounters) {
        if (counters.layout.quantityIndex(c) >= 0 && std::isfinite(sampleValue(counters, sample, c))) {
            counted.emplace_back(c);
        }
    }
    if (counted.empty()) {
        return Error{
            "--rate: the perf stat block counted none of cycles, instructions, branches and branch-misses: "
            "nothing to give per packet"};
    }
    const double packets = rate.pps * elapsed;
    counters.layout.quantities.emplace_back(quantity::kPackets);
    sample.values.push_back(packets);
    // The per-packet metrics follow the primary metric, which stays what the counters alone answer.
    std::vector<MetricSpec> perPacket;
    perPacket.reserve(counted.size());
    for (const auto& c : counted) {
        perPacket.push_back({.name = perPacketMetricName(c),
                             .unit = "per packet",
                             .numerator = c,
                             .denominator = quantity::kPackets,
                             .description = c +
                                            " per packet, the packets from a rate measured apart from the "
                                            "counters (" +
                                            rate.what + ")",
                             .title = c + " per packet"});
    }
    auto& metrics = counters.layout.metrics;
    metrics.insert(metrics.begin() + (metrics.empty() ? 0 : 1), perPacket.begin(), perPacket.end());
    counters.detected += ", packets from --rate " + mpps(rate.pps) + " measured apart";
    counters.notes.push_back(fmt::format(
        "packets = {} x {} elapsed = {:.0f}: the per-packet counters rest on a packet rate measured apart from "
        "them ({}), not counted with them",
        mpps(rate.pps), seconds(elapsed), packets, rate.what));
    if (rate.origin.contains("file") && !(rate.seconds > 0)) {
        counters.notes.push_back("the rate's " + rate.origin.value("tool", std::string()) +
                                 " output does not say how long it measured: its length could not be held against "
                                 "the block's " +
                                 seconds(elapsed));
    }
    counters.rate = rate.origin;
    counters.rate["packets"] = packets;
    counters.rate["elapsed"] = elapsed;
    counters.read("rate pps", rate.pps);
    counters.read("packets", packets);
    return counters;
}

}  // namespace nf::engine
