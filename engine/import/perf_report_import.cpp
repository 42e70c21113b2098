// perf report --stdio: the flat profile of one recording, per event (tools/perf/ui/stdio/hist.c):
//   # Samples: 60K of event 'cycles'
//   # Overhead  Command  Shared Object      Symbol
//       21.07%  a.out    [kernel.kallsyms]  [k] _raw_spin_unlock_irq
// with -n a Samples column after Overhead, with call graphs a Children column before Self and the
// graph under each row (left out: the stacks are not rebuilt from it). Where the Samples column is
// printed the counts are exact; else they are the Overhead (a share of the event's count, weighted
// by each sample's period) apportioned over the "# Samples:" figure, which perf truncates ("60K":
// 60000 to 60999): the import says so. A report is one repetition (one recording: one boot, one
// label), its CPUs pooled; the samples of the symbols not listed are summed as kOtherSymbol. Symbols
// are named as run --profile names them (probes/symbolizer.h).

#include <algorithm>
#include <cmath>
#include <map>
#include <regex>

#include <fmt/format.h>
#include <fmt/ranges.h>

#include "engine/import/import_format.h"
#include "engine/import/perf_names.h"

namespace nf::engine {
namespace {

using Match = std::match_results<std::string_view::const_iterator>;

// The longest line read with a regular expression (std::regex recurses per character).
constexpr std::size_t kMaxLine = 4096;

struct Row {
    double overhead = 0;  // percent (Self where Children is printed)
    double samples = -1;  // the Samples column, -1 where not printed
    std::string symbol;
};

struct Section {
    std::string event;
    double samples = 0;      // "# Samples: 60K": 60000, at least (perf truncates)
    bool truncated = false;  // a K, M or G figure
    double lost = 0;         // "# Total Lost Samples: N" above it
    bool columnSamples = false;
    bool children = false;
    std::vector<Row> rows;
    std::size_t line = 0;
};

// "60K" -> 60000 (perf's convert_unit truncates: 60000 to 60999), "15" -> 15.
std::optional<std::pair<double, bool>> sampleFigure(const std::string& text)
{
    if (text.empty()) {
        return std::nullopt;
    }
    const char last = text.back();
    const double scale = last == 'K' ? 1e3 : last == 'M' ? 1e6 : last == 'G' ? 1e9 : 1;
    const auto number = parseNumber(scale == 1 ? text : text.substr(0, text.size() - 1));
    if (!number) {
        return std::nullopt;
    }
    return std::pair{*number * scale, scale != 1};
}

// "[k] 0xffffffffaea00a67", "[k] 0000000000000000": an address no symbol covers (a name of hex
// letters, "add", is not one).
bool isAddress(std::string_view symbol)
{
    const bool prefixed = symbol.rfind("0x", 0) == 0;
    if (prefixed) {
        symbol.remove_prefix(2);
    }
    return (prefixed || symbol.size() >= 8) && !symbol.empty() &&
           symbol.find_first_not_of("0123456789abcdef") == std::string_view::npos;
}

// A row's symbol: an address no symbol covers in the kernel ("[k] 0xffff...") as "[unknown kernel]",
// the rest as perf_names.h names them.
std::string symbolName(std::string_view marker, std::string_view symbol, std::string_view dso)
{
    if (isAddress(symbol)) {
        return marker == "[k]" ? "[unknown kernel]" : perfSymbolName("", dso);
    }
    return perfSymbolName(symbol, dso);
}

Result<Row> parseRow(const ImportSource& src, std::size_t line, std::string_view text, const Section& section)
{
    static const std::regex row(R"(^\s*(\d+\.\d+)%\s+(?:(\d+\.\d+)%\s+)?(?:(\d+)\s+)?(.*)$)");
    Match m;
    if (text.size() > kMaxLine || !std::regex_match(text.begin(), text.end(), m, row)) {
        return importError(src, line, "not a perf report row: " + quoteLine(text));
    }
    if (section.children != m[2].matched || section.columnSamples != m[3].matched) {
        return importError(src, line, "its columns differ from the header's: " + quoteLine(text));
    }
    Row r;
    const auto overhead = parseNumber(m[section.children ? 2 : 1].str());
    const auto samples = m[3].matched ? parseNumber(m[3].str()) : std::optional<double>(-1);
    if (!overhead || !samples || *overhead > 100 || *samples > 2147483647.0) {
        return importError(src, line, "a number out of range: " + quoteLine(text));
    }
    r.overhead = *overhead;
    r.samples = *samples;
    const auto rest = m[4].str();
    // The shared object is left out by --sort sym.
    static const std::regex symbolAt(R"((?:(\S+)\s+)?(\[[k.gujH]\])\s+(.*?)\s*$)");
    std::smatch s;
    if (!std::regex_search(rest, s, symbolAt)) {
        return importError(src, line, "a row without a [k] or [.] symbol: " + quoteLine(text));
    }
    r.symbol = symbolName(s[2].str(), s[3].str(), s[1].str());
    return r;
}

Result<std::vector<Section>> readSections(const ImportSource& src)
{
    static const std::regex samples(R"(^\s*#\s*Samples:\s+(\S+)\s+of event '([^']+)')");
    static const std::regex lost(R"(^\s*#\s*Total Lost Samples:\s+(\d+)\s*$)");
    std::optional<double> lostAbove;
    std::vector<Section> out;
    bool columns = false;  // the column header of the last section was read
    const auto lines = splitLines(src.text);
    for (std::size_t i = 0; i < lines.size(); ++i) {
        const auto text = trim(lines[i]);
        Match m;
        if (text.empty()) {
            continue;
        }
        if (text.front() == '#') {
            if (text.size() > kMaxLine) {
                return importError(src, i + 1, "a comment line longer than perf report writes: " + quoteLine(text));
            }
            if (std::regex_search(text.begin(), text.end(), m, lost)) {
                lostAbove = parseNumber(m[1].str());
                if (!lostAbove || *lostAbove > 1e15) {
                    return importError(src, i + 1, "a lost-sample count out of range: " + quoteLine(text));
                }
            } else if (std::regex_search(text.begin(), text.end(), m, samples)) {
                auto figure = sampleFigure(m[1].str());
                if (!figure) {
                    return importError(src, i + 1, "a sample count that is not a number: " + quoteLine(text));
                }
                Section s;
                s.event = m[2].str();
                s.samples = figure->first;
                s.truncated = figure->second;
                s.lost = lostAbove.value_or(0);
                s.line = i + 1;
                out.push_back(std::move(s));
                columns = false;
            } else if (!out.empty() && (contains(text, "Overhead") || contains(text, "Children")) &&
                       contains(text, "Symbol")) {
                const auto words = splitWords(text);
                if (words.back() != "Symbol") {
                    return importError(src, i + 1,
                                       "sorted with the symbol not last (noisefloor reads perf report's default "
                                       "--sort comm,dso,sym): " +
                                           quoteLine(text));
                }
                out.back().children = contains(text, "Children");
                out.back().columnSamples = std::find(words.begin(), words.end(), "Samples") != words.end();
                columns = true;
            }
            continue;
        }
        if (out.empty() || !columns) {
            continue;  // the command line, prompts: before the report
        }
        if (text.front() == '|' || text.rfind("---", 0) == 0 || text.front() == '-') {
            continue;  // a call graph under the row
        }
        out.back().rows.push_back(NF_TRY(parseRow(src, i + 1, lines[i], out.back())));
    }
    return out;
}

// Each row's samples: its Samples column, else its Overhead of the figure, apportioned by largest
// remainder so that the rows add up to the figure times the sum of their Overhead.
Result<std::vector<double>> rowSamples(const ImportSource& src, const Section& s)
{
    std::vector<double> out;
    out.reserve(s.rows.size());
    if (s.columnSamples) {
        for (const auto& r : s.rows) {
            out.push_back(r.samples);
        }
        return out;
    }
    double sum = 0;
    for (const auto& r : s.rows) {
        sum += r.overhead;
    }
    if (sum > 100.5) {
        return importError(src, s.line, fmt::format("the rows' Overhead adds up to {:.2f}%, more than the whole", sum));
    }
    std::vector<std::pair<double, std::size_t>> remainders;
    double floors = 0;
    for (std::size_t i = 0; i < s.rows.size(); ++i) {
        const double exact = s.rows[i].overhead / 100 * s.samples;
        out.push_back(std::floor(exact));
        floors += out.back();
        remainders.emplace_back(out.back() - exact, i);  // the largest remainder first
    }
    std::sort(remainders.begin(), remainders.end());
    const double listed = std::max(floors, std::round(s.samples * std::min(sum, 100.0) / 100));
    for (std::size_t k = 0; k < remainders.size() && floors + static_cast<double>(k) < listed; ++k) {
        out[remainders[k].second] += 1;
    }
    return out;
}

Result<ImportTable> parsePerfReport(const ImportSource& src, const ImportOptions& options)
{
    if (auto line = binaryLine(src.text)) {
        return importError(src, line, "binary data, not perf report --stdio output");
    }
    auto sections = NF_TRY(readSections(src));
    std::erase_if(sections, [](const Section& s) { return s.rows.empty(); });
    if (sections.empty()) {
        return importError(src, 0, "no samples in it (perf report --stdio prints '# Samples: N of event' and rows)");
    }
    std::vector<std::string> events;
    events.reserve(sections.size());
    for (const auto& s : sections) {
        events.push_back(s.event);
    }
    const auto chosen = std::find_if(sections.begin(), sections.end(), [&](const Section& s) {
        return options.event.empty() ? sections.size() == 1 : s.event == options.event;
    });
    if (chosen == sections.end()) {
        return importError(
            src, 0,
            options.event.empty()
                ? fmt::format("reports of several events: {}; choose one with --event", fmt::join(events, ", "))
                : fmt::format("--event {}: no report of it (it has {})", options.event, fmt::join(events, ", ")));
    }
    const Section& s = *chosen;
    const auto samples = NF_TRY(rowSamples(src, s));
    std::map<std::string, double> counts;
    double listed = 0;
    for (std::size_t i = 0; i < s.rows.size(); ++i) {
        counts[s.rows[i].symbol] += samples[i];
        listed += samples[i];
    }
    ImportTable table;
    table.tool = "perf report";
    table.detected = fmt::format("perf report --stdio, {} ({} rows{})", s.event, s.rows.size(),
                                 s.columnSamples ? ", a Samples column" : "");
    const double total = std::max(s.samples, listed);
    if (!s.columnSamples) {
        table.notes.push_back(
            fmt::format("{}: no Samples column (perf report -n): each row's samples are its Overhead "
                        "(weighted by period) of the '# Samples:' figure",
                        src.path));
    }
    if (s.truncated) {
        table.notes.push_back(
            fmt::format("{}: perf truncates '# Samples:' ({:g} and up to {:g} more): the samples "
                        "of the symbols not listed are a lower bound",
                        src.path, s.samples,
                        s.samples >= 1e9   ? 1e9 - 1
                        : s.samples >= 1e6 ? 1e6 - 1
                                           : 999));
    }
    if (listed <= 0) {
        return importError(
            src, s.line,
            "no row with self samples (a Children report's excerpt?): perf report --no-children lists them");
    }
    if (!(total >= 2)) {
        return importError(src, s.line, fmt::format("{:g} samples: a profile needs more", total));
    }
    if (total > 2147483647.0) {
        return importError(src, s.line, fmt::format("{:g} samples: more than one report holds (2^31)", total));
    }
    RepetitionProfile rep;
    rep.lost = static_cast<std::uint64_t>(s.lost);
    rep.chunks.push_back({0, 0, 0, -1, static_cast<int>(total)});
    for (const auto& [symbol, n] : counts) {
        if (n <= 0) {
            continue;
        }
        const int index = static_cast<int>(rep.symbols.size());
        rep.symbols.push_back(symbol);
        rep.counts.push_back({0, 0, 0, -1, index, static_cast<int>(n)});
        rep.stacks.push_back({0, 0, -1, foldedFrame(symbol), static_cast<int>(n)});
    }
    if (const double rest = total - listed; rest > 0) {
        rep.symbols.emplace_back(kOtherSymbol);
        const int index = static_cast<int>(rep.symbols.size()) - 1;
        rep.counts.push_back({0, 0, 0, -1, index, static_cast<int>(rest)});
        rep.stacks.push_back({0, 0, -1, kOtherSymbol, static_cast<int>(rest)});
    }
    ProfileRecording profile;
    profile.summary.event = s.event;
    profile.summary.cpus = {{-1, "all CPUs"}};
    profile.summary.samples = static_cast<std::uint64_t>(total);
    profile.summary.lost = static_cast<std::uint64_t>(s.lost);
    profile.repetitions.push_back(std::move(rep));
    table.profile = std::move(profile);
    table.layout.quantities = {"samples", "reports"};
    table.layout.metrics = {
        {"samples", "samples", "samples", "reports", 1.0, false,
         "perf samples in a report (of the event): a check of the recording, not a measure of performance", ""},
    };
    table.repetitions.push_back({{0, {total, 1}}});
    table.read("samples", s.samples);
    table.read("rows", static_cast<double>(s.rows.size()));
    for (std::size_t i = 0; i < s.rows.size(); ++i) {
        table.read(fmt::format("row {} overhead", i + 1), s.rows[i].overhead);
        if (s.columnSamples) {
            table.read(fmt::format("row {} samples", i + 1), s.rows[i].samples);
        }
    }
    return checkedTable(src, std::move(table));
}

}  // namespace

ImportFormat importers::perfReport()
{
    return {
        .name = "perf-report",
        .tools = {"perf report"},
        .summary = "perf report --stdio (-n for exact counts): a flat profile, a file per boot",
        .detect =
            [](std::string_view text) {
                return detection::markedIf(contains(text, "# Samples: ") && contains(text, " of event '") &&
                                           (contains(text, "# Overhead") || contains(text, "# Children")));
            },
        .parse = parsePerfReport,
        .dictionary = {"# Samples: ", " of event '", "# Overhead  Command  Shared Object  Symbol", "[k] ", "[.] ",
                       "%  ", "K", "# Children      Self"},
    };
}

}  // namespace nf::engine
