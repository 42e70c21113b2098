#include "evidence_context.h"

#include <fmt/format.h>

#include "environment_diff.h"
#include "run_text.h"

namespace nf::cli {

namespace {

std::string runName(const data::StoredRun& run)
{
    return "run " + std::to_string(run.row.id) + (run.row.label.empty() ? "" : " '" + run.row.label + "'");
}

std::string orUnknown(const std::string& text)
{
    return text.empty() ? "unknown" : text;
}

std::string machineLine(const data::StoredRun& run)
{
    if (run.environment.contains("import")) {
        return fmt::format("kernel {}, CPU {}, host {}", orUnknown(run.row.kernel), orUnknown(run.row.cpuModel),
                           orUnknown(run.row.host));
    }
    const auto& sys = run.environment.value("system", nlohmann::json::object());
    const bool vm = sys.value("hypervisor", false);
    const auto& m = run.environment.value("measurement", nlohmann::json::object());
    const std::string where = m.value("kind", std::string()) == "live"
                                  ? std::string("live session")
                                  : fmt::format("worker CPU {}", m.value("worker_cpu", -1));
    return fmt::format("kernel {}, {}{}, host {}, {}", run.row.kernel, run.row.cpuModel, vm ? " (VM)" : "",
                       run.row.host, where);
}

std::string scheduleLine(const data::StoredRun& run)
{
    const auto& spec = run.spec;
    if (run.environment.contains("import")) {
        const auto& imp = run.environment["import"];
        std::string files;
        for (const auto& f : imp.value("files", nlohmann::json::array())) {
            files += (files.empty() ? "" : " ") + f.get<std::string>();
        }
        return fmt::format("imported from {} output: {} repetitions from {}", imp.value("format", std::string("?")),
                           spec.value("repetitions", 0), files);
    }
    const double chunk = spec.value("chunk", nlohmann::json(0)).is_number() ? spec["chunk"].get<double>() : 0.0;
    return fmt::format("{} variants x {} reps x {:g} s, {}, order {}", spec["variants"].size(),
                       spec.value("repetitions", 0), spec.value("duration", 0.0),
                       chunk > 0 ? fmt::format("{:g} ms chunks", chunk * 1e3) : std::string("no chunks"),
                       spec.value("order", std::string("?")));
}

void addEnvironmentWarnings(const data::StoredRun& run, const std::string& prefix, std::vector<std::string>& out)
{
    if (run.row.status != engine::RunStatus::Complete) {
        out.push_back(fmt::format("{}{} is {}{}: only its finished repetitions are analysed", prefix, runName(run),
                                  engine::toString(run.row.status),
                                  run.row.statusReason.empty() ? "" : " (" + run.row.statusReason + ")"));
    }
    for (const auto& line : missingCounters(run.environment)) {
        out.push_back(prefix + "not measured: " + line);
    }
    const auto& sys = run.environment.value("system", nlohmann::json::object());
    if (sys.value("hypervisor", false)) {
        out.push_back(prefix +
                      "measured in a virtual machine: trust the side-by-side comparison, not the "
                      "absolute figures");
    }
    if (sys.value("boost", std::string()) == "on") {
        out.push_back(prefix + "CPU boost was on: the clock moves with temperature and load");
    }
    const auto& imp = run.environment.value("import", nlohmann::json::object());
    if (imp.value("reconstructed", false)) {
        out.push_back(prefix +
                      "values rebuilt from perf stat -r summaries: the means, intervals and Welch's t are exact, "
                      "the rank tests are not meaningful");
    }
    const auto& tsc = run.environment.value("tsc", nlohmann::json::object());
    if (!tsc.empty() && !tsc.value("invariant", true)) {
        out.push_back(prefix + "the TSC is not invariant: tsc_per_op moves with the CPU frequency");
    }
}

}  // namespace

std::string shellQuote(const std::string& arg)
{
    if (!arg.empty() &&
        arg.find_first_not_of("abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRSTUVWXYZ0123456789_-.,:=/+@%") ==
            std::string::npos) {
        return arg;
    }
    std::string out = "'";
    for (char c : arg) {
        out += c == '\'' ? std::string("'\\''") : std::string(1, c);
    }
    return out + "'";
}

std::string runCommandLine(const data::StoredRun& run)
{
    auto typed = run.environment.value("tool", nlohmann::json::object()).value("command_line", std::string());
    if (!typed.empty()) {
        return typed;
    }
    const auto& spec = run.spec;
    std::string cmd = "noisefloor run " + spec.value("workload", std::string("?"));
    const auto params = spec.value("params", nlohmann::json::object());
    for (const auto& [k, v] : params.items()) {
        cmd += " -p " + shellQuote(k + "=" + (v.is_string() ? v.get<std::string>() : v.dump()));
    }
    for (const auto& v : spec.value("variants", nlohmann::json::array())) {
        std::string text = v.value("name", std::string());
        std::string sep = ":";
        const auto overrides = v.value("overrides", nlohmann::json::object());
        for (const auto& [k, value] : overrides.items()) {
            text += sep + k + "=" + (value.is_string() ? value.get<std::string>() : value.dump());
            sep = ",";
        }
        cmd += " --variant " + shellQuote(text);
    }
    cmd += fmt::format(" --reps {} --duration {:g}", spec.value("repetitions", 0), spec.value("duration", 0.0));
    return cmd;
}

engine::EvidenceContext contextForRun(const data::StoredRun& run, const engine::AnalysisInput& input)
{
    engine::EvidenceContext ctx;
    ctx.title =
        fmt::format("noisefloor: {} ({}, {})", runName(run), run.row.workload, engine::toString(run.row.status));
    ctx.header = {"$ " + runCommandLine(run), machineLine(run), scheduleLine(run)};
    if (input.alternating) {
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
    ctx.source = nlohmann::json::array({{{"run", run.row.id}, {"label", run.row.label}, {"kernel", run.row.kernel}}});
    return ctx;
}

engine::EvidenceContext contextForRuns(const std::vector<const data::StoredRun*>& runs)
{
    engine::EvidenceContext ctx;
    std::string names;
    ctx.source = nlohmann::json::array();
    for (const auto* run : runs) {
        names += (names.empty() ? "" : " vs ") + runName(*run);
        ctx.header.push_back(runName(*run) + ": $ " + runCommandLine(*run));
        ctx.header.push_back("  " + machineLine(*run) + "; " + scheduleLine(*run));
        addEnvironmentWarnings(*run, runName(*run) + ": ", ctx.warnings);
        ctx.source.push_back({{"run", run->row.id}, {"label", run->row.label}, {"kernel", run->row.kernel}});
    }
    ctx.title = "noisefloor: " + names;
    std::vector<engine::RunFacts> facts;
    facts.reserve(runs.size());
    for (const auto* run : runs) {
        facts.push_back({runName(*run), run->row.kernel, run->row.host, run->row.cpuModel, run->row.toolVersion,
                         run->environment, run->spec});
    }
    ctx.header.insert(ctx.header.begin(), engine::kernelsLine(facts));
    for (auto& line : engine::environmentDifferences(facts)) {
        ctx.warnings.push_back(std::move(line));
    }
    ctx.designNote =
        "independent design across runs: the unit is the repetition; runs recorded at different times "
        "(or boots) cannot be paired, so run-to-run drift counts as noise.";
    return ctx;
}

}  // namespace nf::cli
