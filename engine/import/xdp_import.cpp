// AF_XDP and XDP benchmark tools that print one block of rates per interval.
//
// xdpsock (kernel samples/bpf, bpf-examples AF_XDP-example), pps and pkts grouped by the locale:
//    sock0@veth0:0 rxdrop xdp-skb
//                     pps            pkts           1.00
//   rx                 1,234,567      12,345,678
//   tx                 0              0
// then, with -a, "calls/s count" application statistics, with -x driver statistics, with -T the
// "period min ave max cycle" table. On exit it prints a last block whose period is 0.00.
// xdp-bench (xdp-tools lib/util/xdp_sample.c), one line per interval, then indented detail (-e):
//   Summary                 4,177,843 rx/s                  0 err,drop/s
//   veth0->veth1            4,177,843 rx/s                  0 err,drop/s          4,177,843 xmit/s
//     xmit veth0->veth1             0 xmit/s        16,153,329 drop/s       0 drv_err/s    16.00 bulk-avg

#include <map>
#include <regex>
#include <set>

#include "engine/import/import_format.h"

namespace nf::engine {
namespace {

struct Raw {
    std::string text;
    std::size_t line = 0;
    NumberKind kind = NumberKind::Integer;
};

// Raw tokens read first, converted once the file's number style is known.
class RawNumbers {
public:
    std::size_t add(std::string_view text, std::size_t line, NumberKind kind)
    {
        m_raw.push_back({std::string(text), line, kind});
        m_vote.see(text, line, kind);
        return m_raw.size() - 1;
    }
    Result<NumberStyle> convert(const ImportSource& src)
    {
        auto style = m_vote.decide(src);
        if (!style) {
            return style.error();
        }
        for (const auto& r : m_raw) {
            NumberStyle s = *style;
            if (r.kind == NumberKind::Decimal) {
                s.group = 0;
            }
            auto v = parseStyled(r.text, s);
            if (!v) {
                return importError(src, r.line, "'" + r.text + "' is not a number in the file's " + style->name());
            }
            m_values.push_back(*v);
        }
        return *style;
    }
    double operator[](std::size_t i) const { return m_values.at(i); }

private:
    std::vector<Raw> m_raw;
    std::vector<double> m_values;
    NumberStyleVote m_vote;
};

bool numeric(std::string_view w)
{
    return !w.empty() && std::isdigit(static_cast<unsigned char>(w.front())) != 0 &&
           w.find_first_not_of("0123456789.,'") == std::string_view::npos;
}

// A row: a label of words, then numbers.
bool splitRow(const std::vector<std::string_view>& words, std::string& label, std::vector<std::string_view>& values)
{
    std::size_t i = 0;
    while (i < words.size() && !numeric(words[i])) {
        label += (label.empty() ? "" : " ") + std::string(words[i]);
        ++i;
    }
    values.assign(words.begin() + static_cast<std::ptrdiff_t>(i), words.end());
    return !label.empty() && !values.empty() &&
           std::all_of(values.begin(), values.end(), [](std::string_view w) { return numeric(w); });
}

struct Period {
    std::size_t seconds = 0;                                  // raw index
    std::vector<std::pair<std::size_t, std::size_t>> rx, tx;  // (pps, pkts) per socket
    std::size_t line = 0;
};

struct Extra {
    std::string key;  // "app stat tx wakeup sendtos", "Cyclic TX"
    std::vector<std::string> cols;
    std::vector<std::size_t> values;
};

bool isSocketLine(std::string_view text)
{
    static const std::regex re(R"(^sock\d+@\S+ .*)");
    return std::regex_match(std::string(text), re);
}

}  // namespace

Result<ImportTable> parseXdpsock(const ImportSource& src, const ImportOptions& /*options*/)
{
    if (auto line = binaryLine(src.text)) {
        return importError(src, line, "binary data, not xdpsock output");
    }
    static const std::set<std::string> statsRows = {
        "rx", "tx", "rx dropped", "rx invalid", "tx invalid", "rx queue full", "fill ring empty", "tx ring empty"};
    static const std::set<std::string> appRows = {"rx empty polls",    "fill fail polls", "copy tx sendtos",
                                                  "tx wakeup sendtos", "opt polls",       "irqs"};
    RawNumbers raw;
    std::vector<Period> periods;
    std::vector<Extra> extras;
    std::vector<std::pair<std::string, std::size_t>> driverStats;  // "rx dropped" -> raw pps index
    enum class Table { None, Stats, App, Cyclic } table = Table::None;
    bool inBlock = false;
    std::vector<std::string> cols;
    const auto lines = splitLines(src.text);
    std::string mode;
    for (std::size_t i = 0; i < lines.size(); ++i) {
        const auto text = trim(lines[i]);
        const std::size_t number = i + 1;
        if (text.empty()) {
            table = Table::None;
            continue;
        }
        const auto words = splitWords(text);
        if (isSocketLine(text)) {
            // A new period starts with sock0; further sockets add to it.
            if (text.rfind("sock0@", 0) == 0 || periods.empty()) {
                periods.emplace_back();
                periods.back().line = number;
            }
            mode = words.size() > 1 ? std::string(words[1]) : "";
            inBlock = true;
            table = Table::None;
            continue;
        }
        if (!inBlock) {
            continue;  // text before the output: a prompt, the command
        }
        if (words[0] == "pps" && words.size() == 3 && words[1] == "pkts") {
            if (!numeric(words[2])) {
                return importError(src, number, "an interval header without its period: " + quoteLine(text));
            }
            periods.back().seconds = raw.add(words[2], number, NumberKind::Decimal);
            table = Table::Stats;
            continue;
        }
        if (words.size() == 2 && (words[0] == "calls/s" || words[0] == "intrs/s") && words[1] == "count") {
            table = Table::App;
            continue;
        }
        if (words.size() == 5 && words[0] == "period" && words[4] == "cycle") {
            table = Table::Cyclic;
            cols.assign(words.begin(), words.end());
            continue;
        }
        std::string label;
        std::vector<std::string_view> values;
        const bool row = splitRow(words, label, values);
        if (table == Table::None) {
            inBlock = false;  // text after the output
            continue;
        }
        if (table == Table::Stats && row && values.size() == 2 && statsRows.count(label) != 0) {
            const auto pps = raw.add(values[0], number, NumberKind::Integer);
            const auto pkts = raw.add(values[1], number, NumberKind::Integer);
            if (label == "rx") {
                periods.back().rx.emplace_back(pps, pkts);
            } else if (label == "tx") {
                periods.back().tx.emplace_back(pps, pkts);
            } else {
                extras.push_back({label, {"pps", "pkts"}, {pps, pkts}});
            }
            continue;
        }
        if (table == Table::App && row && values.size() == 2 && appRows.count(label) != 0) {
            extras.push_back(
                {"app stat " + label,
                 {"calls/s", "count"},
                 {raw.add(values[0], number, NumberKind::Integer), raw.add(values[1], number, NumberKind::Integer)}});
            continue;
        }
        if (table == Table::Cyclic && row && values.size() == 5 && label == "Cyclic TX") {
            Extra e{label, cols, {}};
            for (auto v : values) {
                e.values.push_back(raw.add(v, number, NumberKind::Integer));
            }
            extras.push_back(std::move(e));
            continue;
        }
        return importError(src, number, "not an xdpsock statistics line: " + quoteLine(text));
    }
    if (periods.empty()) {
        return importError(src, 0, "no xdpsock 'sockN@' blocks in it");
    }
    for (const auto& p : periods) {
        if (p.seconds == 0 && p.rx.empty() && p.tx.empty()) {
            return importError(src, p.line, "an xdpsock block without its pps/pkts lines (truncated?)");
        }
        if (p.rx.size() != p.tx.size() || p.rx.empty()) {
            return importError(src, p.line, "an xdpsock block without its rx and tx lines (truncated?)");
        }
    }
    auto style = raw.convert(src);
    if (!style) {
        return style.error();
    }
    ImportTable out;
    out.tool = "xdpsock" + (mode.empty() ? "" : " " + mode);
    std::vector<ImportSample> samples;
    double lastRx = 0;
    double lastTx = 0;
    bool final = false;
    for (std::size_t k = 0; k < periods.size(); ++k) {
        const auto& p = periods[k];
        const double seconds = raw[p.seconds];
        double rx = 0;
        double tx = 0;
        double rxPkts = 0;
        double txPkts = 0;
        for (std::size_t s = 0; s < p.rx.size(); ++s) {
            rx += raw[p.rx[s].first];
            rxPkts += raw[p.rx[s].second];
            tx += raw[p.tx[s].first];
            txPkts += raw[p.tx[s].second];
        }
        const std::string n = std::to_string(k + 1);
        if (seconds == 0) {
            if (k + 1 != periods.size()) {
                return importError(src, p.line, "a block with period 0.00 before the last one");
            }
            // The block xdpsock prints on exit: its counts are the totals, its rates meaningless.
            final = true;
            out.read("final block period length", 0);
            out.read("rx pps final block", rx);
            out.read("tx pps final block", tx);
            out.read("rx pkts final block", rxPkts);
            out.read("tx pkts final block", txPkts);
            lastRx = rxPkts;
            lastTx = txPkts;
            continue;
        }
        out.read("period length", seconds);
        out.read("period length " + n, seconds);
        out.read("rx pps period " + n, rx);
        out.read("rx pkts period " + n, rxPkts);
        out.read("tx pps period " + n, tx);
        out.read("tx pkts period " + n, txPkts);
        samples.push_back({seconds, {rx * seconds, tx * seconds, seconds}});
    }
    out.read("periods", static_cast<double>(periods.size()));
    for (const auto& e : extras) {
        for (std::size_t c = 0; c < e.cols.size() && c < e.values.size(); ++c) {
            out.read(e.key + " " + e.cols[c], raw[e.values[c]]);
        }
    }
    out.detected = "xdpsock " + std::to_string(periods.size()) + " block" + (periods.size() > 1 ? "s" : "") +
                   (final ? ", the last printed on exit (period 0.00)" : "") +
                   (style->decimal == ',' ? ", numbers in " + style->name() : "");
    if (samples.empty()) {
        // Only the exit block: the totals are all there is.
        out.layout.quantities = {"rx_packets", "tx_packets", "runs"};
        out.layout.metrics = {
            {"rx_packets", "packets", "rx_packets", "runs", 1.0, true, "AF_XDP packets received in the run", ""},
            {"tx_packets", "packets", "tx_packets", "runs", 1.0, true, "AF_XDP packets sent in the run", ""},
        };
        out.repetitions.push_back({ImportSample{0, {lastRx, lastTx, 1.0}}});
        out.notes.emplace_back("only xdpsock's exit block (period 0.00): packet totals stored, no rates");
        return checkedTable(src, std::move(out));
    }
    if (final) {
        out.notes.emplace_back("xdpsock's exit block (period 0.00) read for its totals, not stored as an interval");
    }
    out.layout.quantities = {"rx_packets", "tx_packets", "seconds"};
    out.layout.metrics = {
        {"rx_pps", "packets/s", "rx_packets", "seconds", 1.0, true, "AF_XDP packets received per second", ""},
        {"tx_pps", "packets/s", "tx_packets", "seconds", 1.0, true, "AF_XDP packets sent per second", ""},
    };
    out.repetitions.push_back(std::move(samples));
    return checkedTable(src, std::move(out));
}

namespace {

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

}  // namespace

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
    auto style = raw.convert(src);
    if (!style) {
        return style.error();
    }
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
                     (style->decimal == ',' ? ", numbers in " + style->name() : "");
    if (hasErr && rxSum > 0 && errSum >= rxSum) {
        table.notes.emplace_back(
            "every packet received was dropped or failed (err,drop/s >= rx/s in every interval "
            "on average): the rx/s rate is not a rate of packets processed");
    }
    table.repetitions.push_back(std::move(samples));
    return checkedTable(src, std::move(table));
}

}  // namespace nf::engine
