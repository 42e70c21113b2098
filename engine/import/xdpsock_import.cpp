// xdpsock (kernel samples/bpf, bpf-examples AF_XDP-example): one block of rates per interval,
// pps and pkts grouped by the locale:
//    sock0@veth0:0 rxdrop xdp-skb
//                     pps            pkts           1.00
//   rx                 1,234,567      12,345,678
//   tx                 0              0
// then, with -a, "calls/s count" application statistics, with -x driver statistics, with -T the
// "period min ave max cycle" table. On exit it prints a last block whose period is 0.00.

#include <map>
#include <regex>
#include <set>

#include "engine/import/import_format.h"
#include "engine/import/xdp_numbers.h"

namespace nf::engine {
namespace {

using xdp::numeric;
using xdp::RawNumbers;

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
    auto style = NF_TRY(raw.convert(src));
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
                   (style.decimal == ',' ? ", numbers in " + style.name() : "");
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

}  // namespace

ImportFormat importers::xdpsock()
{
    return {
        .name = "xdpsock",
        .tools = {"xdpsock"},
        .summary = "xdpsock / AF_XDP-example interval statistics: rx and tx pps per interval",
        .detect =
            [](std::string_view text) {
                return detection::markedIf(containsAll(text, {" pps ", " pkts ", "sock"}));
            },
        .parse = parseXdpsock,
        .dictionary = {"sock0@veth0:0", "sock1@veth0:1", "pps", "pkts", "rx", "tx", "calls/s", "intrs/s", "1,234,567",
                       "1.00"},
    };
}

}  // namespace nf::engine
