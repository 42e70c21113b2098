// sar -n DEV: "HH:MM:SS [AM|PM] IFACE rxpck/s txpck/s rxkB/s txkB/s ..." per interval. The
// header line says the kernel and host: "Linux 6.1.0-18-amd64 (host) 11/30/26 _x86_64_ (2 CPU)".

#include <cmath>
#include <map>
#include <set>

#include "engine/import/import_format.h"

namespace nf::engine {
namespace {

struct SarRow {
    double seconds = 0;  // time of day
    std::string iface;
    std::map<std::string, double> values;  // by column name
    std::size_t line = 0;
};

std::optional<double> timeOfDay(std::string_view word, std::string_view ampm)
{
    int h = 0;
    int m = 0;
    int s = 0;
    if (word.size() != 8 || std::sscanf(std::string(word).c_str(), "%2d:%2d:%2d", &h, &m, &s) != 3) {
        return std::nullopt;
    }
    if (ampm == "PM" && h < 12) {
        h += 12;
    } else if (ampm == "AM" && h == 12) {
        h = 0;
    }
    return h * 3600.0 + m * 60.0 + s;
}

class SarParser {
public:
    explicit SarParser(const ImportSource& src) : m_src(src) {}

    Result<void> parse()
    {
        const auto lines = splitLines(m_src.text);
        for (std::size_t i = 0; i < lines.size(); ++i) {
            if (auto r = parseLine(trim(lines[i]), i + 1); !r) {
                return r;
            }
        }
        return {};
    }

    std::vector<SarRow> rows;
    std::set<std::string> ifaces;
    std::string kernel;
    std::string host;

private:
    Result<void> parseLine(std::string_view text, std::size_t number)
    {
        if (text.empty()) {
            return {};
        }
        auto words = splitWords(text);
        if (words[0] == "Linux" && words.size() >= 3) {
            kernel = std::string(words[1]);
            const auto h = words[2];
            host = std::string(h.size() > 2 && h.front() == '(' && h.back() == ')' ? h.substr(1, h.size() - 2) : h);
            return {};
        }
        if (words[0] == "Average:" || words[0] == "Summary:") {
            return {};
        }
        std::string_view ampm;
        std::size_t first = 1;
        if (words.size() > 1 && (words[1] == "AM" || words[1] == "PM")) {
            ampm = words[1];
            first = 2;
        }
        auto when = timeOfDay(words[0], ampm);
        if (!when || words.size() <= first) {
            return importError(m_src, number, "not a sar -n DEV line: " + quoteLine(text));
        }
        if (words[first] == "IFACE") {
            m_columns.assign(words.begin() + static_cast<long>(first) + 1, words.end());
            m_intervalStart = *when;
            return {};
        }
        if (m_columns.empty()) {
            return importError(m_src, number, "a data line before any IFACE header: " + quoteLine(text));
        }
        if (words[first] == "LINUX" || words[first].find("RESTART") != std::string_view::npos) {
            return {};
        }
        if (words.size() != first + 1 + m_columns.size()) {
            return importError(m_src, number,
                               "expected " + std::to_string(m_columns.size()) +
                                   " values after the interface (truncated?): " + quoteLine(text));
        }
        SarRow row{*when, std::string(words[first]), {}, number};
        for (std::size_t c = 0; c < m_columns.size(); ++c) {
            auto value = parseNumber(words[first + 1 + c]);
            if (!value) {
                return importError(m_src, number, "'" + std::string(words[first + 1 + c]) + "' is not a number");
            }
            row.values[std::string(m_columns[c])] = *value;
        }
        double seconds = row.seconds - m_intervalStart;
        if (seconds < 0) {
            seconds += 86400;  // past midnight
        }
        row.seconds = seconds;
        ifaces.insert(row.iface);
        rows.push_back(std::move(row));
        return {};
    }

    const ImportSource& m_src;
    std::vector<std::string_view> m_columns;
    double m_intervalStart = 0;
};

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

}  // namespace

Result<ImportTable> parseSar(const ImportSource& src, const ImportOptions& options)
{
    if (auto line = binaryLine(src.text)) {
        return importError(src, line, "binary data, not sar output");
    }
    SarParser parser(src);
    if (auto r = parser.parse(); !r) {
        return r.error();
    }
    if (parser.rows.empty()) {
        return importError(src, 0, "no sar -n DEV intervals in it");
    }
    std::string iface = options.iface;
    if (iface.empty()) {
        if (parser.ifaces.size() > 1) {
            std::string names;
            for (const auto& i : parser.ifaces) {
                names += (names.empty() ? "" : ", ") + i;
            }
            return importError(src, 0, "it has several interfaces (" + names + "): choose one with --iface");
        }
        iface = *parser.ifaces.begin();
    } else if (parser.ifaces.count(iface) == 0) {
        return importError(src, 0, "no interface '" + iface + "' in it");
    }
    ImportTable table;
    table.host = parser.host;
    table.kernel = parser.kernel;
    for (const auto& m : kSarMetrics) {
        table.layout.quantities.emplace_back(m.quantity);
        table.layout.metrics.push_back(
            {m.metric, m.unit, m.quantity, "seconds", 1.0, true, std::string("sar ") + m.column + " of " + iface, ""});
    }
    table.layout.quantities.emplace_back("seconds");
    std::vector<ImportSample> samples;
    for (const auto& row : parser.rows) {
        if (row.iface != iface) {
            continue;
        }
        if (row.seconds <= 0) {
            return importError(src, row.line, "an interval of " + std::to_string(row.seconds) + " s");
        }
        ImportSample sample{row.seconds, {}};
        for (const auto& m : kSarMetrics) {
            auto it = row.values.find(m.column);
            if (it == row.values.end()) {
                return importError(src, row.line, std::string("no ") + m.column + " column: is this sar -n DEV?");
            }
            sample.values.push_back(it->second * row.seconds);
        }
        sample.values.push_back(row.seconds);
        samples.push_back(std::move(sample));
    }
    table.repetitions.push_back(std::move(samples));
    return checkedTable(src, std::move(table));
}

}  // namespace nf::engine
