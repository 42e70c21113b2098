#include "engine/report/run_text.h"

#include <algorithm>

#include <fmt/format.h>
#include <fmt/ranges.h>

#include "engine/analysis/chunk_cut.h"
#include "engine/model/lab_facts.h"
#include "engine/report/evidence_context.h"
#include "engine/report/profile_report.h"
#include "engine/report/run_summary.h"
#include "engine/report/text_table.h"

namespace nf::engine {

namespace {

void printSchedule(const RunRecord& run, std::ostream& out)
{
    const auto& spec = run.spec;
    const auto& env = run.environment;
    if (const auto& imp = env.import) {  // results of another tool: no schedule of ours
        out << fmt::format("  imported from {}; {} {}; host from {}, kernel from {}\n", imp->describe(),
                           spec.repetitions,
                           imp->summaries ? "summary(ies) of perf stat -r (n, mean, standard error)" : "repetition(s)",
                           imp->hostFrom, imp->kernelFrom);
        if (imp->reconstructed) {
            out << "  values REBUILT from perf stat -r summaries by noisefloor 0.1.0 (schema 1): n values per summary "
                   "with its mean and standard deviation, never measured; rank tests and outlier checks on them are "
                   "not meaningful\n";
        }
        for (const auto& note : imp->notes) {
            out << "  note: " << note << '\n';
        }
        if (run.data.profile) {
            for (const auto& line : profileSummaryLines(run.data.profile->summary)) {
                out << "  " << line << '\n';
            }
        }
        return;
    }
    std::string how = spec.alternating() ? fmt::format("alternating {:g} ms chunks", *spec.chunk * 1e3)
                                         : fmt::format("samples every {:g} s", spec.interval);
    out << fmt::format("  {} variant(s) x {} repetition(s) x {:g} s, {}, order {}, warmup {:g} s\n",
                       spec.variants.size(), spec.repetitions, spec.duration, how, toString(spec.order), spec.warmup);
    if (spec.layouts.value_or(0) > 0) {
        out << fmt::format("  code placements: {} per variant, one per repetition ('export' gives each sample's)\n",
                           *spec.layouts);
    }
    if (spec.setups) {
        out << fmt::format("  {} setups per repetition: the receivers started anew in each, on traded places\n",
                           *spec.setups);
    }
    const std::string where = env.live() ? std::string("live session (threads and CPUs in each variant's facts)")
                                         : fmt::format("worker CPU {}", env.workerCpu);
    out << fmt::format("  {}, seed {}\n", where, spec.seed ? std::to_string(*spec.seed) : std::string("null"));
    if (const auto design = liveDesignLine(run); !design.empty()) {
        out << "  " << design << '\n';
    }
    if (const auto harness = harnessLine(run); !harness.empty()) {
        out << "  " << harness << '\n';
    }
    if (run.data.profile) {
        for (const auto& line : profileSummaryLines(run.data.profile->summary)) {
            out << "  " << line << '\n';
        }
    } else if (run.spec.profileHz) {
        out << fmt::format("  profiled at {} Hz, but no repetition's profile was stored\n", *run.spec.profileHz);
    }
}

void printCounters(const RunEnvironment& env, std::ostream& out)
{
    out << "  counters on " << (env.counterTarget.empty() ? "?" : env.counterTarget) << ": "
        << (env.countersOpened.empty() ? "none" : fmt::format("{}", fmt::join(env.countersOpened, ", "))) << '\n';
    for (const auto& line : env.notMeasuredLines()) {
        out << "  not measured: " << line << '\n';
    }
}

void printClock(const RunEnvironment& env, std::ostream& out)
{
    const auto t = env.section("tsc");
    const auto m = env.section("measurement");
    if (!env.tscHz) {
        return;
    }
    const std::string harness =
        m.contains("loop_overhead_ticks_per_op")
            ? fmt::format("; harness loop {:.2f} ticks/op (not subtracted)", m.value("loop_overhead_ticks_per_op", 0.0))
            : std::string();
    out << fmt::format("  TSC {:.1f} MHz{}, read overhead {:g} ticks{}\n", *env.tscHz / 1e6,
                       env.tscInvariant.value_or(false) ? " (invariant)" : " (NOT invariant)",
                       t.value("read_overhead_ticks", 0.0), harness);
}

void printCodeSizes(const RunRecord& run, std::ostream& out)
{
    const auto sizes = codeSizes(run);
    const bool any = std::any_of(sizes.begin(), sizes.end(), [](const CodeSize& c) { return c.bytes.has_value(); });
    if (!any) {
        return;
    }
    out << "  code size of each variant's hot functions (ELF symbol table):\n";
    for (const auto& c : sizes) {
        if (!c.bytes) {
            out << "    " << c.variant << ": " << (c.error.empty() ? "not recorded" : c.error) << '\n';
            continue;
        }
        // Within a mail's 72 columns: a symbol and its size stay on one line.
        const std::string delta = c.deltaBytes ? fmt::format(" ({:+d})", *c.deltaBytes) : "";
        std::string line = fmt::format("    {}: {} bytes{}:", c.variant, *c.bytes, delta);
        for (std::size_t i = 0; i < c.symbols.size(); ++i) {
            const auto& s = c.symbols[i];
            const std::string part = s.value("name", std::string()) + " " +
                                     std::to_string(s.value("bytes", std::uint64_t{0})) +
                                     (i + 1 < c.symbols.size() ? "," : "");
            if (columns(line) + 1 + columns(part) > 72) {
                out << line << '\n';
                line = "      " + part;
            } else {
                line += " " + part;
            }
        }
        out << line << '\n';
    }
}

}  // namespace

std::vector<CodeSize> codeSizes(const RunRecord& run)
{
    const auto code = run.environment.section("measurement").value("code", nlohmann::json());
    std::vector<CodeSize> out;
    std::optional<std::uint64_t> base;
    for (const auto& name : run.data.variantNames) {
        CodeSize c{name, {}, {}, nlohmann::json::array(), ""};
        const auto own = code.is_object() ? code.value(name, nlohmann::json::object()) : nlohmann::json::object();
        if (own.contains("bytes")) {
            c.bytes = own["bytes"].get<std::uint64_t>();
            c.symbols = own.value("symbols", nlohmann::json::array());
            if (base) {
                c.deltaBytes = static_cast<std::int64_t>(*c.bytes) - static_cast<std::int64_t>(*base);
            } else {
                base = c.bytes;
            }
        }
        c.error = own.value("error", std::string());
        out.push_back(std::move(c));
    }
    return out;
}

// The kernel as a build, not only as a release: two builds without LOCALVERSION share `uname -r`.
void printKernelIdentity(const RunRecord& run, std::ostream& out)
{
    const auto id = run.environment.section("kernel");
    const auto text = [&](const char* key) {
        const auto it = id.find(key);
        return it != id.end() && it->is_string() ? it->get<std::string>() : std::string();
    };
    if (text("build_id").empty() && text("config_sha256").empty()) {
        return;
    }
    std::string line = "  kernel build id " + (text("build_id").empty() ? "unknown" : text("build_id"));
    if (!text("config_sha256").empty()) {
        line += ", config sha256 " + text("config_sha256").substr(0, 16) + "... (" + text("config_source") + ")";
    }
    const auto vulns = id.find("vulnerabilities");
    if (vulns != id.end() && vulns->is_object() && vulns->contains("spectre_v2")) {
        line += ", spectre_v2: " + (*vulns)["spectre_v2"].get<std::string>();
    }
    if (!text("microcode").empty()) {
        line += ", microcode " + text("microcode");
    }
    if (!text("sysroot").empty()) {
        line += " (read through NOISEFLOOR_SYSROOT=" + text("sysroot") + ")";
    }
    out << line << '\n';
}

// Where in a lab the run was measured: the LAVA job, the pair, the worker.
void printLabFacts(const RunRecord& run, std::ostream& out)
{
    const auto lab = LabFacts::of(run.environment);
    if (!lab) {
        return;
    }
    out << "  LAVA job " << lab->job << ", device under test " << lab->device
        << (lab->generator.empty() ? std::string() : ", generator " + lab->generator)
        << (lab->worker.empty() ? std::string() : ", worker " + lab->worker) << " (pair " << lab->pair() << ")\n";
}

void printRunHeader(const RunRecord& run, std::ostream& out)
{
    const auto& r = run.row;
    if (run.spec.pmu.simulated) {
        out << simulatedCountersNote(run.spec.pmu) << '\n';
    }
    out << fmt::format("run {}  {}  {}{}\n", r.id, r.workload, toString(r.status),
                       r.label.empty() ? "" : "  label: " + r.label);
    if (!r.statusReason.empty()) {
        out << "  " << r.statusReason << '\n';
    }
    for (const auto& w : run.warnings) {
        out << "  warning: " << w << '\n';
    }
    out << fmt::format("  started {}{}, host {}, kernel {}\n", r.startedAt,
                       r.endedAt.empty() ? "" : ", ended " + r.endedAt, r.host, r.kernel);
    printKernelIdentity(run, out);
    printLabFacts(run, out);
    out << "  CPU " << r.cpuModel << '\n';
    printSchedule(run, out);
    if (!r.sweepId.empty()) {
        out << fmt::format("  sweep {}: point {} of {}, {}={} ('noisefloor compare --sweep {}' for every point)\n",
                           r.sweepId, r.sweepIndex + 1, run.spec.sweep ? run.spec.sweep->points : 0, r.sweepParam,
                           r.sweepValue, r.id);
    }
    // Looked up once: copying the measurement section per variant made 10,000 variants take minutes.
    const auto measurement = run.environment.section("measurement");
    const auto factsIt = measurement.find("variant_facts");
    const bool haveFacts = factsIt != measurement.end() && factsIt->is_object();
    for (std::size_t v = 0; v < run.data.variantNames.size(); ++v) {
        std::string params;
        if (v < run.variantParams.size()) {
            for (const auto& [k, value] : run.variantParams[v].items()) {
                params += (params.empty() ? "" : " ") + k + "=" +
                          (value.is_string() ? value.get<std::string>() : value.dump());
            }
        }
        std::string said;
        const auto variantFacts = haveFacts ? factsIt->find(run.data.variantNames[v]) : factsIt;
        const bool known = haveFacts && variantFacts != factsIt->end() && variantFacts->is_object();
        static const nlohmann::json none = nlohmann::json::object();
        for (const auto& [k, value] : (known ? *variantFacts : none).items()) {
            said +=
                (said.empty() ? "" : ", ") + k + " " + (value.is_string() ? value.get<std::string>() : value.dump());
        }
        if (const auto pinned = run.spec.pinnedLayout(v)) {
            params += std::string(params.empty() ? "" : " ") + kLayoutParam + "=" + *pinned + " (pinned placement)";
        }
        out << "  variant " << run.data.variantNames[v] << ": " << params << (said.empty() ? "" : " (" + said + ")")
            << '\n';
    }
    printCodeSizes(run, out);
    printCounters(run.environment, out);
    printClock(run.environment, out);
}

namespace {

// What a repetition value leaves out, when the run measured in chunks.
std::string cleanChunksNote(const ChunkCut& cut)
{
    if (cut.chunks == 0) {
        return "";
    }
    if (cut.keptAll) {
        return fmt::format(", over every chunk ({} of {} were switched out or stalled: too many to leave out)", cut.hit,
                           cut.chunks);
    }
    return fmt::format(
        ", over the chunks the measuring thread ran through ({} of {} left out: switched out or "
        "stalled)",
        cut.hit, cut.chunks);
}

}  // namespace

void printRunText(const RunRecord& run, const std::string& dbPath, std::ostream& out)
{
    const auto& r = run.row;
    printRunHeader(run, out);
    out << '\n';
    writeSummaryText(run.data, out);
    if (run.data.summarised()) {
        out << fmt::format(
            "\nn counts the runs the perf stat -r summaries average; mean and stddev (se x sqrt(n)) are theirs, "
            "pooled over summaries; the runs themselves were not printed, so there is no median.\n"
            "stored as run {} in {}\n",
            r.id, dbPath);
        return;
    }
    out << "\nn counts repetitions; each repetition's value is its total of the numerator over its total of the "
           "denominator"
        << cleanChunksNote(chunkCut(run.data)) << ".\n"
        << fmt::format("stored as run {} in {}\n", r.id, dbPath);
}

}  // namespace nf::engine
