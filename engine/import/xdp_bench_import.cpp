// xdp-bench (xdp-tools lib/util/xdp_sample.c): one line per interval, then indented detail (-e):
//   Summary                 4,177,843 rx/s                  0 err,drop/s
//   veth0->veth1            4,177,843 rx/s                  0 err,drop/s          4,177,843 xmit/s
//     xmit veth0->veth1             0 xmit/s        16,153,329 drop/s       0 drv_err/s    16.00 bulk-avg

#include <map>
#include <regex>
#include <set>

#include "engine/import/import_format.h"
#include "engine/import/xdp_numbers.h"

namespace nf::engine {

namespace {

using xdp::numeric;
using xdp::RawNumbers;

struct BenchLine {
    std::string label;
    bool detail = false;
    std::vector<std::pair<std::size_t, std::string>> pairs;  // raw value index, unit ("rx/s")
    std::size_t line = 0;
};

bool knownDetail(const std::string& label)
{
    static const std::regex re(
        R"((receive total|cpu:\S+|enqueue to cpu \d+|kthread total|xdp_stats|redirect_err|redirect total|)"
        R"(xdp_exception|exception total|xmit \S+|devmap_xmit total|devmap_xmit \S+|\S+->\S+|\S+ \S+->\S+))");
    return std::regex_match(label, re);
}

Result<ImportTable> parseXdpBench(const ImportSource& src, const ImportOptions& /*options*/)
{
    if (auto line = binaryLine(src.text)) {
        return importError(src, line, "binary data, not xdp-bench output");
    }
    static const std::regex command(R"(xdp-bench\s+([a-z-]+))");
    RawNumbers raw;
    std::vector<BenchLine> rows;
    std::vector<std::pair<std::string, std::size_t>> totals;
    std::string mode;
    std::size_t modeLine = 0;
    const auto lines = splitLines(src.text);
    for (std::size_t i = 0; i < lines.size(); ++i) {
        const auto line = lines[i];
        const auto text = trim(line);
        const std::size_t number = i + 1;
        if (text.empty()) {
            continue;
        }
        std::smatch m;
        const std::string t(text);
        if (std::regex_search(t, m, command)) {
            if (!mode.empty() && m[1].str() != mode) {
                return importError(src, number,
                                   "xdp-bench " + m[1].str() + " after xdp-bench " + mode + " (line " +
                                       std::to_string(modeLine) + "): two modes in one file; import each separately");
            }
            mode = m[1].str();
            modeLine = number;
            continue;
        }
        const bool indented = line.front() == ' ' || line.front() == '\t';
        const auto words = splitWords(text);
        if (const auto colon = text.find(" : "); indented && colon != std::string_view::npos) {
            // The totals xdp-bench prints on exit: "  Packets received    : 12,345,678".
            const auto value = trim(text.substr(colon + 3));
            if (!numeric(value)) {
                return importError(src, number, "an xdp-bench total without its value: " + quoteLine(text));
            }
            totals.emplace_back("total " + std::string(trim(text.substr(0, colon))),
                                raw.add(value, number, NumberKind::Integer));
            continue;
        }
        BenchLine b;
        b.line = number;
        b.detail = indented;
        // The label is the words before the (value, unit) pairs: "enqueue to cpu 3" ends in a number.
        std::size_t w = 0;
        const bool topWord = !indented && (words[0] == "Summary" || words[0].find("->") != std::string_view::npos);
        if (topWord) {
            w = 1;  // "Summary", "eth0->eth1": one word
        } else {
            while (w < words.size() && !numeric(words[w])) {
                ++w;
            }
            while (w < words.size() && (words.size() - w) % 2 != 0) {
                ++w;
            }
        }
        for (std::size_t k = 0; k < w; ++k) {
            b.label += (b.label.empty() ? "" : " ") + std::string(words[k]);
        }
        const bool top = topWord;
        if (!indented && !top) {
            continue;  // text around the output: a prompt, "Redirecting from ...", kernel messages
        }
        if (indented && rows.empty()) {
            continue;  // indented text before the first interval
        }
        if ((words.size() - w) % 2 != 0 || w == words.size()) {
            return importError(src, number,
                               "not an xdp-bench line (a value without its unit, truncated?): " + quoteLine(text));
        }
        for (; w + 1 < words.size(); w += 2) {
            if (!numeric(words[w])) {
                return importError(src, number, "'" + std::string(words[w]) + "' is not a number: " + quoteLine(text));
            }
            const bool decimal = words[w + 1] == "bulk-avg";
            b.pairs.emplace_back(raw.add(words[w], number, decimal ? NumberKind::Decimal : NumberKind::Integer),
                                 std::string(words[w + 1]));
        }
        if (indented && !knownDetail(b.label)) {
            return importError(src, number, "an xdp-bench detail line it does not know: " + quoteLine(text));
        }
        if (top && (b.pairs.empty() || b.pairs.front().second != "rx/s")) {
            return importError(src, number, "an xdp-bench line without its rx/s value: " + quoteLine(text));
        }
        rows.push_back(std::move(b));
    }
    auto style = NF_TRY(raw.convert(src));
    ImportTable table;
    table.tool = mode.empty() ? "xdp-bench" : "xdp-bench " + mode;
    std::set<std::string> labels;
    std::map<std::string, std::size_t> seen;
    std::size_t details = 0;
    std::size_t xmitDetails = 0;
    std::size_t tops = 0;
    bool hasErr = false;
    bool hasXmit = false;
    for (const auto& b : rows) {
        if (!b.detail) {
            labels.insert(b.label);
            for (const auto& [v, unit] : b.pairs) {
                hasErr = hasErr || unit == "err,drop/s" || unit == "err/s";
                hasXmit = hasXmit || unit == "xmit/s";
            }
        }
    }
    if (labels.empty()) {
        return importError(src, 0, "no xdp-bench 'Summary' or 'DEV->DEV' lines in it");
    }
    if (labels.size() > 1) {
        std::string names;
        for (const auto& l : labels) {
            names += (names.empty() ? "" : ", ") + l;
        }
        return importError(src, 0, "lines of several devices (" + names + "): import one device's lines");
    }
    table.layout.quantities = {"rx_pps"};
    if (hasErr) {
        table.layout.quantities.emplace_back("err_drop_pps");
    }
    if (hasXmit) {
        table.layout.quantities.emplace_back("xmit_pps");
    }
    table.layout.quantities.emplace_back("intervals");
    table.layout.metrics = {
        {"rx_pps", "packets/s", "rx_pps", "intervals", 1.0, true, "xdp-bench rx/s, mean over intervals", ""}};
    if (hasErr) {
        table.layout.metrics.push_back({"err_drop_pps", "packets/s", "err_drop_pps", "intervals", 1.0, false,
                                        "xdp-bench err,drop/s: packets dropped or failed", ""});
    }
    if (hasXmit) {
        table.layout.metrics.push_back(
            {"xmit_pps", "packets/s", "xmit_pps", "intervals", 1.0, true, "xdp-bench xmit/s: packets sent on", ""});
    }
    std::vector<ImportSample> samples;
    double rxSum = 0;
    double errSum = 0;
    std::size_t row = 0;
    for (const auto& b : rows) {
        if (!b.detail) {
            ++row;
            ++tops;
            seen.clear();
        } else {
            ++details;
            xmitDetails += b.label.rfind("xmit ", 0) == 0 ? 1 : 0;
        }
        const std::string n = " row " + std::to_string(row);
        ImportSample s{0, std::vector<double>(table.layout.quantities.size(), 0.0)};
        s.values.back() = 1.0;
        for (const auto& [v, unit] : b.pairs) {
            const double x = raw[v];
            const std::string name = unit == "rx/s" ? "receive pps" : unit == "xmit/s" && !b.detail ? "xmit pps" : unit;
            if (!b.detail) {
                const std::string prefix = b.label == "Summary" ? "" : b.label + " ";
                table.read(prefix + name + n, x);
                table.read(name + n, x);
                const int q = table.layout.quantityIndex(unit == "rx/s"     ? "rx_pps"
                                                         : unit == "xmit/s" ? "xmit_pps"
                                                                            : "err_drop_pps");
                if (q < 0 || (unit != "rx/s" && unit != "xmit/s" && unit != "err,drop/s" && unit != "err/s")) {
                    return importError(src, b.line, "an xdp-bench rate it does not know: " + unit);
                }
                s.values[static_cast<std::size_t>(q)] = x;
                rxSum += unit == "rx/s" ? x : 0;
                errSum += unit == "err,drop/s" || unit == "err/s" ? x : 0;
            } else {
                table.read(b.label + " " + unit + n, x);
            }
        }
        if (!b.detail) {
            samples.push_back(std::move(s));
        }
    }
    for (const auto& [name, v] : totals) {
        table.read(name, raw[v]);
    }
    table.read("rows", static_cast<double>(tops));
    table.read("top-level lines", static_cast<double>(tops));
    table.read("detail lines", static_cast<double>(details));
    table.read("xmit detail lines", static_cast<double>(xmitDetails));
    table.detected = table.tool + ", " + std::to_string(tops) + " intervals" +
                     (details > 0 ? " with detail lines" : "") +
                     (style.decimal == ',' ? ", numbers in " + style.name() : "");
    if (hasErr && rxSum > 0 && errSum >= rxSum) {
        table.notes.emplace_back(
            "every packet received was dropped or failed (err,drop/s >= rx/s in every interval "
            "on average): the rx/s rate is not a rate of packets processed");
    }
    table.repetitions.push_back(std::move(samples));
    return checkedTable(src, std::move(table));
}

}  // namespace

ImportFormat importers::xdpBench()
{
    return {
        .name = "xdp-bench",
        .tools = {"xdp-bench"},
        .summary = "xdp-bench (xdp-tools) summary lines: rx/s, err,drop/s and xmit/s per interval",
        .detect = [](std::string_view text) { return detection::markedIf(contains(text, " rx/s")); },
        .parse = parseXdpBench,
        .dictionary = {"Summary", "veth0->veth1", "rx/s", "err,drop/s", "xmit/s", "4,177,843"},
    };
}

}  // namespace nf::engine
