#pragma once
// perf stat output read into blocks, one per perf invocation, before it becomes a table. The text,
// -x, and --json readers fill the same blocks; perf_stat_import.cpp turns them into a table.

#include <limits>
#include <optional>
#include <string>
#include <utility>
#include <vector>

#include "engine/import/import_format.h"

namespace nf::engine::perf {

constexpr double kNaN = std::numeric_limits<double>::quiet_NaN();

// One counter line: "29,931,407,416 cycles # 2.993 GHz ( +- 0.05% ) (54.18%)".
struct Count {
    std::string scope;  // "" (aggregate), "CPU0", "S0", "S0-D0-C3", "N0"
    std::string event;  // with a PMU suffix when perf prints one: "data_read [uncore_imc_free_running_0]"
    std::string unit;   // "msec", "MiB", "Joules", "" for counts
    double value = kNaN;
    std::string missing;                                  // "<not supported>", "<not counted>"
    double noisePct = kNaN;                               // -r: 100 * standard error / mean
    double runningPct = kNaN;                             // multiplexed: the share of the time the event was counted
    double runtime = kNaN;                                // -x, / --json: event-runtime
    double cpus = kNaN;                                   // --per-socket/--per-core: CPUs aggregated in the row
    int interval = -1;                                    // -I: index into Block::intervals
    std::vector<std::pair<std::string, double>> metrics;  // what perf derived, "insn per cycle" 1.38
    std::vector<std::pair<std::string, double>> continuation;  // metrics on the "#" lines below it
    std::size_t line = 0;

    std::string key() const { return scope.empty() ? event : scope + " " + event; }
};

// A metric of a metric group (TopdownL1, TopdownL2), in percent; NaN where perf printed "nan".
struct GroupMetric {
    std::string group;  // "TopdownL1 (cpu_core)"
    std::string name;   // "tma_backend_bound"
    double value = kNaN;
    double runningPct = kNaN;
    std::size_t line = 0;
};

struct Block {
    std::string layout;       // "text", "csv", "json"
    std::string command;      // what the header names: "'sleep 1'", "'system wide'", "" when not printed
    bool headerless = false;  // text counter lines and their elapsed line without the header before them
    bool summary = false;     // perf stat -r N
    int runs = 1;
    bool interval = false;  // -I
    double elapsed = kNaN;
    double elapsedSe = kNaN;        // the "+- X" of a -r summary (perf's standard error of the mean)
    double elapsedNoisePct = kNaN;  // "( +- 1.02% )"
    double user = kNaN;
    double sys = kNaN;
    std::vector<Count> counts;
    std::vector<GroupMetric> groupMetrics;
    std::size_t groupHeaders = 0;           // -x, / --json metric group header rows
    std::vector<double> intervals;          // -I timestamps (seconds since start)
    std::vector<std::string> intervalText;  // as printed
    std::vector<Count> summaryCounts;       // -I --summary rows (-x,): totals, checked but not stored
    std::size_t jsonLines = 0;
    std::size_t line = 0;  // where it starts
    std::size_t endLine = 0;
    std::size_t lastLine = 0;  // the last line that is part of it
    bool complete = false;     // reached the end perf prints (elapsed line, or the end of -x,/-I lines)
};

// Numbers in the style the file shows: a first pass only votes, the second converts.
class Numbers {
public:
    Numbers(const ImportSource& src, const NumberStyle* style) : m_src(src), m_style(style) {}
    // The value of `token`; in the voting pass 0 for anything that could be a number.
    Result<double> read(std::string_view token, std::size_t line, NumberKind kind, const char* what);
    bool voting() const { return m_style == nullptr; }
    // One clear line about line `line` of the source.
    Error error(std::size_t line, const std::string& text) const;
    const NumberStyleVote& vote() const { return m_vote; }

private:
    const ImportSource& m_src;
    const NumberStyle* m_style;
    NumberStyleVote m_vote;
};

bool looksNumeric(std::string_view token);  // digits with separators, a sign or an exponent
// A count grouped by spaces, as fr_FR (U+202F), ru_RU (U+00A0) and others print it, or by ASCII
// spaces: "173 719 355 962" from words[w] on. The number without its group separators and the words it
// took; nothing when words[w] does not start such a number.
std::optional<std::pair<std::string, std::size_t>> spaceGrouped(const std::vector<std::string_view>& words,
                                                                std::size_t w);
bool isMissing(std::string_view token);                // "<not supported>", "<not counted>"
bool isScope(std::string_view word, bool& aggregate);  // CPU0 (per-CPU), S0 / S0-D0-C1 / N0 (aggregate)
bool isUnit(std::string_view word);                    // "msec", "Joules", "MiB" ...
bool startsWith(std::string_view text, std::string_view prefix);
bool isPerfNote(std::string_view text);  // a line perf prints inside a block that carries no value

// What a line ends with: "( +- 0.51% )" (noise over -r runs) and "(54.18%)" (the counted share).
struct Noise {
    double noisePct = kNaN;
    double runningPct = kNaN;
};

// Takes the noise and counted share off the end of `text` into `out`; returns the text before them.
Result<std::string_view> noise(Numbers& num, std::string_view text, std::size_t number, Noise& out);
// "2.993 GHz", "0.19% of all branches", "nan %  tma_backend_bound": the metric's name and value.
Result<std::pair<std::string, double>> metric(Numbers& num, std::string_view text, std::size_t number);
// A metric after its noise and counted share are taken off.
Result<std::pair<std::string, double>> metricWithNoise(Numbers& num, std::string_view text, std::size_t number,
                                                       Noise& n);

Result<std::vector<Block>> parseTextBlocks(const ImportSource& src, Numbers& numbers);
Result<std::vector<Block>> parseCsvBlocks(const ImportSource& src, const ImportOptions& options);
Result<std::vector<Block>> parseJsonBlocks(const ImportSource& src);

}  // namespace nf::engine::perf
