// AF_XDP and XDP benchmark tools that print one block of rates per interval.
//
// xdpsock (kernel samples/bpf, bpf-examples AF_XDP-example), with thousands separators:
//    sock0@veth0:0 rxdrop xdp-skb
//                     pps            pkts           1.00
//   rx                 1,234,567      12,345,678
//   tx                 0              0
// xdp-bench (xdp-tools lib/util/xdp_sample.c), one summary line per interval, then indented detail:
//   Summary                 4,177,843 rx/s                  0 err,drop/s
//   veth0->veth1            4,177,843 rx/s                  0 err,drop/s          4,177,843 xmit/s

#include "engine/import/import_format.h"

namespace nf::engine {
namespace {

struct XdpsockInterval {
    double seconds = 0;
    double rx = 0;  // pps summed over sockets
    double tx = 0;
};

bool isStatsRow(const std::vector<std::string_view>& words, std::size_t& labelWords)
{
    // A label of one or more words, then numbers.
    labelWords = 0;
    while (labelWords < words.size() && !parseNumber(words[labelWords], true)) {
        ++labelWords;
    }
    return labelWords > 0 && labelWords < words.size();
}

}  // namespace

Result<ImportTable> parseXdpsock(const ImportSource& src, const ImportOptions& /*options*/)
{
    if (auto line = binaryLine(src.text)) {
        return importError(src, line, "binary data, not xdpsock output");
    }
    std::vector<XdpsockInterval> intervals;
    bool inInterval = false;
    bool sawRx = false;
    const auto lines = splitLines(src.text);
    for (std::size_t i = 0; i < lines.size(); ++i) {
        const auto text = trim(lines[i]);
        const auto words = splitWords(text);
        const std::size_t number = i + 1;
        if (words.empty()) {
            continue;
        }
        if (text.rfind("sock", 0) == 0 && text.find('@') != std::string_view::npos) {
            // A new interval starts with sock0; further sockets add to it.
            if (text.rfind("sock0@", 0) == 0 || !inInterval) {
                intervals.emplace_back();
                inInterval = true;
            }
            sawRx = false;
            continue;
        }
        if (words[0] == "pps" && words.size() == 3 && words[1] == "pkts") {
            auto seconds = parseNumber(words[2]);
            if (!inInterval || !seconds || *seconds <= 0) {
                return importError(src, number, "an interval header without its socket or period: " + quoteLine(text));
            }
            intervals.back().seconds = *seconds;
            continue;
        }
        if ((words[0] == "calls/s" || words[0] == "intrs/s") && words.size() == 2) {
            continue;
        }
        std::size_t label = 0;
        if (!isStatsRow(words, label) || words.size() != label + 2) {
            return importError(src, number, "not an xdpsock statistics line: " + quoteLine(text));
        }
        auto pps = parseNumber(words[label], true);
        if (!inInterval || intervals.back().seconds <= 0) {
            return importError(src, number, "a statistics line outside an interval: " + quoteLine(text));
        }
        if (label == 1 && words[0] == "rx") {
            intervals.back().rx += *pps;
            sawRx = true;
        } else if (label == 1 && words[0] == "tx") {
            intervals.back().tx += *pps;
        }
    }
    if (intervals.empty()) {
        return importError(src, 0, "no xdpsock intervals in it");
    }
    if (!sawRx || intervals.back().seconds <= 0) {
        return importError(src, lines.size(), "the last interval is incomplete (truncated?)");
    }
    ImportTable table;
    table.layout.quantities = {"rx_packets", "tx_packets", "seconds"};
    table.layout.metrics = {
        {"rx_pps", "packets/s", "rx_packets", "seconds", 1.0, true, "AF_XDP packets received per second", ""},
        {"tx_pps", "packets/s", "tx_packets", "seconds", 1.0, true, "AF_XDP packets sent per second", ""},
    };
    std::vector<ImportSample> samples;
    samples.reserve(intervals.size());
    for (const auto& iv : intervals) {
        samples.push_back({iv.seconds, {iv.rx * iv.seconds, iv.tx * iv.seconds, iv.seconds}});
    }
    table.repetitions.push_back(std::move(samples));
    return checkedTable(src, std::move(table));
}

Result<ImportTable> parseXdpBench(const ImportSource& src, const ImportOptions& /*options*/)
{
    if (auto line = binaryLine(src.text)) {
        return importError(src, line, "binary data, not xdp-bench output");
    }
    std::vector<ImportSample> samples;
    const auto lines = splitLines(src.text);
    for (std::size_t i = 0; i < lines.size(); ++i) {
        const auto line = lines[i];
        const auto text = trim(line);
        if (text.empty() || line.front() == ' ' || line.front() == '\t') {
            continue;  // detail lines (receive total, cpu:N) and the final totals
        }
        const auto words = splitWords(text);
        const bool summary = words[0] == "Summary" || words[0].find("->") != std::string_view::npos;
        auto rx = std::find(words.begin(), words.end(), std::string_view("rx/s"));
        if (!summary) {
            continue;  // "Dropping packets on veth0 (ifindex 5; driver veth)" and similar
        }
        if (rx == words.end() || rx == words.begin() + 1) {
            return importError(src, i + 1, "a summary line without its rx/s value (truncated?): " + quoteLine(text));
        }
        auto value = parseNumber(*(rx - 1), true);
        if (!value) {
            return importError(src, i + 1, "'" + std::string(*(rx - 1)) + "' is not a packet rate");
        }
        samples.push_back({0, {*value, 1.0}});
    }
    if (samples.empty()) {
        return importError(src, 0, "no xdp-bench summary lines in it");
    }
    ImportTable table;
    table.layout.quantities = {"rx_pps", "intervals"};
    table.layout.metrics = {
        {"rx_pps", "packets/s", "rx_pps", "intervals", 1.0, true, "xdp-bench rx/s, mean over intervals", ""}};
    table.repetitions.push_back(std::move(samples));
    return checkedTable(src, std::move(table));
}

}  // namespace nf::engine
