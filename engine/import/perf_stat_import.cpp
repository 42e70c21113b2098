// perf stat: the text, -x, and --json readers give blocks (perf_stat_text.cpp, perf_stat_csv.cpp);
// here they become a table. One block is one run of perf stat: a repetition. A -r N block is a
// summary (n, mean, standard error per event), stored as such, never as N made-up values. An -I
// block is one repetition whose intervals are its samples.

#include <algorithm>
#include <cctype>
#include <cmath>
#include <map>
#include <set>

#include "engine/import/perf_stat_blocks.h"

namespace nf::engine {
namespace {

using perf::Block;
using perf::Count;
using perf::kNaN;

std::string fmtLine(std::size_t line)
{
    return "line " + std::to_string(line);
}

bool isJson(std::string_view text)
{
    for (auto line : splitLines(text.substr(0, 1 << 20))) {
        line = trim(line);
        if (!line.empty() && line.front() == '{' && line.find("\"counter-value\"") != std::string_view::npos) {
            return true;
        }
    }
    return false;
}

bool isText(std::string_view text)
{
    return text.find("Performance counter stats for") != std::string_view::npos ||
           text.find("counts unit events") != std::string_view::npos ||
           text.find("seconds time elapsed") != std::string_view::npos;
}

// What the blocks are, and that they can share one table.
Result<void> checkBlocks(const ImportSource& src, const std::vector<Block>& blocks)
{
    const auto& first = blocks.front();
    for (std::size_t b = 1; b < blocks.size(); ++b) {
        const auto& block = blocks[b];
        if (block.interval || first.interval) {
            return importError(src, block.line,
                               "a second perf stat -I output (the first starts at " + fmtLine(first.line) +
                                   "): import each in its own run");
        }
        if (block.summary != first.summary) {
            return importError(src, block.line,
                               std::string("a perf stat ") + (block.summary ? "-r summary" : "single run") +
                                   " after a " + (first.summary ? "-r summary" : "single run") + " (" +
                                   fmtLine(first.line) + "): import them separately");
        }
        if (!block.command.empty() && !first.command.empty() && block.command != first.command) {
            return importError(src, block.line,
                               "perf stat of " + block.command + " after perf stat of " + first.command + " (" +
                                   fmtLine(first.line) + "): two different commands; import each separately");
        }
        for (std::size_t e = 0; e < block.counts.size(); ++e) {
            if (e >= first.counts.size() || block.counts[e].key() != first.counts[e].key()) {
                return importError(
                    src, block.counts[e].line,
                    "event '" + block.counts[e].key() + "' where the first run has " +
                        (e < first.counts.size() ? "'" + first.counts[e].key() + "'" : "no more events") +
                        " (runs with different events mixed?)");
            }
        }
        if (block.counts.size() < first.counts.size()) {
            return importError(src, block.counts.empty() ? block.line : block.counts.back().line,
                               "run " + std::to_string(b + 1) + " ends after " + std::to_string(block.counts.size()) +
                                   " of " + std::to_string(first.counts.size()) + " events (truncated?)");
        }
        if (std::isnan(block.elapsed) != std::isnan(first.elapsed)) {
            return importError(src, block.line,
                               "run " + std::to_string(b + 1) + " is not of the same kind as the first");
        }
    }
    return {};
}

void addReadings(ImportTable& table, const Block& block, const std::string& run)
{
    auto read = [&](const std::string& key, double v) {
        if (!std::isnan(v)) {
            table.read(run + key, v);
        }
    };
    std::map<std::string, std::size_t> perGroup;
    std::set<std::string> scopes;
    for (const auto& c : block.counts) {
        const std::string at =
            c.interval >= 0 ? "interval " + block.intervalText[static_cast<std::size_t>(c.interval)] + " " : "";
        if (!c.scope.empty()) {
            scopes.insert(c.scope);
            read(at + c.key(), c.value);
            read(at + c.scope + " aggregated cpus", c.cpus);
        } else if (!at.empty()) {
            read(at + c.event, c.value);
        }
        const std::string e = at + "event " + c.key();
        read(e, c.value);
        read(e + " count", c.value);
        read(e + " counter-value", c.value);
        read(e + " noise_pct", c.noisePct);
        read(e + " multiplex pct", c.runningPct);
        read(e + " pct running", c.runningPct);
        read(e + " pcnt-running", c.runningPct);
        read(e + " runtime", c.runtime);
        read(e + " event-runtime", c.runtime);
        if (!c.metrics.empty()) {
            read(e + " metric", c.metrics.front().second);
            read(e + " metric " + c.metrics.front().first, c.metrics.front().second);
        }
        for (const auto& [name, v] : c.continuation) {
            read(e + " continuation metric " + name, v);
        }
    }
    for (const auto& c : block.summaryCounts) {
        read("summary " + c.key(), c.value);
        if (!c.metrics.empty()) {
            read("summary " + c.key() + " metric", c.metrics.front().second);
        }
    }
    for (const auto& g : block.groupMetrics) {
        read("metric " + (g.group.empty() ? "" : g.group + " ") + g.name, g.value);
        ++perGroup[g.group];
    }
    for (const auto& [group, n] : perGroup) {
        read(group + " metrics", static_cast<double>(n));
    }
    read("elapsed", block.elapsed);
    read("elapsed stddev", block.elapsedSe);
    read("elapsed noise_pct", block.elapsedNoisePct);
    read("user time", block.user);
    read("sys time", block.sys);
    if (block.summary) {
        read("runs", block.runs);
    }
    const auto n = static_cast<double>(block.counts.size());
    for (const char* key : {"events", "counter rows", "rows", "interval rows", "JSON lines with counter-value"}) {
        read(key, n);
    }
    read("summary rows", static_cast<double>(block.summaryCounts.size()));
    read("metric rows", static_cast<double>(block.groupMetrics.size()));
    read("topdown metric lines", static_cast<double>(block.groupMetrics.size()));
    read("metricgroup header rows", static_cast<double>(block.groupHeaders));
    read("JSON lines with metricgroup", static_cast<double>(block.groupHeaders));
    if (block.jsonLines > 0) {
        read("JSON lines total", static_cast<double>(block.jsonLines));
    }
    if (!scopes.empty()) {
        read("scopes", static_cast<double>(scopes.size()));
    }
    if (block.interval) {
        read("intervals", static_cast<double>(block.intervals.size()));
        read("events per interval", block.intervals.empty() ? 0 : n / static_cast<double>(block.intervals.size()));
        if (!block.intervals.empty()) {
            read("last interval timestamp", block.intervals.back());
        }
    }
}

std::string detectedOf(const std::vector<Block>& blocks, const perf::Numbers* numbers, const NumberStyle& style)
{
    const auto& b = blocks.front();
    std::string d = "perf stat " + std::string(b.layout == "csv" ? "-x," : b.layout == "json" ? "--json" : "text");
    if (b.summary) {
        d += ", -r " + std::to_string(b.runs) + " summar" + (blocks.size() > 1 ? "ies" : "y");
    } else if (blocks.size() > 1) {
        d += ", " + std::to_string(blocks.size()) + " runs";
    }
    if (b.interval) {
        d += ", -I intervals";
    }
    bool cpu = false;
    bool agg = false;
    bool hybrid = false;
    for (const auto& c : b.counts) {
        cpu = cpu || c.scope.rfind("CPU", 0) == 0;
        agg = agg || (!c.scope.empty() && c.scope.rfind("CPU", 0) != 0);
        hybrid = hybrid || c.event.rfind("cpu_atom/", 0) == 0;
    }
    d += cpu ? ", per CPU (-A)" : agg ? ", per socket/die/core" : "";
    d += hybrid ? ", hybrid cpu_core/cpu_atom" : "";
    d += b.groupMetrics.empty() ? "" : ", metric groups";
    if (numbers != nullptr && style.decimal == ',') {
        d += ", numbers in " + style.name();
    }
    return d;
}

struct Column {
    std::string quantity;
    std::string unit;
    bool metric = true;
};

// Quantities in first-seen order: every counter (per CPU/socket too), a total per event of scoped
// counters, every metric of a metric group.
std::vector<Column> columnsOf(const Block& first, bool summary)
{
    std::vector<Column> cols;
    std::set<std::string> seen;
    auto add = [&](const std::string& name, const std::string& unit, bool metric) {
        if (seen.insert(name).second) {
            cols.push_back({name, unit, metric});
        }
    };
    for (const auto& c : first.counts) {
        add(c.key(), c.unit.empty() ? "count" : c.unit, c.scope.empty());
    }
    for (const auto& c : first.counts) {
        if (!c.scope.empty()) {
            add(c.event, c.unit.empty() ? "count" : c.unit, true);
        }
    }
    if (!summary) {
        for (const auto& g : first.groupMetrics) {
            add((g.group.empty() ? "" : g.group + " ") + g.name, "%", true);
        }
    }
    return cols;
}

// The value of each column in `block` (interval -1: the whole block).
std::map<std::string, double> valuesOf(const Block& block, int interval)
{
    std::map<std::string, double> v;
    for (const auto& c : block.counts) {
        if (interval >= 0 && c.interval != interval) {
            continue;
        }
        v[c.key()] = c.value;
        if (!c.scope.empty()) {
            auto& total = v.try_emplace(c.event, 0.0).first->second;
            total += c.value;  // NaN when a CPU's count is missing
        }
    }
    for (const auto& g : block.groupMetrics) {
        v[(g.group.empty() ? "" : g.group + " ") + g.name] = g.value;
    }
    return v;
}

double at(const std::map<std::string, double>& v, const std::string& key)
{
    const auto it = v.find(key);
    return it == v.end() ? kNaN : it->second;
}

// The columns counted somewhere in `values` (one map per run or interval); each column never
// counted is recorded in the table as unsupported, with the reason perf gave, and not stored: an
// event never counted is not a column of zeros or NaN.
std::vector<Column> countedColumns(const std::vector<Column>& cols,
                                   const std::vector<std::map<std::string, double>>& values, const Block& first,
                                   ImportTable& table)
{
    std::vector<Column> kept;
    for (const auto& c : cols) {
        const bool counted =
            std::any_of(values.begin(), values.end(), [&](const auto& v) { return !std::isnan(at(v, c.quantity)); });
        if (counted) {
            kept.push_back(c);
            continue;
        }
        // The counter lines behind the column: its own, or those of every scope (CPU, socket) of an event
        // whose total it is. A total is never stored as a sum over nothing.
        std::vector<const Count*> behind;
        for (const auto& x : first.counts) {
            if (x.key() == c.quantity || (!x.scope.empty() && x.event == c.quantity)) {
                behind.push_back(&x);
            }
        }
        if (behind.empty()) {
            kept.push_back(c);  // a metric perf printed as nan: kept, NaN
            continue;
        }
        const auto missing =
            std::find_if(behind.begin(), behind.end(), [](const Count* x) { return !x->missing.empty(); });
        const bool total = behind.front()->key() != c.quantity;
        table.unsupported.push_back({{"name", c.quantity},
                                     {"reason", missing == behind.end() ? std::string("<not counted>")
                                                : total ? (*missing)->missing + " on " + (*missing)->scope
                                                        : (*missing)->missing}});
    }
    return kept;
}

Result<ImportTable> intervalTable(const ImportSource& src, const Block& block, const std::vector<Column>& allColumns)
{
    ImportTable table;
    std::vector<std::map<std::string, double>> values;
    values.reserve(block.intervals.size());
    for (std::size_t i = 0; i < block.intervals.size(); ++i) {
        values.push_back(valuesOf(block, static_cast<int>(i)));
    }
    const std::vector<Column> cols = countedColumns(allColumns, values, block, table);
    for (const auto& c : cols) {
        table.layout.quantities.push_back(c.quantity);
        if (c.metric) {
            table.layout.metrics.push_back({c.quantity, c.unit + "/s", c.quantity, "seconds", 1.0, false,
                                            "perf stat -I: " + c.quantity + " per second", ""});
        }
    }
    table.layout.quantities.emplace_back("seconds");
    if (table.layout.metrics.empty()) {
        return importError(src, 0, "no event was counted in any interval");
    }
    std::vector<ImportSample> samples;
    double previous = 0;
    for (std::size_t i = 0; i < block.intervals.size(); ++i) {
        const auto& v = values[i];
        ImportSample s;
        s.duration = block.intervals[i] - previous;
        previous = block.intervals[i];
        for (const auto& c : cols) {
            s.values.push_back(at(v, c.quantity));
        }
        s.values.push_back(s.duration);
        samples.push_back(std::move(s));
    }
    table.repetitions.push_back(std::move(samples));
    return table;
}

Result<ImportTable> runsTable(const ImportSource& src, const std::vector<Block>& blocks,
                              const std::vector<Column>& cols)
{
    ImportTable table;
    const auto& first = blocks.front();
    std::vector<std::map<std::string, double>> values;
    values.reserve(blocks.size());
    for (const auto& b : blocks) {
        values.push_back(valuesOf(b, -1));
    }
    const std::vector<Column> kept = countedColumns(cols, values, first, table);
    const bool elapsed = !std::isnan(first.elapsed);
    const bool user = !std::isnan(first.user) && !first.summary;
    const bool sys = !std::isnan(first.sys) && !first.summary;
    for (const auto& c : kept) {
        table.layout.quantities.push_back(c.quantity);
        if (c.metric) {
            table.layout.metrics.push_back(
                {c.quantity, c.unit, c.quantity, "runs", 1.0, false, "perf stat " + c.quantity + " per run", ""});
        }
    }
    auto addTime = [&](bool present, const char* q, const char* what) {
        if (present) {
            table.layout.quantities.emplace_back(q);
            table.layout.metrics.push_back({q, "s", q, "runs", 1.0, false, what, ""});
        }
    };
    addTime(elapsed, "time_elapsed", "wall time of the command per run");
    addTime(user, "seconds_user", "user CPU time of the command per run");
    addTime(sys, "seconds_sys", "system CPU time of the command per run");
    table.layout.quantities.emplace_back("runs");
    if (table.layout.metrics.empty()) {
        return importError(src, 0, "no event was counted in any run");
    }
    for (std::size_t b = 0; b < blocks.size(); ++b) {
        const auto& block = blocks[b];
        const auto& v = values[b];
        ImportSample s;
        std::vector<ImportSummary> summary;
        for (const auto& c : kept) {
            const double x = at(v, c.quantity);
            s.values.push_back(x);
            if (block.summary && !std::isnan(x)) {
                const auto it = std::find_if(block.counts.begin(), block.counts.end(),
                                             [&](const Count& k) { return k.key() == c.quantity; });
                const double pct = it != block.counts.end() && !std::isnan(it->noisePct) ? it->noisePct : 0.0;
                summary.push_back({c.quantity, static_cast<double>(block.runs), x, std::fabs(x) * pct / 100});
            }
        }
        if (elapsed) {
            s.values.push_back(block.elapsed);
            s.duration = block.elapsed;
            if (block.summary) {
                const double se = !std::isnan(block.elapsedSe)         ? block.elapsedSe
                                  : !std::isnan(block.elapsedNoisePct) ? block.elapsed * block.elapsedNoisePct / 100
                                                                       : 0.0;
                summary.push_back({"time_elapsed", static_cast<double>(block.runs), block.elapsed, se});
            }
        }
        if (user) {
            s.values.push_back(block.user);
        }
        if (sys) {
            s.values.push_back(block.sys);
        }
        s.values.push_back(1.0);
        table.repetitions.push_back({std::move(s)});
        if (block.summary) {
            table.summaries.push_back(std::move(summary));
        }
    }
    if (first.summary) {
        table.notes.emplace_back(
            "perf stat -r summaries: stored as n, mean and standard error per event (the runs themselves were not "
            "printed); Welch's t and the ratio intervals use them exactly, rank tests need the runs and are not run");
    }
    return table;
}

// perf stat's text counter lines ("1,234,567      cycles   # 3.0 GHz"), with or without a header:
// more of them than -x, lines.
bool looksLikeTextCounters(std::string_view text)
{
    std::size_t counters = 0;
    std::size_t csv = 0;
    for (auto line : splitLines(text.substr(0, 1 << 20))) {
        const auto words = splitWords(line);
        if (words.empty()) {
            continue;
        }
        const auto next = words.size() >= 2 ? words[1] : std::string_view();
        if (perf::looksNumeric(words[0]) && !next.empty() &&
            (perf::isUnit(next) || std::isalpha(static_cast<unsigned char>(next.front())) != 0)) {
            ++counters;
        } else if (std::count(line.begin(), line.end(), ',') >= 4) {
            ++csv;
        }
    }
    return counters > csv;
}

// Lines after the last block that no reader took (another tool's output, a prompt): what was skipped.
void noteSkipped(ImportTable& table, std::string_view text, const std::vector<Block>& blocks)
{
    const auto lines = splitLines(text);
    std::size_t first = 0;
    std::size_t last = 0;
    std::size_t n = 0;
    for (std::size_t i = blocks.back().lastLine; i < lines.size(); ++i) {
        const auto t = trim(lines[i]);
        if (!t.empty() && !perf::isPerfNote(t)) {
            first = first == 0 ? i + 1 : first;
            last = i + 1;
            ++n;
        }
    }
    if (n == 0) {
        return;
    }
    table.notes.push_back(std::to_string(n) + " line" + (n == 1 ? "" : "s") + " after the perf stat output (" +
                          (first == last ? "line " + std::to_string(first)
                                         : "lines " + std::to_string(first) + "-" + std::to_string(last)) +
                          ", from " + quoteLine(lines[first - 1]) + ") not read: another tool's output?");
}

// perf stat -x, without a header: most lines are comma-separated fields with an event name.
bool looksLikeCsv(std::string_view text)
{
    std::size_t csv = 0;
    std::size_t lines = 0;
    for (auto line : splitLines(text.substr(0, 1 << 20))) {
        line = trim(line);
        if (line.empty()) {
            continue;
        }
        ++lines;
        const auto first = line.substr(0, line.find(','));
        const bool value = first.empty() || first == "summary" ||
                           first.find_first_not_of("0123456789.") == std::string_view::npos || first.front() == '<' ||
                           first.rfind("CPU", 0) == 0 || first.front() == 'S';
        csv += std::count(line.begin(), line.end(), ',') >= 4 && value ? 1 : 0;
    }
    return lines > 0 && (2 * csv > lines || (csv > 0 && contains(text, "perf stat -x")));
}

// Whole CPUs counted for as long as perf ran (-a: 'system wide', -C LIST: 'CPU(s) 20'): cpu-clock is then
// only the elapsed time times the CPUs, the same in every run. A block without its header counted CPUs
// when its cpu-clock (the clock perf stat counts for -a and -C; a command gets task-clock) is a whole
// number of CPUs times its elapsed time: the CPUs it counted, else 0.
int cpusOfHeaderless(const Block& b)
{
    const auto clock = std::find_if(b.counts.begin(), b.counts.end(),
                                    [](const Count& c) { return c.scope.empty() && c.event == "cpu-clock"; });
    if (clock == b.counts.end() || clock->unit != "msec" || !(b.elapsed > 0) || !(clock->value > 0)) {
        return 0;
    }
    const double cpus = clock->value / (b.elapsed * 1e3);
    const double whole = std::round(cpus);
    return whole >= 1 && std::fabs(cpus - whole) <= 0.005 * whole ? static_cast<int>(whole) : 0;
}

// What the first block counted, as notes, and the primary metric (the first) that follows from it: for
// whole CPUs over a fixed time, ipc (or cycles where instructions were not counted), not a clock.
void noteTarget(ImportTable& table, const std::vector<Block>& blocks)
{
    const auto& first = blocks.front();
    bool cpuWide = first.command.rfind("'CPU(s) ", 0) == 0 || first.command == "'system wide'";
    std::string why = "perf stat of " + first.command;
    for (const auto& b : blocks) {
        if (!b.headerless) {
            continue;
        }
        const int cpus = cpusOfHeaderless(b);
        std::string note = "no 'Performance counter stats for' header before the counter lines at line " +
                           std::to_string(b.line) + ": the target perf stat counted (CPUs, a command) is unknown";
        if (&b == &first && cpus > 0) {
            note += "; its cpu-clock is " + std::to_string(cpus) +
                    " x its elapsed time, as when perf stat -a or -C counts whole CPUs";
            why = "the block";
            cpuWide = true;
        }
        table.notes.push_back(std::move(note));
    }
    if (!cpuWide || first.interval) {
        return;
    }
    auto& ms = table.layout.metrics;
    for (const char* name : {"ipc", "cycles"}) {
        const auto it = std::find_if(ms.begin(), ms.end(), [&](const MetricSpec& m) { return m.name == name; });
        if (it != ms.end()) {
            std::rotate(ms.begin(), it, it + 1);
            table.notes.push_back(std::string(name) + " is the primary metric: " + why +
                                  " counted whole CPUs for as long as perf ran, so its cpu-clock is only that "
                                  "time times the CPUs");
            return;
        }
    }
}

int detectPerfStat(std::string_view text)
{
    if (containsAny(text, {"Performance counter stats for", "\"counter-value\"", "counts unit events",
                           "seconds time elapsed"})) {
        return detection::kMarked;
    }
    return looksLikeCsv(text) ? detection::kLayout : detection::kNotIt;
}

Result<ImportTable> parsePerfStat(const ImportSource& src, const ImportOptions& options)
{
    if (auto line = binaryLine(src.text)) {
        return importError(src, line, "binary data, not perf stat output");
    }
    if (options.runs && (*options.runs < 2 || *options.runs > 100000)) {
        return Error{"--runs " + std::to_string(*options.runs) + ": a -r summary averages 2 to 100000 runs"};
    }
    std::vector<Block> blocks;
    NumberStyle style;
    std::optional<perf::Numbers> numbers;
    if (isJson(src.text)) {
        blocks = NF_TRY(perf::parseJsonBlocks(src));
    } else if (isText(src.text) || looksLikeTextCounters(src.text)) {
        perf::Numbers vote(src, nullptr);
        NF_TRY(perf::parseTextBlocks(src, vote));
        style = NF_TRY(vote.vote().decide(src));
        numbers.emplace(src, &style);
        blocks = NF_TRY(perf::parseTextBlocks(src, *numbers));
    } else {
        blocks = NF_TRY(perf::parseCsvBlocks(src, options));
    }
    if (blocks.empty()) {
        return importError(src, 0, "no perf stat results in it");
    }
    NF_TRY(checkBlocks(src, blocks));
    const auto& first = blocks.front();
    const auto cols = columnsOf(first, first.summary);
    auto table = NF_TRY(first.interval ? intervalTable(src, first, cols) : runsTable(src, blocks, cols));
    table.detected = detectedOf(blocks, numbers ? &*numbers : nullptr, style);
    noteSkipped(table, src.text, blocks);
    table.tool = "perf stat";
    for (std::size_t b = 0; b < blocks.size(); ++b) {
        addReadings(table, blocks[b], b == 0 ? "" : "run " + std::to_string(b + 1) + " ");
    }
    // ipc and branch_miss_ratio beside the raw events, where the runs counted what they need. Not
    // for -r summaries: a ratio's spread needs the runs' covariance, which a summary does not give.
    if (!table.summarised()) {
        std::ranges::move(importedCounterMetrics(table.layout.quantities), std::back_inserter(table.layout.metrics));
    }
    noteTarget(table, blocks);
    return checkedTable(src, std::move(table));
}

}  // namespace

ImportFormat importers::perfStat()
{
    return {
        .name = "perf-stat",
        .tools = {"perf stat"},
        .summary =
            "perf stat text, -x, or --json; -r N summaries, -I intervals, -A / --per-socket / --per-core, "
            "hybrid and TopdownL1/L2 metrics",
        .detect = detectPerfStat,
        .parse = parsePerfStat,
        .dictionary = {"Performance counter stats for", "(5 runs)", "runs)", "seconds time elapsed", "seconds user",
                       "seconds sys", "+-", "( +- ", "%)", "<not supported>", "<not counted>", "msec", "task-clock",
                       "cycles", "# started on", ",", "100.00"},
    };
}

}  // namespace nf::engine
