#pragma once
// Results of tools engineers already run (perf stat, sar, xdpsock, xdp-bench, the kernel's
// time_bench, page_frag_test, pktgen: importer_list.h has them all) read into the same layout a
// measured run has: raw quantities per sample, metrics as ratios of their sums. Parsing is pure:
// text in, table out.

#include <functional>
#include <initializer_list>
#include <nlohmann/json.hpp>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "base/result.h"
#include "engine/import/importer_list.h"
#include "engine/model/profile.h"
#include "engine/model/run_data.h"

namespace nf::engine {

struct ImportSource {
    std::string path;  // as named on the command line; errors and the run's origin use it
    std::string text;
};

struct ImportOptions {
    std::string iface;        // sar: the interface to read (needed when the file has several)
    std::optional<int> runs;  // perf stat -r N summaries written with -x, (the text does not say N)
    // perf script and perf report: the event to read where the file holds several ("" = its only one).
    std::string event{};
    std::vector<int> cpus{};  // perf script: the CPUs whose samples to keep (empty: all), pooled
    double slice = 0;         // perf script: repetitions of this many seconds of each file (0: a file each)
};

// The largest file an import reads (docs/workflows.md): larger ones are refused before parsing.
constexpr std::size_t kMaxImportBytes = std::size_t{64} << 20;
// The most repetitions (runs of the tool, module loads, files) one import stores.
constexpr std::size_t kMaxImportRepetitions = 10000;

// A figure as the tool printed it, named as a reader would ("event cycles count", "eth0 rxpck/s
// 13:20:29", "thread 1 pps"). Every number an importer reads is listed, the stored ones and the
// ones it only checks, so that tests can hold each real file against the values a person reads off.
struct ImportReading {
    std::string key;
    double value = 0;
};

// What a tool summarised itself (perf stat -r N): the runs it averages, their mean and the
// standard error of that mean, per quantity. The values behind it were never printed.
struct ImportSummary {
    std::string quantity;
    double n = 0;
    double mean = 0;
    double se = 0;
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
    // perf stat -r N: summaries[r] holds repetition r's summaries (its one sample holds the means).
    // Empty for tables of measured values.
    std::vector<std::vector<ImportSummary>> summaries;
    std::string detected;            // the layout the parser recognised: "perf stat text, -r 200 summary"
    std::string tool;                // the tool and mode as the file names it ("xdp-bench redirect"), else ""
    std::string toolVersion;         // when the file prints it, else ""
    std::vector<std::string> notes;  // recorded with the run
    nlohmann::json rate;             // a packet rate joined with the counters (rate_join.h): where it came from
    std::vector<ImportReading> readings;
    // A profiler's output (perf script, perf report): each repetition's samples per symbol and stack,
    // one chunk per repetition (variant 0, index 0).
    std::optional<ProfileRecording> profile;
    // How many repetitions each file gave, in the order the files were given (parseImportFiles), so
    // that a repetition can be named by its file and its place there.
    std::vector<std::size_t> fileRepetitions;

    bool summarised() const { return !summaries.empty(); }
    void read(std::string key, double value);  // adds a reading (at most kMaxReadings are kept)
};
constexpr std::size_t kMaxReadings = 200000;

// How sure an importer is that a text is its tool's output (ImportFormat::detect): the importers
// with the highest score above kNotIt are the candidates.
namespace detection {
inline constexpr int kNotIt = 0;
inline constexpr int kLayout = 1;  // only its layout fits (perf stat -x, without its header)
inline constexpr int kMarked = 2;  // it carries the tool's own marks (a header, a banner, a keyword)
// kMarked when the text carries the tool's marks, else kNotIt: the whole detection of an importer
// that looks only for marks (containsAll / containsAny of them).
constexpr int markedIf(bool marks)
{
    return marks ? kMarked : kNotIt;
}
}  // namespace detection

// One importer, declared once in its own file (importer_list.h lists them): everything that derives
// from it (detection, the CLI's tools and help, the fuzz target and its dictionary, the start page)
// reads this.
struct ImportFormat {
    std::string name;                // "perf-stat": the TOOL of `noisefloor import TOOL`, the run's import:NAME
    std::vector<std::string> tools;  // the tool as people call it, for prose: {"sar", "sadf"}
    std::string summary;             // one line for --help
    std::function<int(std::string_view text)> detect;  // a detection:: score
    std::function<Result<ImportTable>(const ImportSource&, const ImportOptions&)> parse;
    // Words and numbers its tool prints, for the fuzz target's libFuzzer dictionary (tests/fuzz).
    std::vector<std::string> dictionary;
};

namespace importers {
#define NF_IMPORTER_DECLARE(function, file) ImportFormat function();
NF_IMPORTERS(NF_IMPORTER_DECLARE)
#undef NF_IMPORTER_DECLARE
}  // namespace importers

// Every importer of importer_list.h, in its order.
const std::vector<ImportFormat>& importFormats();
const ImportFormat* findImportFormat(std::string_view name);
// Every importer's tools as prose: "perf stat, sar, sadf, ..., page_frag_test or pktgen".
std::string importToolNames(std::string_view last = " or ");

// The format whose output `text` is, from its content: the importer whose detect() scores highest;
// an error naming what it looks like when none does, or several do alike.
Result<const ImportFormat*> detectImportFormat(const ImportSource& src);

// Parses every file and joins their repetitions; files must agree on quantities and metrics.
// Errors are one line naming the file (and line): "b.txt:7: ...".
Result<ImportTable> parseImportFiles(const ImportFormat& format, const std::vector<ImportSource>& files,
                                     const ImportOptions& options);

// Helpers the parsers share.
Error importError(const ImportSource& src, std::size_t line, const std::string& what);  // line 0: no line
std::vector<std::string_view> splitLines(std::string_view text);
bool contains(std::string_view text, std::string_view part);
// Whether `text` contains every one, or any one, of `parts` (the marks a detect function looks for).
bool containsAll(std::string_view text, std::initializer_list<std::string_view> parts);
bool containsAny(std::string_view text, std::initializer_list<std::string_view> parts);
std::vector<std::string_view> splitWords(std::string_view line);
std::string_view trim(std::string_view text);
// A decimal number, all of `text`; with `grouped`, thousands separators (',') are allowed.
std::optional<double> parseNumber(std::string_view text, bool grouped = false);

// How a file writes numbers: its decimal mark and its thousands separator (0: none seen).
struct NumberStyle {
    char decimal = '.';
    char group = ',';
    std::string name() const;  // "C/en_US (1,234.5)", "de_DE/da_DK (1.234,5)"
};
// `text` in `style`: digits, thousands separators only between groups of three, one decimal mark.
std::optional<double> parseStyled(std::string_view text, NumberStyle style);

// How a tool prints a field: an integer with thousands grouping (perf's counts, xdpsock's pps), a
// decimal without grouping (perf's metrics and times, sar), either, or a decimal with '.' whatever
// the locale (perf's -I time stamps, printed as "%6lu.%09lu"), which says nothing of the style.
enum class NumberKind { Integer, Decimal, Either, PointDecimal };

// Collects the evidence a file gives of its number style, number by number, and decides.
class NumberStyleVote {
public:
    void see(std::string_view token, std::size_t line, NumberKind kind);
    // The style the evidence shows; an error naming the line of a number that can be read two ways
    // when nothing else decides, or of the first number that contradicts the others.
    Result<NumberStyle> decide(const ImportSource& src) const;

private:
    std::size_t m_dotDecimal = 0;    // line of the first evidence for '.' as decimal mark (or ',' grouping)
    std::size_t m_commaDecimal = 0;  // likewise for ','
    std::size_t m_ambiguous = 0;
    std::string m_ambiguousText;
    std::string m_dotText;
    std::string m_commaText;
};
// The line (1-based) of the first NUL byte or invalid control character, 0 if none.
std::size_t binaryLine(std::string_view text);
// Shows a line in an error message: at most 60 characters.
std::string quoteLine(std::string_view line);
// `table` when every value is finite (or NaN: missing) and every duration finite and not negative;
// else an error naming the quantity. Parsers return through it: a number that parses can still
// overflow once scaled (a rate times its interval, packets times their size).
Result<ImportTable> checkedTable(const ImportSource& src, ImportTable table);

}  // namespace nf::engine
