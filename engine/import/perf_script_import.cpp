// perf script: the samples `perf record` took, one block per sample (tools/perf/builtin-script.c):
//   iperf 28236/28236 [001] 1041906.880926:     250000 cpu-clock:
//           ffffffff8104f45a native_write_msr_safe ([kernel.kallsyms])
//           ffffffff8101e0b6 intel_pmu_enable_all+0x46 ([kernel.kallsyms])
//               7f6e2b1d3a2d __libc_recv (/lib/x86_64-linux-gnu/libc-2.19.so)
//   (blank line)
// The header names the command, its pid/tid, the CPU, the time, the period and the event; recorded
// with -g the frames follow, leaf first; without, the interrupted address ends the header line.
// Each file is a repetition (one boot, one label), or with --slice each slice of its time; the
// profile is stored as run --profile stores one (engine/model/profile.h), every CPU pooled (or
// those of --cpu), a stack's first frame the command (as stackcollapse-perf.pl folds it), every
// symbol kept. A sample counts once, whatever its period (the sampling error's floor needs counts;
// stackcollapse-perf.pl sums the periods where the header prints them): where the periods vary
// (perf record -F), a share of samples is not a share of the event's count, and a note says so.

#include <algorithm>
#include <cmath>
#include <limits>
#include <map>
#include <regex>
#include <set>

#include <fmt/format.h>
#include <fmt/ranges.h>

#include "base/system_facts.h"
#include "engine/import/import_format.h"
#include "engine/import/perf_names.h"
#include "engine/model/profile_attribution.h"

namespace nf::engine {
namespace {

using Match = std::match_results<std::string_view::const_iterator>;

struct ScriptSample {
    std::string comm;
    int cpu = -1;                // -1: the file has no CPU field
    double time = std::nan("");  // seconds, perf's clock; NaN: no time field
    double period = 0;           // 0: not printed
    std::string event;
    std::vector<std::string> frames;  // leaf first
    std::size_t line = 0;
};

// A frame without perf's "+0x1f" offset, named as run --profile names it (perf_names.h).
std::string frameName(std::string_view symbol, std::string_view dso)
{
    std::string name(symbol);
    if (const auto plus = name.rfind("+0x");
        plus != std::string::npos && plus > 0 &&
        name.find_first_not_of("0123456789abcdef", plus + 3) == std::string::npos) {
        name.erase(plus);
    }
    return perfSymbolName(name, dso);
}

// "ffffffff8104f45a native_write_msr_safe ([kernel.kallsyms])": the frame's name, if `text` is one.
std::optional<std::string> parseFrame(std::string_view text)
{
    text = trim(text);
    const auto space = text.find_first_of(" \t");
    if (space == std::string_view::npos || text.back() != ')') {
        return std::nullopt;
    }
    const auto address = text.substr(0, space);
    if (address.find_first_not_of("0123456789abcdefABCDEF") != std::string_view::npos) {
        return std::nullopt;
    }
    const auto rest = trim(text.substr(space));
    const auto open = rest.rfind(" (");
    if (rest.front() == '(') {  // an address without a symbol: "7f3a1 (/usr/lib/libc.so.6)"
        return frameName("", rest.substr(1, rest.size() - 2));
    }
    if (open == std::string_view::npos) {
        return std::nullopt;
    }
    return frameName(trim(rest.substr(0, open)), rest.substr(open + 2, rest.size() - open - 3));
}

// The longest sample line read (std::regex recurses per character).
constexpr std::size_t kMaxHeaderLine = 4096;

// "comm pid/tid [cpu] time: period event: ..." (fields perf script -F may leave out).
// The highest CPU number read; a sample line with a higher one, or a time out of range, is refused.
constexpr int kMaxCpu = 65535;

bool parseHeader(std::string_view text, ScriptSample& s, std::string& rest)
{
    if (text.size() > kMaxHeaderLine) {
        return false;
    }
    static const std::regex header(
        R"(^(\S.*?)\s+(\d+)(?:/(\d+))?\s+(?:\[(\d+)\]\s+)?(?:(\d+\.\d+):\s+)?(?:(\d+)\s+)?(\S+?):(?:\s+(.*))?$)");
    Match m;
    if (!std::regex_match(text.begin(), text.end(), m, header)) {
        return false;
    }
    s.comm = m[1].str();
    if (m[4].matched) {
        const auto cpu = parseNumber(m[4].str());
        s.cpu = cpu && *cpu <= kMaxCpu ? static_cast<int>(*cpu) : kMaxCpu + 1;  // out of range: refused
    }
    if (m[5].matched) {
        s.time = parseNumber(m[5].str()).value_or(std::numeric_limits<double>::infinity());  // refused
    }
    if (m[6].matched) {
        s.period = parseNumber(m[6].str()).value_or(0);
    }
    s.event = m[7].str();
    rest = m[8].matched ? m[8].str() : "";
    return true;
}

// A sample line followed by a frame, or carrying its address, among the first lines.
bool looksLikePerfScript(std::string_view text)
{
    const auto lines = splitLines(text.substr(0, std::min<std::size_t>(text.size(), 1 << 16)));
    for (std::size_t i = 0; i + 1 < lines.size() && i < 200; ++i) {
        ScriptSample s;
        std::string rest;
        if (lines[i].empty() || lines[i].front() == '#' || lines[i].front() == ' ' || lines[i].front() == '\t' ||
            !parseHeader(lines[i], s, rest)) {
            continue;
        }
        return (std::isfinite(s.time) && parseFrame(rest).has_value()) || parseFrame(lines[i + 1]).has_value();
    }
    return false;
}

// perf script -F +srcline's line after a frame: "uniform_int_dist.h:300", "libc-2.33.so[27b25]".
bool isSourceLine(std::string_view line)
{
    static const std::regex source(R"(^\s*(\S+:\d+|\S+\[[0-9a-f]+\]|\?\?:0)\s*$)");
    return line.size() <= kMaxHeaderLine && std::regex_match(line.begin(), line.end(), source);
}

// What perf script --header printed of the recording machine: "# hostname : lab1", "# os release :
// 6.1.0-28-amd64".
void readHeaderLine(std::string_view line, ImportTable& table)
{
    const auto colon = line.find(':');
    if (colon == std::string_view::npos) {
        return;
    }
    const auto key = trim(line.substr(1, colon - 1));
    const auto value = std::string(trim(line.substr(colon + 1)));
    if (key == "hostname" && table.host.empty()) {
        table.host = value;
    } else if (key == "os release" && table.kernel.empty()) {
        table.kernel = value;
    }
}

Result<std::vector<ScriptSample>> readSamples(const ImportSource& src, ImportTable& table)
{
    std::vector<ScriptSample> samples;
    bool open = false;  // the last sample may take frames
    const auto lines = splitLines(src.text);
    for (std::size_t i = 0; i < lines.size(); ++i) {
        const auto line = lines[i];
        if (trim(line).empty()) {
            open = false;
            continue;
        }
        if (line.front() == '#') {
            readHeaderLine(line, table);
            continue;
        }
        if (line.front() == ' ' || line.front() == '\t') {
            if (!open) {
                return importError(src, i + 1, "a stack frame outside a sample: " + quoteLine(line));
            }
            auto frame = parseFrame(line);
            if (frame) {
                samples.back().frames.push_back(std::move(*frame));
            } else if (samples.back().frames.empty() || !isSourceLine(line)) {
                return importError(src, i + 1, "not a stack frame (address symbol (object)): " + quoteLine(line));
            }
            continue;
        }
        ScriptSample s;
        std::string rest;
        if (!parseHeader(line, s, rest)) {
            auto frame = open ? parseFrame(line) : std::nullopt;  // some perf versions do not indent frames
            if (!frame) {
                return importError(src, i + 1, "not a perf script sample line: " + quoteLine(line));
            }
            samples.back().frames.push_back(std::move(*frame));
            continue;
        }
        s.line = i + 1;
        if (s.cpu > kMaxCpu || std::isinf(s.time)) {
            return importError(src, i + 1, "a CPU or time out of range: " + quoteLine(line));
        }
        if (auto frame = parseFrame(rest)) {  // without -g: the interrupted address on the line
            s.frames.push_back(std::move(*frame));
        }
        samples.push_back(std::move(s));
        open = true;
    }
    return samples;
}

// The event to read: --event, else the file's only one.
Result<std::string> chosenEvent(const ImportSource& src, const std::vector<ScriptSample>& samples,
                                const std::string& asked)
{
    std::map<std::string, std::size_t> events;
    for (const auto& s : samples) {
        ++events[s.event];
    }
    if (!asked.empty()) {
        if (events.count(asked) == 0) {
            std::vector<std::string> names;
            names.reserve(events.size());
            for (const auto& [name, n] : events) {
                names.push_back(name);
            }
            return importError(src, 0,
                               fmt::format("--event {}: no sample of it (it has {})", asked, fmt::join(names, ", ")));
        }
        return asked;
    }
    if (events.size() > 1) {
        std::vector<std::string> counted;
        counted.reserve(events.size());
        for (const auto& [name, n] : events) {
            counted.push_back(fmt::format("{} ({} samples)", name, n));
        }
        return importError(
            src, 0, fmt::format("samples of several events: {}; choose one with --event", fmt::join(counted, ", ")));
    }
    return events.begin()->first;
}

// Fewer samples than this in a slice earn a note.
constexpr std::size_t kThinSlice = 100;

// One repetition: its samples placed in its one chunk [start, start + duration).
struct Slice {
    double start = 0;
    double duration = 0;
    std::vector<NamedSample> samples;
};

Result<std::vector<Slice>> slicesOf(const ImportSource& src, const std::vector<NamedSample>& samples, double slice,
                                    std::vector<std::string>& notes)
{
    double first = samples.front().seconds;
    double last = first;
    for (const auto& s : samples) {
        first = std::min(first, s.seconds);
        last = std::max(last, s.seconds);
    }
    const double span = last - first;
    if (slice <= 0) {
        // Each sample stands for one sampling interval: the file covers its span and one more.
        const double duration = span / static_cast<double>(samples.size() - 1) * static_cast<double>(samples.size());
        if (!(duration > 0)) {
            return importError(src, 0, "every sample has the same time: no span to measure over");
        }
        return std::vector<Slice>{{first, duration, samples}};
    }
    if (span / slice > static_cast<double>(kMaxImportRepetitions)) {
        return importError(src, 0,
                           fmt::format("--slice {:g}: the samples span {:.3f} s, more than {} slices", slice, span,
                                       kMaxImportRepetitions));
    }
    const auto whole = static_cast<std::size_t>(std::floor(span / slice));
    if (whole == 0) {
        return importError(src, 0,
                           fmt::format("--slice {:g}: the samples span {:.3f} s, less than one slice", slice, span));
    }
    std::vector<Slice> out(whole);
    std::size_t beyond = 0;
    for (std::size_t k = 0; k < whole; ++k) {
        out[k].start = first + static_cast<double>(k) * slice;
        out[k].duration = slice;
    }
    for (const auto& s : samples) {
        const auto k = static_cast<std::size_t>((s.seconds - first) / slice);
        if (k < whole) {
            out[k].samples.push_back(s);
        } else {
            ++beyond;
        }
    }
    if (beyond > 0) {
        notes.push_back(fmt::format("{}: the last {:.3g} s (a part slice, {} sample{}) left out", src.path,
                                    span - static_cast<double>(whole) * slice, beyond, beyond == 1 ? "" : "s"));
    }
    const auto thinnest = std::min_element(
        out.begin(), out.end(), [](const Slice& a, const Slice& b) { return a.samples.size() < b.samples.size(); });
    if (thinnest->samples.size() < kThinSlice) {
        notes.push_back(
            fmt::format("{}: a slice holds {} sample{}: a share over so few is mostly sampling noise "
                        "(a longer --slice)",
                        src.path, thinnest->samples.size(), thinnest->samples.size() == 1 ? "" : "s"));
    }
    return out;
}

// An import keeps every symbol: a symbol summed as [other] in some files and not in others would
// look like a change between them (comparisons across runs match symbols by name).
constexpr ProfileBounds kEverySymbol{std::size_t{1} << 20, 4096};

std::string cpusRole(const std::vector<int>& cpus)
{
    return cpus.empty() ? "all CPUs" : "CPU " + base::formatCpuList(cpus);
}

Result<ImportTable> parsePerfScript(const ImportSource& src, const ImportOptions& options)
{
    if (auto line = binaryLine(src.text)) {
        return importError(src, line, "binary data, not perf script output (perf.data is read by perf script)");
    }
    ImportTable table;
    const auto all = NF_TRY(readSamples(src, table));
    if (all.empty()) {
        return importError(src, 0, "no samples in it (perf script prints one line per sample)");
    }
    const auto event = NF_TRY(chosenEvent(src, all, options.event));
    const std::set<int> cpus(options.cpus.begin(), options.cpus.end());
    std::vector<NamedSample> kept;
    std::set<int> seen;
    bool callChains = false;
    bool timed = true;
    double lowPeriod = std::numeric_limits<double>::infinity();
    double highPeriod = 0;
    for (const auto& s : all) {
        if (s.event != event) {
            continue;
        }
        if (std::isnan(s.time) && options.slice > 0) {
            return importError(src, s.line, "--slice: a sample without a time (perf script -F +time)");
        }
        timed = timed && !std::isnan(s.time);
        if (!cpus.empty() && s.cpu < 0) {
            return importError(src, s.line, "--cpu: a sample without a CPU (perf script -F +cpu)");
        }
        seen.insert(s.cpu);
        if (!cpus.empty() && cpus.count(s.cpu) == 0) {
            continue;
        }
        callChains = callChains || s.frames.size() > 1;
        if (s.period > 0) {
            lowPeriod = std::min(lowPeriod, s.period);
            highPeriod = std::max(highPeriod, s.period);
        }
        NamedSample n;
        n.seconds = s.time;
        n.cpu = -1;  // pooled
        n.frames = s.frames.empty() ? std::vector<std::string>{"[unknown]"} : s.frames;
        n.frames.push_back(s.comm);  // a stack's first frame (the last, leaf first)
        kept.push_back(std::move(n));
    }
    if (kept.size() < 2) {
        return importError(
            src, 0,
            fmt::format("{} sample{} of {}{}: a profile needs more", kept.size(), kept.size() == 1 ? "" : "s", event,
                        cpus.empty() ? "" : " on " + cpusRole(options.cpus)));
    }
    table.tool = "perf script";
    table.detected =
        fmt::format("perf script, {} samples{}", event, callChains ? " with call chains" : " without call chains");
    if (highPeriod > lowPeriod) {
        table.notes.push_back(
            fmt::format("{}: periods from {:g} to {:g} (perf record -F): each sample counts once, so a "
                        "share is of samples, not of the {} count (perf report's Overhead)",
                        src.path, lowPeriod, highPeriod, event));
    }
    table.notes.push_back("perf script does not print the records perf lost (perf report: '# Total Lost Samples')");
    if (!callChains) {
        table.notes.push_back("no call chains (perf record without -g): the stacks are the interrupted symbol alone");
    }
    table.layout.quantities = {"samples", "seconds"};
    table.layout.metrics = {
        {"sample_rate", "samples/s", "samples", "seconds", 1.0, false,
         "perf samples per second of the recording (of the event, on the CPUs read): a check of the recording, "
         "not a measure of performance",
         ""},
    };
    std::vector<Slice> slices;
    if (timed) {
        slices = NF_TRY(slicesOf(src, kept, options.slice, table.notes));
    } else {  // one repetition of unknown length: every sample in it
        for (auto& n : kept) {
            n.seconds = 0;
        }
        slices.push_back({0, 1, kept});
        table.notes.push_back(src.path + ": no time stamps (perf script -F +time): the sample rate is unknown");
    }
    ProfileRecording profile;
    profile.summary.event = event;
    profile.summary.cpus = {{-1, cpusRole(options.cpus)}};
    for (std::size_t r = 0; r < slices.size(); ++r) {
        const auto& slice = slices[r];
        RepetitionResult rep;
        rep.index = static_cast<int>(r);
        Sample chunk;
        chunk.repetition = rep.index;
        chunk.start = slice.start;
        chunk.duration = slice.duration;
        rep.samples.push_back(chunk);
        auto attributed = attributeSamples(rep, slice.samples, kEverySymbol);
        const auto placed = slice.samples.size() - attributed.outside;  // a time on a slice's end: outside
        profile.summary.samples += static_cast<std::uint64_t>(placed);
        profile.summary.outside += attributed.outside;
        profile.repetitions.push_back(std::move(attributed));
        const auto n = static_cast<double>(placed);
        const double seconds = timed ? slice.duration : std::nan("");
        table.repetitions.push_back({{timed ? slice.duration : 0.0, {n, seconds}}});
        table.read(fmt::format("slice {} samples", r + 1), n);
    }
    table.read("samples", static_cast<double>(kept.size()));
    table.read("cpus", static_cast<double>(seen.size()));
    table.profile = std::move(profile);
    return checkedTable(src, std::move(table));
}

}  // namespace

ImportFormat importers::perfScript()
{
    return {
        .name = "perf-script",
        .tools = {"perf script"},
        .summary = "perf script output (perf record -g): a profile, a file per boot or --slice SECONDS",
        .detect = [](std::string_view text) { return detection::markedIf(looksLikePerfScript(text)); },
        .parse = parsePerfScript,
        .dictionary = {" cpu-clock: ", " cycles: ", "([kernel.kallsyms])", "[unknown]", "+0x", " [000] ", "/"},
    };
}

}  // namespace nf::engine
