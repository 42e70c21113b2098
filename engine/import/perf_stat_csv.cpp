// perf stat -x, and --json (-j): one counter per line. -x, lines are
//   [time,][summary,][CPU0, | S0,cpus,]value,unit,event[,variance%],run_time,pct_running,metric,metric_unit
// and metric-group rows with an empty value (",runtime,pct,,,,TopdownL1 (cpu_core)", ",,,,,41.3,%  tma_x").
// A block is a run of such lines; "# started on" (perf stat -o FILE --append) or other text ends it.

#include <algorithm>
#include <nlohmann/json.hpp>

#include "engine/import/perf_stat_blocks.h"

namespace nf::engine::perf {
namespace {

std::vector<std::string_view> fields(std::string_view text)
{
    std::vector<std::string_view> out;
    std::size_t start = 0;
    for (;;) {
        const auto comma = text.find(',', start);
        out.push_back(text.substr(start, comma == std::string_view::npos ? std::string_view::npos : comma - start));
        if (comma == std::string_view::npos) {
            return out;
        }
        start = comma + 1;
    }
}

bool isValue(std::string_view f)
{
    return isMissing(f) || parseNumber(f).has_value();
}

class CsvParser {
public:
    CsvParser(const ImportSource& src, const ImportOptions& options) : m_src(src), m_options(options) {}

    Result<std::vector<Block>> parse()
    {
        const auto lines = splitLines(m_src.text);
        for (std::size_t i = 0; i < lines.size(); ++i) {
            NF_TRY(line(trim(lines[i]), i + 1));
            if (m_open) {
                m_block.lastLine = i + 1;
            }
        }
        closeBlock(lines.size());
        return std::move(m_blocks);
    }

private:
    Result<void> line(std::string_view text, std::size_t number)
    {
        if (m_blocks.size() > kMaxImportRepetitions) {
            return importError(m_src, number,
                               "more than " + std::to_string(kMaxImportRepetitions) +
                                   " perf stat runs in one import: import them in parts");
        }
        if (text.empty()) {
            return {};
        }
        if (text.front() == '#') {
            if (text.find("started on") != std::string_view::npos) {
                closeBlock(number);
            }
            return {};
        }
        auto f = fields(text);
        if (f.size() < 4) {
            closeBlock(number);  // text around the output
            return {};
        }
        if (!m_open) {
            m_block = Block{};
            m_block.layout = "csv";
            m_block.line = number;
            m_block.complete = true;
            m_open = true;
            // -I: a timestamp before the value ("1.001196053,8012.72,msec,cpu-clock,...") or before the
            // scope of -A / --per-socket / --per-core ("0.001813453,S0,1,1.87,msec,cpu-clock,...").
            bool aggregate = false;
            m_block.interval = parseNumber(f[0]).has_value() && f.size() > 3 &&
                               ((isValue(f[1]) && !f[3].empty() && !parseNumber(f[3])) || isScope(f[1], aggregate));
            m_width = 0;
        }
        return row(f, number);
    }

    Result<void> row(std::vector<std::string_view> f, std::size_t number)
    {
        std::size_t i = 0;
        bool summaryRow = false;
        int interval = -1;
        if (f[0] == "summary") {
            summaryRow = true;
            ++i;
        } else if (m_block.interval) {
            if (m_width != 0 && f.size() + 1 == m_width) {
                summaryRow = true;  // perf < 5.13 printed the --summary rows without the time field
            } else if (!f[0].empty() && parseNumber(f[0])) {
                const std::string stamp(f[0]);
                if (m_block.intervalText.empty() || m_block.intervalText.back() != stamp) {
                    m_block.intervals.push_back(*parseNumber(f[0]));
                    m_block.intervalText.push_back(stamp);
                }
                interval = static_cast<int>(m_block.intervals.size() - 1);
                ++i;
            } else {
                return importError(m_src, number, "an -I line without its time: " + quoteLine(join(f)));
            }
        }
        if (m_width == 0 && !summaryRow) {
            m_width = f.size();
        }
        Count c;
        c.line = number;
        c.interval = interval;
        bool aggregate = false;
        // perf before 6.1 (ad353b710c74) printed the metric line of a scope with one separator too many
        // before the scope: ",S0,1,,,,,,,2.00,stalled cycles per insn", "0.001813453,,S0,1,,,,,,,1.34,...".
        if (i + 1 < f.size() && f[i].empty() && isScope(f[i + 1], aggregate)) {
            ++i;
        }
        if (i < f.size() && isScope(f[i], aggregate)) {
            c.scope = std::string(f[i++]);
            if (aggregate) {
                auto cpus = i < f.size() ? parseNumber(f[i]) : std::nullopt;
                if (!cpus) {
                    return importError(m_src, number, "no CPU count after " + c.scope + ": " + quoteLine(join(f)));
                }
                c.cpus = *cpus;
                ++i;
            }
        }
        if (f.size() - i < 3) {
            return importError(m_src, number, "not a perf stat -x, line: " + quoteLine(join(f)));
        }
        if (f[i].empty()) {
            return metricRow(f, i, number, c.scope);
        }
        if (isMissing(f[i])) {
            c.missing = std::string(f[i]);
        } else if (auto v = parseNumber(f[i])) {
            c.value = *v;
        } else {
            return importError(m_src, number, "counter value '" + std::string(f[i]) + "' is not a number");
        }
        c.unit = std::string(f[i + 1]);
        c.event = std::string(f[i + 2]);
        if (c.event.empty() || parseNumber(c.event)) {
            return importError(m_src, number, "not a perf stat -x, line (no event name): " + quoteLine(join(f)));
        }
        std::size_t k = i + 3;
        if (k < f.size() && !f[k].empty() && f[k].back() == '%') {
            auto noise = parseNumber(f[k].substr(0, f[k].size() - 1));
            if (!noise) {
                return importError(m_src, number, "variance '" + std::string(f[k]) + "' is not a percentage");
            }
            c.noisePct = *noise;
            ++k;
            if (!m_options.runs) {
                return importError(m_src, number,
                                   "a perf stat -r summary written with -x, does not say how many runs it averages: "
                                   "give --runs N");
            }
            m_block.summary = true;
            m_block.runs = *m_options.runs;
        } else if (m_block.summary && !summaryRow) {
            return importError(m_src, number, "a single-run line among -r summary lines");
        }
        if (k < f.size() && !f[k].empty()) {
            c.runtime = parseNumber(f[k]).value_or(kNaN);
        }
        if (k + 1 < f.size() && !f[k + 1].empty()) {
            c.runningPct = parseNumber(f[k + 1]).value_or(kNaN);
        }
        if (k + 3 < f.size() && !f[k + 2].empty()) {
            c.metrics.emplace_back(std::string(trim(f[k + 3])), parseNumber(f[k + 2]).value_or(kNaN));
        }
        if (summaryRow) {
            m_block.summaryCounts.push_back(std::move(c));
            return {};
        }
        // A repeated event starts the next run (perf stat -x, appended without "# started on").
        const bool repeated = !m_block.interval && std::any_of(m_block.counts.begin(), m_block.counts.end(),
                                                               [&](const Count& x) { return x.key() == c.key(); });
        if (repeated) {
            closeBlock(number);
            auto again = line(join(f), number);
            return again;
        }
        m_block.counts.push_back(std::move(c));
        return {};
    }

    // ",runtime,pct,,,,TopdownL1 (cpu_core)" (a group) or ",,,,,41.3,%  tma_frontend_bound"; with
    // --per-socket/--per-core/-A, the second metric of the counter above: "S0,1,,,,,,,1.34,stalled cycles
    // per insn" (one field more: the empty fields of a metric-only line after the scope).
    Result<void> metricRow(const std::vector<std::string_view>& f, std::size_t i, std::size_t number,
                           const std::string& scope)
    {
        const bool metricOnly =
            f.size() - i == 8 && std::all_of(f.begin() + static_cast<std::ptrdiff_t>(i), f.end() - 2,
                                             [](std::string_view x) { return x.empty(); });
        if (f.size() - i != 7 && !metricOnly) {
            return importError(m_src, number, "not a perf stat -x, metric line: " + quoteLine(join(f)));
        }
        if (!scope.empty()) {
            return scopedMetric(f, scope, number);
        }
        if (metricOnly) {
            i += 1;
        }
        const auto value = f[i + 5];
        const auto unit = trim(f[i + 6]);
        if (value.empty() && !unit.empty() && unit.front() != '%') {
            m_group = std::string(unit);
            ++m_block.groupHeaders;
            return {};
        }
        GroupMetric g;
        g.group = m_group;
        g.line = number;
        g.name = std::string(!unit.empty() && unit.front() == '%' ? trim(unit.substr(1)) : unit);
        if (!value.empty()) {
            auto v = parseNumber(value);
            if (!v && value != "nan") {
                return importError(m_src, number, "metric value '" + std::string(value) + "' is not a number");
            }
            g.value = v.value_or(kNaN);
        }
        if (!f[i + 2].empty()) {
            g.runningPct = parseNumber(f[i + 2]).value_or(kNaN);
        }
        m_block.groupMetrics.push_back(std::move(g));
        return {};
    }

    // A metric line of a scope (socket, die, core, CPU): a further metric of that scope's last counter.
    Result<void> scopedMetric(const std::vector<std::string_view>& f, const std::string& scope, std::size_t number)
    {
        const auto name = trim(f.back());
        const auto value = f[f.size() - 2];
        const auto it = std::find_if(m_block.counts.rbegin(), m_block.counts.rend(),
                                     [&](const Count& c) { return c.scope == scope; });
        if (it == m_block.counts.rend() || name.empty()) {
            return importError(
                m_src, number,
                "a metric line of " + scope + " without the counter it belongs to: " + quoteLine(join(f)));
        }
        auto v = parseNumber(value);
        if (!v && !value.empty() && value != "nan") {
            return importError(m_src, number, "metric value '" + std::string(value) + "' is not a number");
        }
        it->continuation.emplace_back(std::string(name), v.value_or(kNaN));
        return {};
    }

    static std::string join(const std::vector<std::string_view>& f)
    {
        std::string out;
        for (std::size_t i = 0; i < f.size(); ++i) {
            out += (i ? "," : "") + std::string(f[i]);
        }
        return out;
    }

    void closeBlock(std::size_t number)
    {
        if (m_open && (!m_block.counts.empty() || !m_block.groupMetrics.empty())) {
            m_block.endLine = number;
            m_blocks.push_back(std::move(m_block));
        }
        m_open = false;
        m_group.clear();
    }

    const ImportSource& m_src;
    const ImportOptions& m_options;
    std::vector<Block> m_blocks;
    Block m_block;
    bool m_open = false;
    std::size_t m_width = 0;
    std::string m_group;
};

std::string text(const nlohmann::json& j, const char* key)
{
    const auto it = j.find(key);
    if (it == j.end()) {
        return "";
    }
    return it->is_string() ? it->get<std::string>() : it->dump();
}

double jsonNumber(const nlohmann::json& j, const char* key)
{
    const auto it = j.find(key);
    if (it == j.end()) {
        return kNaN;
    }
    if (it->is_number()) {
        return it->get<double>();
    }
    if (it->is_string()) {
        return parseNumber(it->get<std::string>()).value_or(kNaN);
    }
    return kNaN;
}

}  // namespace

Result<std::vector<Block>> parseCsvBlocks(const ImportSource& src, const ImportOptions& options)
{
    return CsvParser(src, options).parse();
}

// --json: {"counter-value" : "32131.530625", "unit" : "msec", "event" : "cpu-clock", ...} per line,
// {"metricgroup" : "TopdownL1 (cpu_core)", ...} and {"metric-value" : "nan", "metric-unit" : "%  tma_x"}.
Result<std::vector<Block>> parseJsonBlocks(const ImportSource& src)
{
    std::vector<Block> blocks;
    Block block;
    bool open = false;
    std::string group;
    const auto lines = splitLines(src.text);
    auto closeBlock = [&](std::size_t number) {
        if (open) {
            block.endLine = number;
            blocks.push_back(std::move(block));
        }
        open = false;
        group.clear();
    };
    for (std::size_t i = 0; i < lines.size(); ++i) {
        const auto t = trim(lines[i]);
        const std::size_t number = i + 1;
        if (t.empty() || t.front() != '{') {
            if (open && !t.empty()) {
                closeBlock(number);
            }
            continue;
        }
        auto j = nlohmann::json::parse(t.begin(), t.end(), nullptr, false);
        if (j.is_discarded() || !j.is_object()) {
            return importError(src, number, "not a perf stat --json line: " + quoteLine(t));
        }
        if (!open) {
            block = Block{};
            block.layout = "json";
            block.line = number;
            block.complete = true;
            open = true;
        }
        ++block.jsonLines;
        block.lastLine = number;
        if (j.contains("counter-value")) {
            Count c;
            c.line = number;
            const auto value = text(j, "counter-value");
            if (isMissing(value)) {
                c.missing = value;
            } else if (auto v = parseNumber(value)) {
                c.value = *v;
            } else {
                return importError(src, number, "counter-value '" + value + "' is not a number");
            }
            c.unit = text(j, "unit");
            c.event = text(j, "event");
            if (c.event.empty()) {
                return importError(src, number, "a --json counter without its event: " + quoteLine(t));
            }
            if (j.contains("cpu")) {
                c.scope = "CPU" + text(j, "cpu");
            } else if (j.contains("socket") || j.contains("core") || j.contains("die") || j.contains("node")) {
                c.scope = text(j, j.contains("core")   ? "core"
                                  : j.contains("die")  ? "die"
                                  : j.contains("node") ? "node"
                                                       : "socket");
                c.cpus = jsonNumber(j, "aggregate-number");
            }
            if (j.contains("interval")) {
                const auto stamp = text(j, "interval");
                if (block.intervalText.empty() || block.intervalText.back() != stamp) {
                    block.intervals.push_back(jsonNumber(j, "interval"));
                    block.intervalText.push_back(stamp);
                }
                block.interval = true;
                c.interval = static_cast<int>(block.intervals.size() - 1);
            }
            c.runtime = jsonNumber(j, "event-runtime");
            c.runningPct = jsonNumber(j, "pcnt-running");
            if (j.contains("variance")) {
                return importError(src, number,
                                   "a perf stat -r summary in --json does not say how many runs it averages: "
                                   "import its text output");
            }
            if (j.contains("metric-value")) {
                c.metrics.emplace_back(text(j, "metric-unit"), jsonNumber(j, "metric-value"));
            }
            block.counts.push_back(std::move(c));
        } else if (j.contains("metricgroup")) {
            group = text(j, "metricgroup");
            ++block.groupHeaders;
        } else if (j.contains("metric-unit")) {
            GroupMetric g;
            g.group = group;
            g.line = number;
            const std::string unitText = text(j, "metric-unit");
            const auto unit = trim(unitText);
            g.name = std::string(!unit.empty() && unit.front() == '%' ? trim(unit.substr(1)) : unit);
            g.value = jsonNumber(j, "metric-value");
            g.runningPct = jsonNumber(j, "pcnt-running");
            block.groupMetrics.push_back(std::move(g));
        } else {
            return importError(src, number, "a --json line perf stat does not print: " + quoteLine(t));
        }
    }
    closeBlock(lines.size());
    return blocks;
}

}  // namespace nf::engine::perf
