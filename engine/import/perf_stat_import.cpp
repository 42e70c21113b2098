// perf stat: `-x,` lines (several runs appended in one file, e.g. with -o FILE --append) and the
// human-readable text, including `-r N` summaries ("mean ( +- noise% )").

#include <cmath>
#include <limits>
#include <regex>

#include "engine/import/import_format.h"

namespace nf::engine {
namespace {

constexpr double kNaN = std::numeric_limits<double>::quiet_NaN();
// perf stat -r N summaries are rebuilt into N values each: at most this many per summary, and
// kMaxRebuilt in all (as many samples as a long measured run has).
constexpr int kMaxRuns = 100000;
constexpr long kMaxRebuilt = 1000000;

struct EventValue {
    std::string event;
    std::string unit;
    double value = kNaN;
    std::string missing;  // "<not supported>" or "<not counted>"
    double relNoise = 0;  // percent: perf's +- is the standard error of the mean over 100 * mean
    std::size_t line = 0;
};

struct PerfRun {
    std::vector<EventValue> events;
    double elapsed = kNaN;    // seconds time elapsed
    double elapsedNoise = 0;  // its +- (standard error, seconds)
    int runs = 1;             // n of a -r summary
    bool summary = false;
    std::size_t line = 0;  // where it starts
};

bool isUnit(std::string_view word)
{
    static const std::vector<std::string_view> units = {"msec", "usec", "nsec",   "sec", "ns", "us",
                                                        "ms",   "s",    "Joules", "MiB", "kB", "bytes"};
    return std::find(units.begin(), units.end(), word) != units.end();
}

class PerfStatParser {
public:
    PerfStatParser(const ImportSource& src, const ImportOptions& options) : m_src(src), m_options(options) {}

    Result<std::vector<PerfRun>> parse()
    {
        const auto lines = splitLines(m_src.text);
        for (std::size_t i = 0; i < lines.size(); ++i) {
            if (auto r = parseLine(lines[i], i + 1); !r) {
                return r.error();
            }
        }
        closeRun();
        return std::move(m_runs);
    }

private:
    Result<void> parseLine(std::string_view line, std::size_t number)
    {
        const auto text = trim(line);
        if (text.empty()) {
            return {};
        }
        if (text.find("Performance counter stats for") != std::string_view::npos) {
            return startHumanBlock(text, number);
        }
        if (text.front() == '#') {
            if (text.find("started on") != std::string_view::npos) {
                closeRun();
            }
            return {};
        }
        if (m_human) {
            return line.front() == ' ' || line.front() == '\t' ? humanLine(text, number) : Result<void>{};
        }
        return csvLine(text, number);
    }

    Result<void> startHumanBlock(std::string_view text, std::size_t number)
    {
        if (m_csvSeen) {
            return importError(m_src, number, "human-readable perf stat output mixed with -x, lines");
        }
        closeRun();
        m_human = true;
        m_current.line = number;
        static const std::regex runs(R"(\((\d+) runs\))");
        std::match_results<std::string_view::const_iterator> m;
        if (std::regex_search(text.begin(), text.end(), m, runs)) {
            const auto n = parseNumber(m[1].str());
            if (!n || *n < 1 || *n > kMaxRuns) {
                return importError(m_src, number,
                                   "'(" + m[1].str() + " runs)': expected 1 to " + std::to_string(kMaxRuns) + " runs");
            }
            m_current.summary = true;
            m_current.runs = static_cast<int>(*n);
        }
        m_open = true;
        return {};
    }

    // "0.43 msec task-clock  # 0.134 CPUs utilized  ( +-  5.28% )", "<not supported> cycles",
    // "0.00319 +- 0.00244 seconds time elapsed  ( +- 76.57% )", "0.0012 seconds user".
    Result<void> humanLine(std::string_view text, std::size_t number)
    {
        const auto words = splitWords(text.substr(0, text.find('#')));
        if (text.find("seconds time elapsed") != std::string_view::npos) {
            auto value = parseNumber(words.at(0), true);
            if (!value) {
                return importError(m_src, number, "unreadable elapsed time " + quoteLine(text));
            }
            m_current.elapsed = *value;
            if (words.size() > 2 && words[1] == "+-") {
                m_current.elapsedNoise = parseNumber(words[2], true).value_or(0);
            }
            return {};
        }
        if (text.find("seconds user") != std::string_view::npos || text.find("seconds sys") != std::string_view::npos) {
            return {};
        }
        EventValue e;
        e.line = number;
        std::size_t next = 1;
        if (text.rfind("<not supported>", 0) == 0 || text.rfind("<not counted>", 0) == 0) {
            e.missing = std::string(text.substr(0, text.find('>') + 1));
            const auto rest = splitWords(text.substr(e.missing.size()));
            if (rest.empty()) {
                return importError(m_src, number, "an event line without its event: " + quoteLine(text));
            }
            e.event = std::string(rest[0]);
            return addEvent(std::move(e), number);
        }
        auto value = words.empty() ? std::nullopt : parseNumber(words[0], true);
        if (!value || words.size() < 2) {
            return importError(m_src, number, "not a perf stat counter line: " + quoteLine(text));
        }
        e.value = *value;
        if (words.size() > 2 && isUnit(words[1])) {
            e.unit = std::string(words[1]);
            next = 2;
        }
        e.event = std::string(words[next]);
        static const std::regex noise(R"(\(\s*\+-\s*([0-9.]+)%\s*\))");
        std::match_results<std::string_view::const_iterator> m;
        if (std::regex_search(text.begin(), text.end(), m, noise)) {
            const auto relNoise = parseNumber(m[1].str());
            if (!relNoise) {
                return importError(m_src, number, "unreadable '+- N%' noise in " + quoteLine(text));
            }
            e.relNoise = *relNoise;
        }
        return addEvent(std::move(e), number);
    }

    // value,unit,event[,variance%],run_time,percent_running,metric,metric_unit
    Result<void> csvLine(std::string_view text, std::size_t number)
    {
        std::vector<std::string_view> fields;
        std::size_t start = 0;
        for (;;) {
            auto comma = text.find(',', start);
            fields.push_back(
                text.substr(start, comma == std::string_view::npos ? std::string_view::npos : comma - start));
            if (comma == std::string_view::npos) {
                break;
            }
            start = comma + 1;
        }
        if (fields.size() < 4 || fields[2].empty()) {
            return importError(m_src, number, "not a perf stat -x, line: " + quoteLine(text));
        }
        m_csvSeen = true;
        EventValue e;
        e.line = number;
        e.unit = std::string(fields[1]);
        e.event = std::string(fields[2]);
        if (fields[0] == "<not supported>" || fields[0] == "<not counted>") {
            e.missing = std::string(fields[0]);
        } else if (auto value = parseNumber(fields[0])) {
            e.value = *value;
        } else {
            return importError(m_src, number, "counter value '" + std::string(fields[0]) + "' is not a number");
        }
        const bool summary = !fields[3].empty() && fields[3].back() == '%';
        if (summary) {
            auto noise = parseNumber(fields[3].substr(0, fields[3].size() - 1));
            if (!noise) {
                return importError(m_src, number, "variance '" + std::string(fields[3]) + "' is not a percentage");
            }
            e.relNoise = *noise;
        }
        const bool repeated = std::any_of(m_current.events.begin(), m_current.events.end(),
                                          [&](const EventValue& v) { return v.event == e.event; });
        if (repeated) {
            closeRun();
        }
        if (!m_open) {
            m_open = true;
            m_current.line = number;
            m_current.summary = summary;
        } else if (m_current.summary != summary) {
            return importError(m_src, number, "a -r summary line mixed with single-run lines");
        }
        if (summary) {
            if (!m_options.runs) {
                return importError(m_src, number,
                                   "a perf stat -r summary written with -x, does not say how many runs it averages: "
                                   "give --runs N");
            }
            m_current.runs = *m_options.runs;
        }
        return addEvent(std::move(e), number);
    }

    Result<void> addEvent(EventValue e, std::size_t number)
    {
        if (!m_open) {
            m_open = true;
            m_current.line = number;
        }
        m_current.events.push_back(std::move(e));
        return {};
    }

    void closeRun()
    {
        if (m_open && (!m_current.events.empty() || !std::isnan(m_current.elapsed))) {
            m_runs.push_back(std::move(m_current));
        }
        m_current = PerfRun{};
        m_open = false;
        m_human = false;
    }

    const ImportSource& m_src;
    const ImportOptions& m_options;
    std::vector<PerfRun> m_runs;
    PerfRun m_current;
    bool m_open = false;
    bool m_human = false;
    bool m_csvSeen = false;
};

// Every run must count the same events in the same order as the first.
Result<void> checkSameEvents(const ImportSource& src, const std::vector<PerfRun>& runs)
{
    const auto& first = runs.front();
    for (std::size_t r = 1; r < runs.size(); ++r) {
        const auto& run = runs[r];
        for (std::size_t e = 0; e < run.events.size(); ++e) {
            if (e >= first.events.size() || run.events[e].event != first.events[e].event) {
                return importError(
                    src, run.events[e].line,
                    "event '" + run.events[e].event + "' where the first run has " +
                        (e < first.events.size() ? "'" + first.events[e].event + "'" : "no more events") +
                        " (runs with different events mixed?)");
            }
        }
        if (run.events.size() < first.events.size()) {
            return importError(src, run.events.empty() ? run.line : run.events.back().line,
                               "run " + std::to_string(r + 1) + " ends after " + std::to_string(run.events.size()) +
                                   " of " + std::to_string(first.events.size()) + " events (truncated?)");
        }
        if (run.summary != first.summary || std::isnan(run.elapsed) != std::isnan(first.elapsed)) {
            return importError(src, run.line, "run " + std::to_string(r + 1) + " is not of the same kind as the first");
        }
    }
    return {};
}

// The i-th of n values with mean m and standard deviation sd (sample, n - 1): symmetric around m.
double rebuilt(double mean, double sd, int i, int n)
{
    if (n < 2 || sd == 0) {
        return mean;
    }
    if (n % 2 == 1) {
        return i == 0 ? mean : mean + ((i % 2 == 1) ? sd : -sd);
    }
    const double d = sd * std::sqrt(static_cast<double>(n - 1) / n);
    return mean + ((i % 2 == 0) ? d : -d);
}

ImportTable tableOf(const std::vector<PerfRun>& runs)
{
    ImportTable table;
    const auto& first = runs.front();
    std::vector<std::size_t> kept;  // events counted in at least one run
    for (std::size_t e = 0; e < first.events.size(); ++e) {
        const bool counted =
            std::any_of(runs.begin(), runs.end(), [&](const PerfRun& r) { return r.events[e].missing.empty(); });
        if (counted) {
            kept.push_back(e);
        } else {
            table.unsupported.push_back({{"name", first.events[e].event}, {"reason", first.events[e].missing}});
        }
    }
    const bool elapsed = !std::isnan(first.elapsed);
    for (std::size_t e : kept) {
        const auto& ev = first.events[e];
        table.layout.quantities.push_back(ev.event);
        table.layout.metrics.push_back({ev.event, ev.unit.empty() ? "count" : ev.unit, ev.event, "runs", 1.0, false,
                                        "perf stat event " + ev.event + " per run", ""});
    }
    if (elapsed) {
        table.layout.quantities.emplace_back("time_elapsed");
        table.layout.metrics.push_back(
            {"time_elapsed", "s", "time_elapsed", "runs", 1.0, false, "wall time of the command per run", ""});
    }
    table.layout.quantities.emplace_back("runs");
    for (const auto& run : runs) {
        const int n = run.summary ? run.runs : 1;
        for (int i = 0; i < n; ++i) {
            ImportSample sample;
            for (std::size_t e : kept) {
                const auto& ev = run.events[e];
                const double sd = std::fabs(ev.value) * ev.relNoise / 100.0 * std::sqrt(static_cast<double>(n));
                sample.values.push_back(ev.missing.empty() ? rebuilt(ev.value, sd, i, n) : kNaN);
            }
            if (elapsed) {
                sample.values.push_back(
                    rebuilt(run.elapsed, run.elapsedNoise * std::sqrt(static_cast<double>(n)), i, n));
                // A rebuilt value can lie below zero (mean - sd); the run itself took the mean.
                sample.duration = run.elapsed;
            }
            sample.values.push_back(1.0);
            table.repetitions.push_back({std::move(sample)});
        }
    }
    table.reconstructed = first.summary;
    if (first.summary) {
        table.notes.emplace_back(
            "values rebuilt from perf stat -r summaries (mean, +- standard error, n): means, standard deviations, "
            "Welch's t and the t intervals are exact; rank tests and outlier checks are not meaningful");
    }
    return table;
}

}  // namespace

Result<ImportTable> parsePerfStat(const ImportSource& src, const ImportOptions& options)
{
    if (auto line = binaryLine(src.text)) {
        return importError(src, line, "binary data, not perf stat output");
    }
    if (options.runs && (*options.runs < 2 || *options.runs > kMaxRuns)) {
        return Error{"--runs " + std::to_string(*options.runs) + ": a -r summary averages 2 to " +
                     std::to_string(kMaxRuns) + " runs"};
    }
    auto runs = PerfStatParser(src, options).parse();
    if (!runs) {
        return runs.error();
    }
    if (runs->empty()) {
        return importError(src, 0, "no perf stat results in it");
    }
    long total = 0;
    for (const auto& run : *runs) {
        total += run.summary ? run.runs : 1;
    }
    if (total > kMaxRebuilt) {
        return importError(src, 0,
                           "its summaries stand for " + std::to_string(total) + " runs, more than " +
                               std::to_string(kMaxRebuilt) + " can be rebuilt");
    }
    if (auto same = checkSameEvents(src, *runs); !same) {
        return same.error();
    }
    auto table = tableOf(*runs);
    std::ranges::move(importedCounterMetrics(table.layout.quantities), std::back_inserter(table.layout.metrics));
    if (table.layout.metrics.empty()) {
        return importError(src, 0, "no event was counted in any run");
    }
    return checkedTable(src, std::move(table));
}

}  // namespace nf::engine
