#include "engine/report/evidence_context.h"

#include <algorithm>
#include <cmath>

#include <fmt/format.h>
#include <fmt/ranges.h>

#include "base/system_facts.h"
#include "engine/analysis/environment_diff.h"
#include "engine/catalog/spec_check.h"
#include "engine/catalog/workload_catalog.h"
#include "engine/model/metric.h"
#include "engine/report/text_table.h"

namespace nf::engine {

namespace {

std::string runName(const RunRecord& run)
{
    return "run " + std::to_string(run.row.id) + (run.row.label.empty() ? "" : " '" + run.row.label + "'");
}

std::string orUnknown(const std::string& text)
{
    return text.empty() ? "unknown" : text;
}

std::string machineLine(const RunRecord& run)
{
    if (run.environment.imported()) {
        return fmt::format("kernel {}, CPU {}, host {}", orUnknown(run.row.kernel), orUnknown(run.row.cpuModel),
                           orUnknown(run.row.host));
    }
    const std::string where =
        run.environment.live() ? std::string("live session") : fmt::format("worker CPU {}", run.environment.workerCpu);
    return fmt::format("kernel {}, {}{}, host {}, {}", run.row.kernel, run.row.cpuModel,
                       run.environment.hypervisor ? " (VM)" : "", run.row.host, where);
}

// Variants side by side trade places (ports, testbeds) between phases: how each place received
// against the first (the geometric mean over the variants of a variant's pps there against its
// pps on the first place), and whether every variant spent as long on each.
std::string placesText(const RunRecord& run)
{
    const int place = run.data.layout.quantityIndex(quantity::kPlace);
    const int packets = run.data.layout.quantityIndex(quantity::kPackets);
    if (place < 0 || packets < 0) {
        return "";
    }
    const auto variants = run.spec.variants.size();
    const RunTable& table = run.data.samples;
    const auto placeOf = table.column(static_cast<std::size_t>(place));
    const auto packetsOf = table.column(static_cast<std::size_t>(packets));
    std::size_t places = 0;
    for (const double p : placeOf) {
        if (std::isfinite(p) && p >= 0) {
            places = std::max(places, static_cast<std::size_t>(p) + 1);
        }
    }
    std::vector<std::vector<double>> got(variants, std::vector<double>(places, 0.0));
    std::vector<std::vector<double>> time(variants, std::vector<double>(places, 0.0));
    for (std::size_t i = 0; i < table.size(); ++i) {
        const auto p = placeOf[i];
        const auto n = packetsOf[i];
        const auto v = static_cast<std::size_t>(table.variant(i));
        if (v < variants && std::isfinite(p) && p >= 0 && std::isfinite(n)) {
            got[v][static_cast<std::size_t>(p)] += n;
            time[v][static_cast<std::size_t>(p)] += table.duration(i);
        }
    }
    const bool traded = std::any_of(time.begin(), time.end(), [](const std::vector<double>& t) {
        return std::count_if(t.begin(), t.end(), [](double x) { return x > 0; }) > 1;
    });
    if (!traded) {
        return "; every variant kept its place";
    }
    bool balanced = true;
    std::vector<std::string> against;
    for (std::size_t p = 1; p < places; ++p) {
        double logSum = 0;
        std::size_t n = 0;
        for (std::size_t v = 0; v < variants; ++v) {
            const double t0 = time[v][0];
            const double tp = time[v][p];
            balanced = balanced && t0 > 0 && std::abs(tp - t0) <= 0.1 * t0;
            if (t0 > 0 && tp > 0 && got[v][0] > 0 && got[v][p] > 0) {
                logSum += std::log((got[v][p] / tp) / (got[v][0] / t0));
                ++n;
            }
        }
        if (n > 0) {
            against.push_back(
                fmt::format("place {} {:+.2f}%", p + 1, 100 * std::expm1(logSum / static_cast<double>(n))));
        }
    }
    return fmt::format(
        "; the variants traded {} places{}{}", places, balanced ? "" : ", not for equal times",
        against.empty() ? std::string() : fmt::format(" (pps against place 1: {})", fmt::join(against, ", ")));
}

// Chunks in which the generator offered nothing (a stall of its thread or of the VM). When the
// variant received nothing in them either, the comparison skips their pairs: this says why.
std::string stallText(const RunRecord& run)
{
    const int offered = run.data.layout.quantityIndex(quantity::kOfferedPackets);
    const int received = run.data.layout.quantityIndex(quantity::kPackets);
    if (offered < 0 || received < 0) {
        return "";
    }
    const RunTable& table = run.data.samples;
    const auto offeredIn = table.column(static_cast<std::size_t>(offered));
    const auto receivedIn = table.column(static_cast<std::size_t>(received));
    std::size_t chunks = 0;
    std::size_t stalled = 0;
    std::size_t empty = 0;
    for (std::size_t i = 0; i < table.size(); ++i) {
        if (table.pair(i) < 0) {
            continue;
        }
        ++chunks;
        if (offeredIn[i] == 0) {
            ++stalled;
            empty += receivedIn[i] == 0 ? 1 : 0;
        }
    }
    if (stalled == 0) {
        return "";
    }
    return fmt::format("; the generator offered nothing in {} of {} chunks (it stalled){}", stalled, chunks,
                       empty == stalled ? ", whose pairs are left out" : "");
}

}  // namespace

std::string liveDesignLine(const RunRecord& run)
{
    const auto m = run.environment.section("measurement");
    if (!m.is_object() || !m.contains("design")) {
        return "";
    }
    const bool chunks = run.spec.alternating();
    std::string line = chunks ? "live design: side by side in chunks" : "live design: repetitions";
    if (const auto reason = m.value("design_reason", std::string()); !reason.empty()) {
        line += ": " + reason;
    }
    const int guard = run.data.layout.quantityIndex(quantity::kGuardPackets);
    const int packets = run.data.layout.quantityIndex(quantity::kPackets);
    if (guard >= 0 && packets >= 0) {
        double dropped = 0;
        double counted = 0;
        for (const double g : run.data.samples.column(static_cast<std::size_t>(guard))) {
            dropped += std::isfinite(g) ? g : 0;
        }
        for (const double p : run.data.samples.column(static_cast<std::size_t>(packets))) {
            counted += std::isfinite(p) ? p : 0;
        }
        line += fmt::format("; {:.2f}% of packets at switches in no chunk ({:.0f})",
                            dropped + counted > 0 ? 100 * dropped / (dropped + counted) : 0.0, dropped);
    }
    return line + stallText(run) + placesText(run);
}

std::string harnessLine(const RunRecord& run)
{
    const auto m = run.environment.section("measurement");
    const int cpu = run.data.layout.quantityIndex(quantity::kHarnessCpuNs);
    const int wakeups = run.data.layout.quantityIndex(quantity::kHarnessWakeups);
    if (!m.is_object() || !m.contains("harness") || cpu < 0 || wakeups < 0) {
        return "";
    }
    double cpuNs = 0;
    double woke = 0;
    double seconds = 0;
    const auto& samples = run.data.samples;
    const auto cpuColumn = samples.column(static_cast<std::size_t>(cpu));
    const auto wakeColumn = samples.column(static_cast<std::size_t>(wakeups));
    for (std::size_t i = 0; i < samples.size(); ++i) {
        if (std::isfinite(cpuColumn[i]) && std::isfinite(wakeColumn[i])) {
            cpuNs += cpuColumn[i];
            woke += wakeColumn[i];
            seconds += samples.duration(i);
        }
    }
    const std::string where = "harness " + m.value("harness", std::string());
    if (seconds <= 0 || woke <= 0) {  // no reading, or a kernel without schedstats (all zero)
        return where + ": its wakeups and CPU time not counted here (no schedstat)";
    }
    return fmt::format("{}: {:.1f} wakeups/s, {:.2f}% of one CPU inside samples", where, woke / seconds,
                       100 * cpuNs / (seconds * 1e9));
}

namespace {

std::string scheduleLine(const RunRecord& run)
{
    const auto& spec = run.spec;
    if (const auto& imp = run.environment.import) {
        return fmt::format("imported from {}: {} {}", imp->describe(), spec.repetitions,
                           imp->summaries ? "perf stat -r summaries" : "repetitions");
    }
    // A run that stopped early (until decided, or aborted) says how many repetitions it holds.
    const auto stored = run.data.samples.repetitionsOf();
    const std::string reps = static_cast<int>(stored.size()) < spec.repetitions
                                 ? fmt::format("{} of {}", stored.size(), spec.repetitions)
                                 : std::to_string(spec.repetitions);
    return fmt::format("{} variants x {} reps x {:g} s, {}, order {}{}{}", spec.variants.size(), reps, spec.duration,
                       spec.alternating() ? fmt::format("{:g} ms chunks", *spec.chunk * 1e3) : std::string("no chunks"),
                       toString(spec.order),
                       spec.layouts.value_or(0) > 0 ? fmt::format(", {} code placements", *spec.layouts) : "",
                       spec.setups ? fmt::format(", {} setups per repetition", *spec.setups) : "");
}

void addEnvironmentWarnings(const RunRecord& run, const std::string& prefix, std::vector<std::string>& out)
{
    const auto& env = run.environment;
    if (run.row.status != RunStatus::Complete) {
        out.push_back(fmt::format("{}{} is {}{}: only its finished repetitions are analysed", prefix, runName(run),
                                  toString(run.row.status),
                                  run.row.statusReason.empty() ? "" : " (" + run.row.statusReason + ")"));
    }
    for (const auto& line : env.notMeasuredLines()) {
        out.push_back(prefix + "not measured: " + line);
    }
    for (const auto& w : run.warnings) {
        out.push_back(prefix + w);
    }
    if (env.hypervisor) {
        out.push_back(prefix +
                      "measured in a virtual machine: trust the side-by-side comparison, not the "
                      "absolute figures");
    }
    if (env.boost == "on") {
        out.push_back(prefix + "CPU boost was on: the clock moves with temperature and load");
    }
    if (env.import && env.import->reconstructed) {
        out.push_back(prefix +
                      "values rebuilt from perf stat -r summaries (stored by 0.1.0): the means, intervals and Welch's "
                      "t are exact, the rank tests are not meaningful");
    }
    if (env.import && !env.import->rate.empty()) {
        out.push_back(prefix + "per packet: the packets are a rate measured apart from the counters (" +
                      env.import->rate + "), not counted with them");
    }
    if (env.tscInvariant && !*env.tscInvariant) {
        out.push_back(prefix + "the TSC is not invariant: tsc_per_op moves with the CPU frequency");
    }
}

// A report with any run of the simulated PMU says so first: its first header line, and the note the
// JSON and CSV forms start with.
void markSimulated(EvidenceContext& ctx, const std::vector<const RunRecord*>& runs)
{
    std::string names;
    const RunRecord* simulated = nullptr;
    for (const auto* run : runs) {
        if (run->spec.pmu.simulated) {
            simulated = run;
            names += (names.empty() ? "" : ", ") + runName(*run);
        }
    }
    if (simulated == nullptr) {
        return;
    }
    ctx.simulatedCounters = simulatedCountersNote(simulated->spec.pmu);
    if (runs.size() > 1) {
        ctx.simulatedCounters += " (" + names + ")";
    }
    ctx.header.insert(ctx.header.begin(), ctx.simulatedCounters);
    if (!ctx.briefHeader.empty()) {
        ctx.briefHeader.insert(ctx.briefHeader.begin(), ctx.simulatedCounters);
    }
}

// A report of in-process runs opens with what they are: the header's first lines say which kernel
// code each workload models in user space, once per workload.
void openWithModels(EvidenceContext& ctx, const std::vector<const RunRecord*>& runs)
{
    std::vector<std::string> lines;
    for (const auto* run : runs) {
        if (auto line = modelLine(run->row.workload);
            !line.empty() && std::find(lines.begin(), lines.end(), line) == lines.end()) {
            lines.push_back(std::move(line));
        }
    }
    ctx.header.insert(ctx.header.begin(), lines.begin(), lines.end());
    if (!ctx.briefHeader.empty()) {
        ctx.briefHeader.insert(ctx.briefHeader.begin(), lines.begin(), lines.end());
    }
}

// The compact header of several runs: the kernels when they differ, each run's command line, and
// the machine once when every run has the same (else under each command line).
std::vector<std::string> briefHeaderOf(const std::vector<const RunRecord*>& runs, const std::string& kernels)
{
    std::vector<std::string> lines;
    // The same kernel is the same release and the same build (two builds can share a release).
    const auto build = [](const RunRecord* r) { return r->environment.section("kernel").value("build_id", ""); };
    const bool sameKernel = std::all_of(runs.begin(), runs.end(), [&](const RunRecord* r) {
        return !r->row.kernel.empty() && r->row.kernel == runs.front()->row.kernel && build(r) == build(runs.front());
    });
    const bool sameMachine = std::all_of(
        runs.begin(), runs.end(), [&](const RunRecord* r) { return machineLine(*r) == machineLine(*runs.front()); });
    if (!sameKernel) {
        lines.push_back(kernels);
    }
    for (const auto* run : runs) {
        lines.push_back(runName(*run) + ": $ " + runCommandLine(*run));
        if (!sameMachine) {
            lines.push_back("  " + machineLine(*run));
        }
    }
    if (sameMachine) {
        lines.push_back((runs.size() == 2 ? "both runs: " : "all runs: ") + machineLine(*runs.front()));
    }
    return lines;
}

// Where a shell is in a command line, byte by byte: inside single or double quotes, or just after
// an escaping backslash.
struct ShellQuoting {
    char quote = 0;        // ' or " while inside quotes
    bool escaped = false;  // the byte before was an escaping backslash

    // Takes byte `c`; true when it is a space that separates words (outside quotes and escapes).
    bool separates(char c)
    {
        if (escaped) {
            escaped = false;
        } else if (quote == '\'') {
            quote = c == '\'' ? 0 : quote;
        } else if (c == '\\') {
            escaped = true;
        } else if (quote == '"') {
            quote = c == '"' ? 0 : quote;
        } else if (c == '\'' || c == '"') {
            quote = c;
        } else {
            return c == ' ';
        }
        return false;
    }
};

// The words of a shell command line, each with its quoting as written: split at the spaces
// outside quotes and escapes.
std::vector<std::string> shellWords(const std::string& command)
{
    std::vector<std::string> words;
    std::string word;
    ShellQuoting shell;
    for (const char c : command) {
        if (shell.separates(c)) {
            if (!word.empty()) {
                words.push_back(std::move(word));
                word.clear();
            }
            continue;
        }
        word += c;
    }
    if (!word.empty()) {
        words.push_back(std::move(word));
    }
    return words;
}

// `word` in pieces of at most `first` columns, then `room`, each but the last ending in "\" (the
// shell joins the lines again): cut between code points and never after an escaping backslash;
// inside single quotes, where a backslash is literal, the quote is closed before the "\" and
// opened again at the start of the next piece.
std::vector<std::string> wordPieces(const std::string& word, std::size_t first, std::size_t room)
{
    std::vector<std::string> pieces;
    std::string piece;
    ShellQuoting shell;
    for (const char c : word) {
        const bool startsCodePoint = (static_cast<unsigned char>(c) & 0xC0) != 0x80;
        const std::size_t limit = pieces.empty() ? first : room;
        const bool single = shell.quote == '\'';
        const std::size_t marks = single ? 2 : 1;  // "'\" or "\"
        if (startsCodePoint && !shell.escaped && columns(piece) + 1 + marks > limit && columns(piece) > 1) {
            pieces.push_back(piece + (single ? "'\\" : "\\"));
            piece = single ? "'" : "";
        }
        piece += c;
        shell.separates(c);  // a word holds no separating space
    }
    pieces.push_back(piece);
    return pieces;
}

// The words of `command` in the units a line keeps together: an option and its value
// ("--label vanilla"), else one word.
std::vector<std::string> commandUnits(const std::string& command)
{
    const auto words = shellWords(command);
    std::vector<std::string> units;
    for (std::size_t i = 0; i < words.size(); ++i) {
        if (words[i].starts_with("-") && i + 1 < words.size() && !words[i + 1].starts_with("-")) {
            units.push_back(words[i] + " " + words[i + 1]);
            ++i;
        } else {
            units.push_back(words[i]);
        }
    }
    return units;
}

}  // namespace

std::vector<std::string> commandLines(const std::string& lead, const std::string& command, std::size_t width)
{
    const std::string indent = "    ";
    // An option and its value on one line where that fits a line; else each word on its own.
    std::vector<std::string> words;
    for (const auto& unit : commandUnits(command)) {
        if (indent.size() + columns(unit) + 2 <= width) {
            words.push_back(unit);
        } else {
            const auto parts = shellWords(unit);
            words.insert(words.end(), parts.begin(), parts.end());
        }
    }
    std::vector<std::string> lines;
    std::string line = lead;
    bool bare = true;  // no word on `line` yet
    for (std::size_t i = 0; i < words.size(); ++i) {
        const std::string& word = words[i];
        const std::size_t tail = i + 1 == words.size() ? 0 : 2;  // " \" after it
        const std::size_t gap = bare ? 0 : 1;
        if (columns(line) + gap + columns(word) + tail <= width) {
            line += (bare ? "" : " ") + word;
            bare = false;
            continue;
        }
        if (!bare) {
            lines.push_back(line + " \\");
            line = indent;
        }
        if (columns(line) + columns(word) + tail <= width) {
            line += word;
        } else if (columns(word) + tail <= width) {  // whole at the start of a line, if not indented
            line = word;
        } else {  // too long for a line of its own
            const std::size_t used = columns(line);
            auto pieces = wordPieces(word, width > used + 2 ? width - used - 2 : 1, width > 2 ? width - 2 : 1);
            line += pieces.front();
            for (std::size_t p = 1; p < pieces.size(); ++p) {
                lines.push_back(line);
                line = pieces[p];
            }
        }
        bare = false;
    }
    lines.push_back(line);
    return lines;
}

std::vector<std::string> headerLines(const std::string& line, std::size_t width, const std::string& indent)
{
    const auto at = line.starts_with("$ ") ? 0 : line.find(": $ ");
    if (at == std::string::npos) {
        return wrap(line, width, indent);
    }
    const auto start = at == 0 ? 2 : at + 4;
    return commandLines(line.substr(0, start), line.substr(start), width);
}

std::string modelLine(const std::string& workload)
{
    const auto* w = findWorkload(workload);
    if (w == nullptr || w->kind != WorkloadKind::InProcess) {
        return "";
    }
    return w->models.empty() ? "user-space calibration loop: no kernel code modelled"
                             : "user-space model of " + w->models;
}

std::string runCommandLine(const RunRecord& run)
{
    if (!run.environment.commandLine.empty()) {
        return run.environment.commandLine;
    }
    const auto& spec = run.spec;
    std::string cmd = "noisefloor run " + spec.workload;
    for (const auto& [k, v] : spec.params) {
        cmd += " -p " + shellQuote(k + "=" + v);
    }
    for (const auto& v : spec.variants) {
        std::string text = v.name;
        std::string sep = ":";
        for (const auto& [k, value] : v.overrides) {
            text += sep + k + "=" + value;
            sep = ",";
        }
        cmd += " --variant " + shellQuote(text);
    }
    cmd += fmt::format(" --reps {} --duration {:g}", spec.repetitions, spec.duration);
    if (!spec.housekeeping.empty()) {
        cmd += " --housekeeping " + base::formatCpuList(spec.housekeeping);
    }
    if (spec.layouts.value_or(0) > 0) {
        cmd += fmt::format(" --layouts {}", *spec.layouts);
    }
    if (spec.setups) {
        cmd += fmt::format(" --setups {}", *spec.setups);
    }
    return cmd;
}

EvidenceContext contextForRun(const RunRecord& run, const AnalysisInput& input)
{
    EvidenceContext ctx;
    ctx.title = fmt::format("noisefloor: {} ({}, {})", runName(run), run.row.workload, toString(run.row.status));
    ctx.header = {"$ " + runCommandLine(run), machineLine(run), scheduleLine(run)};
    if (auto design = liveDesignLine(run); !design.empty()) {
        ctx.header.push_back(std::move(design));
    }
    if (auto harness = harnessLine(run); !harness.empty()) {
        ctx.header.push_back(std::move(harness));
    }
    if (input.layoutsPlanned > 0 && (input.alternating || input.pairedRepetitions)) {
        ctx.designNote = fmt::format(
            "code layout as a factor: every variant ran each of {} code placements equally often, one per "
            "repetition, and two variants always met in the same placement cells; the verdict rests on Student's t "
            "over the cells' mean log ratios of {}s, so its interval holds the spread between placements. The {}s "
            "alone and the independent analysis of repetition means are shown beside it.",
            input.layoutsPlanned, input.pairUnit, input.pairUnit);
    } else if (input.alternating && !input.pairSetups.empty()) {
        ctx.designNote =
            "setups as a factor: each phase of a repetition started the variants' receivers anew (sockets, threads, "
            "buffers) on traded places, and a start shifts a variant's rate for as long as it lives; the verdict "
            "rests on Student's t over the setups' median log ratios of chunk pairs, so its interval holds the spread "
            "between setups. The chunk pairs alone and the independent analysis of repetition means are shown beside "
            "it.";
    } else if (input.alternating) {
        ctx.designNote =
            "paired design: each pair is two adjacent chunks of one repetition (A B, B A, ...); the verdict rests on "
            "the Wilcoxon signed-rank test of the per-pair log ratios. The independent analysis of repetition means "
            "is shown beside it.";
    } else {
        ctx.designNote =
            std::string(
                "independent design: the unit is the repetition (samples inside one are not "
                "independent); Welch's t test is primary.") +
            (input.pairedRepetitions ? " Repetitions ran side by side, so they are also analysed as pairs." : "");
    }
    addEnvironmentWarnings(run, "", ctx.warnings);
    if (const auto* w = findWorkload(run.spec.workload);
        w != nullptr && w->placedCode && run.spec.layouts.value_or(-1) == 0 && variantsRunDifferentCode(run.spec, *w)) {
        ctx.warnings.emplace_back(
            "code layout not controlled (--layouts 0): the variants run different code, each from one placement; a "
            "difference below a few percent may be where the code sits (run with --layouts 8)");
    }
    ctx.source = nlohmann::json::array({{{"run", run.row.id}, {"label", run.row.label}, {"kernel", run.row.kernel}}});
    markSimulated(ctx, {&run});
    openWithModels(ctx, {&run});
    return ctx;
}

namespace {

// The runs' warnings, a warning every run gives said once, the others each prefixed with its run's
// name ("run 2 'patched': ...").
std::vector<std::string> foldedWarnings(const std::vector<const RunRecord*>& runs,
                                        const std::vector<std::vector<std::string>>& warningsOf)
{
    const auto everyRun = [&](const std::string& w) {
        return runs.size() > 1 && std::all_of(warningsOf.begin(), warningsOf.end(), [&](const auto& ws) {
                   return std::find(ws.begin(), ws.end(), w) != ws.end();
               });
    };
    std::vector<std::string> out;
    for (std::size_t r = 0; r < runs.size(); ++r) {
        for (const auto& w : warningsOf[r]) {
            if (!everyRun(w)) {
                out.push_back(runName(*runs[r]) + ": " + w);
            } else if (std::find(out.begin(), out.end(), w) == out.end()) {
                out.push_back(w);
            }
        }
    }
    return out;
}

}  // namespace

EvidenceContext contextForRuns(const std::vector<const RunRecord*>& runs)
{
    EvidenceContext ctx;
    std::string names;
    ctx.source = nlohmann::json::array();
    std::vector<std::vector<std::string>> warningsOf;  // each run's, unprefixed
    for (const auto* run : runs) {
        names += (names.empty() ? "" : " vs ") + runName(*run);
        ctx.header.push_back(runName(*run) + ": $ " + runCommandLine(*run));
        ctx.header.push_back("  " + machineLine(*run) + "; " + scheduleLine(*run));
        if (auto harness = harnessLine(*run); !harness.empty()) {
            ctx.header.push_back("  " + harness);
        }
        addEnvironmentWarnings(*run, "", warningsOf.emplace_back());
        ctx.source.push_back({{"run", run->row.id}, {"label", run->row.label}, {"kernel", run->row.kernel}});
    }
    ctx.warnings = foldedWarnings(runs, warningsOf);
    ctx.title = "noisefloor: " + names;
    std::vector<RunFacts> facts;
    facts.reserve(runs.size());
    for (const auto* run : runs) {
        const auto& states = run->data.testedStates;
        facts.push_back({runName(*run), run->row.kernel, run->row.host, run->row.cpuModel, run->row.toolVersion,
                         run->environment.json, toJson(run->spec),
                         states.empty() ? nlohmann::json::object()
                                        : states.front().second.value("before", nlohmann::json::object())});
    }
    ctx.header.insert(ctx.header.begin(), kernelsLine(facts));
    if (runs.size() > 1) {
        ctx.briefHeader = briefHeaderOf(runs, ctx.header.front());
    }
    for (auto& line : environmentDifferences(facts)) {
        ctx.warnings.push_back(std::move(line));
    }
    ctx.designNote =
        "independent design across runs: the unit is the repetition; runs recorded at different times "
        "(or boots) cannot be paired, so run-to-run drift counts as noise.";
    markSimulated(ctx, runs);
    openWithModels(ctx, runs);
    return ctx;
}

}  // namespace nf::engine
