#pragma once
// Results of tools engineers already run (perf stat, sar, xdpsock, xdp-bench, the kernel's
// time_bench, page_frag_test and pktgen) read into the same layout a measured run has: raw
// quantities per sample, metrics as ratios of their sums. Parsing is pure: text in, table out.

#include <functional>
#include <nlohmann/json.hpp>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "engine/model/run_data.h"
#include "probes/result.h"

namespace nf::engine {

struct ImportSource {
    std::string path;  // as named on the command line; errors and the run's origin use it
    std::string text;
};

struct ImportOptions {
    std::string iface;        // sar: the interface to read (needed when the file has several)
    std::optional<int> runs;  // perf stat -r N summaries written with -x, (the text does not say N)
};

struct ImportSample {
    double duration = 0;         // seconds the sample covers (0 when the tool does not say)
    std::vector<double> values;  // RunLayout::quantities order; NaN where missing
};

// What one or more files hold. Each repetition is one independent measurement: one run of the
// tool for formats that print one result per run (perf-stat, time-bench, page-frag-test, pktgen),
// one file for interval formats (sar, xdpsock, xdp-bench), whose intervals are its samples.
struct ImportTable {
    RunLayout layout;
    std::vector<std::vector<ImportSample>> repetitions;
    std::string host;                                      // when the file says (sar's header), else ""
    std::string kernel;                                    // likewise
    nlohmann::json unsupported = nlohmann::json::array();  // [{name, reason}] events the tool could not count
    // Repetition values rebuilt from per-invocation summaries (perf stat -r: mean, its +- and n):
    // each summary becomes n values with exactly its mean and standard deviation.
    bool reconstructed = false;
    std::vector<std::string> notes;  // recorded with the run
};

struct ImportFormat {
    std::string name;      // "perf-stat"
    std::string summary;   // one line for --help
    bool perFile = false;  // one repetition per file (interval formats)
    std::function<Result<ImportTable>(const ImportSource&, const ImportOptions&)> parse;
};

const std::vector<ImportFormat>& importFormats();
const ImportFormat* findImportFormat(std::string_view name);

// Parses every file and joins their repetitions; files must agree on quantities and metrics.
// Errors are one line naming the file (and line): "b.txt:7: ...".
Result<ImportTable> parseImportFiles(const ImportFormat& format, const std::vector<ImportSource>& files,
                                     const ImportOptions& options);

// Helpers the parsers share.
Error importError(const ImportSource& src, std::size_t line, const std::string& what);  // line 0: no line
std::vector<std::string_view> splitLines(std::string_view text);
std::vector<std::string_view> splitWords(std::string_view line);
std::string_view trim(std::string_view text);
// A decimal number, all of `text`; with `grouped`, thousands separators (',') are allowed.
std::optional<double> parseNumber(std::string_view text, bool grouped = false);
// The line (1-based) of the first NUL byte or invalid control character, 0 if none.
std::size_t binaryLine(std::string_view text);
// Shows a line in an error message: at most 60 characters.
std::string quoteLine(std::string_view line);
// `table` when every value is finite (or NaN: missing) and every duration finite and not negative;
// else an error naming the quantity. Parsers return through it: a number that parses can still
// overflow once scaled (a rate times its interval, packets times their size).
Result<ImportTable> checkedTable(const ImportSource& src, ImportTable table);

Result<ImportTable> parsePerfStat(const ImportSource& src, const ImportOptions& options);
Result<ImportTable> parseSar(const ImportSource& src, const ImportOptions& options);
Result<ImportTable> parseXdpsock(const ImportSource& src, const ImportOptions& options);
Result<ImportTable> parseXdpBench(const ImportSource& src, const ImportOptions& options);
Result<ImportTable> parseTimeBench(const ImportSource& src, const ImportOptions& options);
Result<ImportTable> parsePageFragTest(const ImportSource& src, const ImportOptions& options);
Result<ImportTable> parsePktgen(const ImportSource& src, const ImportOptions& options);

}  // namespace nf::engine
