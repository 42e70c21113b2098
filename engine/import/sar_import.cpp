// sar -n DEV: "HH:MM:SS [AM|PM] IFACE rxpck/s txpck/s rxkB/s txkB/s ..." per interval, live (a header
// before every interval) or from a history file (-f saDD: one header, then every interval), with
// -p (IFACE last), -z, other activities in between (-d), EDEV, "LINUX RESTART" lines and an Average
// block per boot; files holding only the Average block; sadf -d (';'-separated) and sadf -j (JSON).
// An interval lasts from the previous timestamp of its section to its own. The header line says
// kernel and host: "Linux 6.1.0-18-amd64 (host) 11/30/26 _x86_64_ (2 CPU)".

#include <cmath>
#include <map>
#include <regex>
#include <set>

#include "engine/import/import_format.h"
#include "engine/import/sar_rows.h"

namespace nf::engine {
namespace {

using sar::SarFile;
using sar::SarRow;

// sar prints its time stamps with strftime's %X in the locale it runs under: "23:07:43", "11:07:43
// PM" (en_US), "23时07分43秒" (zh_CN), "23時07分43秒" (ja_JP, zh_TW), "23시 07분 43초" (ko_KR). The
// seconds of the day and the text after the stamp, or nothing when `text` does not start with one.
std::optional<std::pair<double, std::string_view>> timeOfDay(std::string_view text)
{
    static const std::regex re(
        R"(^(\d{1,2})(?::|时|時|시 ?)(\d{2})(?::|分|분 ?)(\d{2})(?:秒|초)?(?: (AM|PM))?(?=\s|$))");
    std::match_results<std::string_view::const_iterator> m;
    if (!std::regex_search(text.begin(), text.end(), m, re)) {
        return std::nullopt;
    }
    int h = std::stoi(m[1].str());
    const int min = std::stoi(m[2].str());
    const int s = std::stoi(m[3].str());
    if (h > 23 || min > 59 || s > 60) {
        return std::nullopt;
    }
    if (m[4] == "PM" && h < 12) {
        h += 12;
    } else if (m[4] == "AM" && h == 12) {
        h = 0;
    }
    return std::pair{h * 3600.0 + min * 60.0 + s, text.substr(static_cast<std::size_t>(m.length(0)))};
}

// sar's "Average:" (and "Summary:") as its translations print it (sysstat's nls/*.po).
std::optional<std::string_view> afterAverageLabel(std::string_view text)
{
    static constexpr std::string_view labels[] = {
        "Average:",    "Summary:",   "Gemideld:",   "Сярэдняе:",      "Průměr:",    "Middel:",
        "Durchschn.:", "Meznombro:", "Media:",      "Batezbestekoa:", "Keskiarvo:", "Moyenne :",
        "Medie:",      "Prosjek:",   "Átlag:",      "Rata-rata:",     "平均値:",    "საშუალო:",
        "평균:",       "Орточо:",    "Vidēji:",     "Medja:",         "Gj.snitt:",  "Gemiddeld:",
        "Średnia:",    "Média:",     "Среднее:",    "Priemer:",       "Просек:",    "Genomsnitt:",
        "Ortalama:",   "Середнє:",   "Trung bình:", "平均时间:",      "平均時間：", "平均時間:"};
    for (const auto label : labels) {
        if (text.substr(0, label.size()) == label &&
            (text.size() == label.size() || text[label.size()] == ' ' || text[label.size()] == '\t')) {
            return text.substr(label.size());
        }
    }
    return std::nullopt;
}

bool isDev(const std::vector<std::string>& cols)
{
    return std::find(cols.begin(), cols.end(), "rxpck/s") != cols.end();
}

bool isEdev(const std::vector<std::string>& cols)
{
    return std::find(cols.begin(), cols.end(), "rxerr/s") != cols.end();
}

class SarReadings;

// Read twice: the first pass (no style) only votes on the number style and lists the interfaces;
// the second converts, gives every row to `readings` and keeps the rows of interface `keep`.
class SarText {
public:
    SarText(const ImportSource& src, const NumberStyle* style, std::string keep, SarReadings* readings)
        : m_src(src), m_style(style), m_keep(std::move(keep)), m_readings(readings)
    {
    }

    NumberStyleVote vote;
    std::set<std::string> intervalIfaces;
    std::set<std::string> averageIfaces;

    Result<SarFile> parse()
    {
        const auto lines = splitLines(m_src.text);
        for (std::size_t i = 0; i < lines.size(); ++i) {
            NF_TRY(line(trim(lines[i]), i + 1));
        }
        m_file.layout = m_sawInterval ? "sar -n DEV" : "sar -n DEV, Average lines only";
        return std::move(m_file);
    }

private:
    struct Section {
        std::vector<std::string> cols;  // without IFACE
        std::size_t ifaceAt = 0;        // position of IFACE among the words after the time
        double base = 0;                // the previous timestamp
        double current = -1;
        bool dev = false;
        bool edev = false;
        bool named = false;  // has an IFACE/DEV column
    };

    Result<void> line(std::string_view text, std::size_t number)
    {
        if (text.empty()) {
            m_open = false;  // a blank line ends sar's block
            return {};
        }
        const auto all = splitWords(text);
        if (all.empty()) {
            return {};
        }
        if (all[0] == "Linux" && all.size() >= 3) {
            m_file.kernel = std::string(all[1]);
            const auto h = all[2];
            m_file.host =
                std::string(h.size() > 2 && h.front() == '(' && h.back() == ')' ? h.substr(1, h.size() - 2) : h);
            return {};
        }
        std::optional<double> when;
        const auto label = afterAverageLabel(text);
        const bool average = label.has_value();
        std::string_view after;
        if (average) {
            after = *label;
        } else if (auto stamp = timeOfDay(text)) {
            when = stamp->first;
            after = stamp->second;
            m_stamp = std::string(text.substr(0, text.size() - after.size()));
            if (m_stamp.size() > 3 && (m_stamp.ends_with(" AM") || m_stamp.ends_with(" PM"))) {
                m_stamp.resize(m_stamp.size() - 3);  // read as printed: "11:07:43"
            }
        } else {
            if (text.find("rxpck/s") != std::string_view::npos || text.find("rxerr/s") != std::string_view::npos) {
                return importError(m_src, number,
                                   "a sar header whose time stamp or Average label cannot be read (a locale sar "
                                   "printed it in that is not known here: rerun with LC_ALL=C): " +
                                       quoteLine(text));
            }
            if (m_open) {
                m_open = false;  // text after the block (a prompt)
            }
            return {};
        }
        std::vector<std::string_view> words{std::string_view()};
        for (const auto w : splitWords(after)) {
            words.push_back(w);
        }
        const std::size_t first = 1;
        if (words.size() <= first) {
            return importError(m_src, number, "a sar line without values: " + quoteLine(text));
        }
        if (words[first] == "LINUX" && words.size() > first + 1 && words[first + 1] == "RESTART") {
            ++m_file.restarts;
            m_restarted = true;
            m_open = false;
            return {};
        }
        const std::vector<std::string_view> rest(words.begin() + static_cast<std::ptrdiff_t>(first), words.end());
        const bool header =
            std::none_of(rest.begin(), rest.end(),
                         [](std::string_view w) {
                             return !w.empty() &&
                                    (std::isdigit(static_cast<unsigned char>(w.front())) != 0 || w.front() == '-');
                         }) &&
            std::any_of(rest.begin(), rest.end(),
                        [](std::string_view w) { return w.find('/') != std::string_view::npos || w.front() == '%'; });
        if (header) {
            return startSection(rest, when, number);
        }
        if (!m_open) {
            return importError(m_src, number,
                               "a sar data line outside a block (its header line is missing): " + quoteLine(text));
        }
        return row(rest, when, average, number, text);
    }

    Result<void> startSection(const std::vector<std::string_view>& rest, std::optional<double> when, std::size_t number)
    {
        Section s;
        bool named = false;
        for (std::size_t i = 0; i < rest.size(); ++i) {
            if (rest[i] == "IFACE" || rest[i] == "DEV" || rest[i] == "CPU" || rest[i] == "FILESYSTEM") {
                if (named) {  // sar names a row by one column; two is not a header sar printed
                    return importError(m_src, number,
                                       "a sar header with two name columns (" + std::string(rest[s.ifaceAt]) + ", " +
                                           std::string(rest[i]) + ")");
                }
                s.ifaceAt = i;
                named = true;
            } else {
                s.cols.emplace_back(rest[i]);
            }
        }
        if (!named) {
            s.ifaceAt = rest.size();  // activities without a name column
        }
        s.named = named;
        s.dev = named && isDev(s.cols);
        s.edev = named && isEdev(s.cols);
        if (when) {
            s.base = *when;
            s.current = *when;
        }
        const int kind = s.dev ? 1 : s.edev ? 2 : 0;
        if (!when) {
            ++m_averageBlocks[kind];
        }
        m_section = std::move(s);
        m_open = true;
        m_inAverage = !when;
        return {};
    }

    Result<void> row(const std::vector<std::string_view>& rest, std::optional<double> when, bool average,
                     std::size_t number, std::string_view text)
    {
        auto& s = m_section;
        const std::size_t expected = s.cols.size() + (s.named ? 1 : 0);
        if (rest.size() != expected) {
            return importError(
                m_src, number,
                "expected " + std::to_string(expected) + " fields after the time (truncated?): " + quoteLine(text));
        }
        if (!s.dev && !s.edev) {
            ++m_file.otherRows;
            return {};
        }
        SarRow r;
        r.line = number;
        r.average = average;
        r.afterRestart = m_restarted;
        r.iface = std::string(rest[s.ifaceAt]);
        const int kind = s.dev ? 1 : 2;
        if (average) {
            if (!m_inAverage) {
                ++m_averageBlocks[kind];
                m_inAverage = true;
            }
            r.when = "Average";
            r.averageBlock = m_averageBlocks[kind];
        } else {
            m_inAverage = false;
            m_sawInterval = true;
            if (*when != s.current) {
                s.base = s.current < 0 ? *when : s.current;
                s.current = *when;
            }
            r.seconds = s.current - s.base;
            if (r.seconds < 0) {
                r.seconds += 86400;  // past midnight
            }
            r.when = m_stamp;
        }
        if (m_style == nullptr) {
            for (std::size_t i = 0; i < rest.size(); ++i) {
                if (i != s.ifaceAt) {
                    vote.see(rest[i], number, NumberKind::Decimal);
                }
            }
            if (s.dev) {
                (average ? averageIfaces : intervalIfaces).insert(r.iface);
            }
            return {};
        }
        NumberStyle style = *m_style;
        style.group = 0;
        std::size_t c = 0;
        for (std::size_t i = 0; i < rest.size(); ++i) {
            if (i == s.ifaceAt) {
                continue;
            }
            auto v = parseStyled(rest[i], style);
            if (!v) {
                return importError(m_src, number, "'" + std::string(rest[i]) + "' is not a number");
            }
            r.values[s.cols[c++]] = *v;
        }
        keep(std::move(r), s.edev);
        return {};
    }

    void keep(SarRow r, bool edev);

    const ImportSource& m_src;
    const NumberStyle* m_style;
    std::string m_keep;
    SarReadings* m_readings;
    SarFile m_file;
    Section m_section;
    bool m_open = false;
    bool m_inAverage = false;
    bool m_restarted = false;
    bool m_sawInterval = false;
    std::string m_stamp;  // the time stamp of the line being read, as printed
    std::map<int, int> m_averageBlocks;
};

// What the importer read, row by row: every value of every interface, and the row counts.
class SarReadings {
public:
    explicit SarReadings(ImportTable& table) : m_table(table) {}

    void add(const SarRow& r, bool edev)
    {
        const std::string when = r.average && r.averageBlock > 1 ? "Average " + std::to_string(r.averageBlock) : r.when;
        for (const auto& [col, v] : r.values) {
            m_table.read(r.iface + " " + col + " " + when, v);
        }
        if (edev) {
            m_edevAverages += r.average && r.averageBlock == 1 ? 1 : 0;
            return;
        }
        if (r.average) {
            m_devAverageBlocks.insert(r.averageBlock);
            m_devAverages += r.averageBlock == 1 ? 1 : 0;
            return;
        }
        ++m_devIntervals;
        m_beforeRestart += r.afterRestart ? 0 : 1;
        m_times.insert(r.when);
        const auto n = ++m_rowOfIface[r.iface];
        for (const auto& [col, v] : r.values) {
            m_table.read(r.iface + " " + col + " row " + std::to_string(n), v);
        }
        m_table.read(r.iface + " interval seconds row " + std::to_string(n), r.seconds);
    }

    void finish(const SarFile& file)
    {
        auto read = [&](const char* key, std::size_t n) { m_table.read(key, static_cast<double>(n)); };
        read("DEV interval rows", m_devIntervals);
        read("data rows", m_devIntervals);
        read("rows", m_devIntervals);
        read("intervals", m_times.size());
        read("DEV interval rows before restart", m_beforeRestart);
        read("DEV Average rows", m_devAverages);
        read("Average rows", m_devAverages);
        read("EDEV Average rows", m_edevAverages);
        read("DEV Average blocks", m_devAverageBlocks.size());
        read("LINUX RESTART markers", file.restarts);
        read("restarts", file.restarts);
        read("other activity rows", file.otherRows);
    }

private:
    ImportTable& m_table;
    std::size_t m_devAverages = 0;
    std::size_t m_edevAverages = 0;
    std::size_t m_devIntervals = 0;
    std::size_t m_beforeRestart = 0;
    std::set<int> m_devAverageBlocks;
    std::set<std::string> m_times;
    std::map<std::string, std::size_t> m_rowOfIface;
};

// Only the columns the table stores are kept of the rows of the interface it is for.
void SarText::keep(SarRow r, bool edev)
{
    m_readings->add(r, edev);
    if (edev || (!m_keep.empty() && r.iface != m_keep)) {
        return;
    }
    std::map<std::string, double> kept;
    for (const char* col : {"rxpck/s", "txpck/s", "rxkB/s", "txkB/s"}) {
        if (const auto it = r.values.find(col); it != r.values.end()) {
            kept.emplace(col, it->second);
        }
    }
    r.values = std::move(kept);
    m_file.dev.push_back(std::move(r));
}

struct SarMetric {
    const char* column;
    const char* metric;
    const char* quantity;
    const char* unit;
};

constexpr SarMetric kSarMetrics[] = {
    {"rxpck/s", "rx_pps", "rx_packets", "packets/s"},
    {"txpck/s", "tx_pps", "tx_packets", "packets/s"},
    {"rxkB/s", "rx_kBps", "rx_kB", "kB/s"},
    {"txkB/s", "tx_kBps", "tx_kB", "kB/s"},
};

bool averageOnlyRows(const std::vector<const SarRow*>& rows)
{
    return !rows.empty() && rows.front()->average;
}

Result<std::string> chooseIface(const ImportSource& src, const std::set<std::string>& ifaces, const std::string& given)
{
    if (ifaces.empty()) {
        return importError(src, 0, "no sar -n DEV lines (IFACE rxpck/s ...) in it");
    }
    if (given.empty()) {
        if (ifaces.size() > 1) {
            std::string names;
            for (const auto& i : ifaces) {
                names += (names.empty() ? "" : ", ") + i;
            }
            return importError(src, 0, "it has several interfaces (" + names + "): choose one with --iface");
        }
        return *ifaces.begin();
    }
    if (ifaces.count(given) == 0) {
        return importError(src, 0, "no interface '" + given + "' in it");
    }
    return given;
}

Result<ImportTable> parseSar(const ImportSource& src, const ImportOptions& options)
{
    if (src.text.starts_with("\xEF\xBB\xBF")) {  // a UTF-8 byte-order mark (an editor's, not sar's)
        return parseSar(ImportSource{src.path, src.text.substr(3)}, options);
    }
    if (auto line = binaryLine(src.text)) {
        return importError(src, line, "binary data, not sar output");
    }
    ImportTable table;
    const bool json = src.text.find_first_not_of(" \t\r\n") != std::string::npos &&
                      src.text[src.text.find_first_not_of(" \t\r\n")] == '{';
    const bool sadfD = !json && src.text.find("# hostname;") != std::string::npos;
    SarReadings readings(table);
    SarFile file;
    std::string iface = options.iface;
    if (json || sadfD) {
        file = NF_TRY(json ? sar::parseSadfJ(src, table) : sar::parseSadfD(src));
        if (!json) {
            NF_TRY(sar::convert(src, file));
            for (const auto& r : file.dev) {
                readings.add(r, false);
            }
        }
    } else {
        // sar's text: the first pass votes on the number style and lists the interfaces.
        SarText first(src, nullptr, "", &readings);
        NF_TRY(first.parse());
        auto style = NF_TRY(first.vote.decide(src));
        const auto& ifaces = first.intervalIfaces.empty() ? first.averageIfaces : first.intervalIfaces;
        auto chosen = NF_TRY(chooseIface(src, ifaces, options.iface));
        iface = chosen;
        file = NF_TRY(SarText(src, &style, iface, &readings).parse());
        if (style.decimal == ',') {
            file.layout += ", numbers in " + style.name();
        }
    }
    readings.finish(file);
    std::vector<const SarRow*> intervals;
    std::vector<const SarRow*> averages;
    std::set<std::string> ifaces;
    for (const auto& r : file.dev) {
        (r.average ? averages : intervals).push_back(&r);
    }
    const auto& rows = intervals.empty() ? averages : intervals;
    for (const auto* r : rows) {
        ifaces.insert(r->iface);
    }
    auto chosen = NF_TRY(chooseIface(src, ifaces, iface));
    iface = chosen;
    table.host = file.host;
    table.kernel = file.kernel;
    table.tool = "sar -n DEV";
    const auto ofIface = static_cast<std::size_t>(std::count_if(
        rows.begin(), rows.end(), [&](const SarRow* r) { return r->iface == iface && r->averageBlock <= 1; }));
    table.detected = file.layout + ", interface " + iface + ", " + std::to_string(ofIface) +
                     (averageOnlyRows(rows) ? " Average row" : " interval") + (ofIface == 1 ? "" : "s") +
                     (file.restarts > 0 ? ", " + std::to_string(file.restarts) + " LINUX RESTART" : "");
    for (const auto& m : kSarMetrics) {
        table.layout.quantities.emplace_back(m.quantity);
        table.layout.metrics.push_back(
            {m.metric, m.unit, m.quantity, "seconds", 1.0, true, std::string("sar ") + m.column + " of " + iface, ""});
    }
    table.layout.quantities.emplace_back("seconds");
    std::vector<ImportSample> samples;
    const bool averageOnly = intervals.empty();
    for (const auto* row : rows) {
        if (row->iface != iface || (averageOnly && row->averageBlock > 1)) {
            continue;
        }
        if (!averageOnly && row->seconds <= 0) {
            return importError(src, row->line, "an interval of " + std::to_string(row->seconds) + " s");
        }
        const double seconds = averageOnly ? 1.0 : row->seconds;
        ImportSample sample{averageOnly ? 0.0 : seconds, {}};
        for (const auto& m : kSarMetrics) {
            auto it = row->values.find(m.column);
            if (it == row->values.end()) {
                return importError(src, row->line, std::string("no ") + m.column + " column: is this sar -n DEV?");
            }
            sample.values.push_back(it->second * seconds);
        }
        sample.values.push_back(seconds);
        samples.push_back(std::move(sample));
    }
    if (samples.empty()) {  // its rows are all in a later Average block: the first has none of them
        return importError(src, 0, "no Average row of interface " + iface + " in the first Average block");
    }
    if (averageOnly) {
        table.notes.emplace_back(
            "only sar's Average lines: the rates are stored as one sample; the period they average is not in the file");
    }
    table.repetitions.push_back(std::move(samples));
    return checkedTable(src, std::move(table));
}

}  // namespace

ImportFormat importers::sar()
{
    return {
        .name = "sar",
        .tools = {"sar", "sadf"},
        .summary = "sar -n DEV (live, -f history, Average only), sadf -d and -j: one interface (--iface)",
        .detect =
            [](std::string_view text) {
                return detection::markedIf(containsAny(text, {"rxpck/s", "\"net-dev\""}) ||
                                           containsAll(text, {"\"sysstat\"", "\"hosts\""}));
            },
        .parse = parseSar,
        .dictionary = {"Linux", "IFACE", "rxpck/s", "txpck/s", "rxkB/s", "txkB/s", "Average:", "AM", "PM", "12:00:00",
                       "23:59:59", "LINUX RESTART", "lo", "23时07分43秒", "平均时间:", "23시 07분 43초", "Moyenne :"},
    };
}

}  // namespace nf::engine
