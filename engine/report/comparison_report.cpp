#include "engine/report/comparison_report.h"

#include <fmt/format.h>
#include <fmt/ranges.h>
#include <algorithm>
#include <map>
#include <set>
#include <sstream>

#include "engine/model/lab_facts.h"
#include "engine/report/code_size_report.h"
#include "engine/report/decision_text.h"
#include "engine/report/evidence_context.h"
#include "engine/report/profile_report.h"
#include "engine/report/text_table.h"

namespace nf::engine {

namespace {

std::string displayName(const RunRecord& run, const std::string& variant, bool withRunId)
{
    const std::string runPart = withRunId || run.row.label.empty() ? "run" + std::to_string(run.row.id) : run.row.label;
    return variant == "default" ? runPart : runPart + ":" + variant;
}

// Every chosen variant, named uniquely: by label where the labels tell them apart, else by run id.
std::vector<RunVariant> chosenVariants(const std::vector<RunChoice>& choices)
{
    std::vector<RunVariant> out;
    for (const bool withRunId : {false, true}) {
        out.clear();
        std::set<std::string> names;
        for (const auto& c : choices) {
            for (std::size_t v = 0; v < c.run->data.variantNames.size(); ++v) {
                const auto& name = c.run->data.variantNames[v];
                if (c.variant.empty() || c.variant == name) {
                    out.push_back({displayName(*c.run, name, withRunId), &c.run->data, static_cast<int>(v)});
                    names.insert(out.back().name);
                }
            }
        }
        if (names.size() == out.size()) {
            break;
        }
    }
    return out;
}

// Each run's validity (engine/analysis/validity.h), its reasons about the variants chosen from it
// named as chosenVariants names them, and a reason about the whole run (state drift) about each of
// them.
RunValidity validityAcross(const std::vector<RunChoice>& choices)
{
    RunValidity out;
    const auto chosen = chosenVariants(choices);
    std::map<const RunData*, RunValidity> ofRun;
    for (const auto& c : choices) {
        if (!ofRun.contains(&c.run->data)) {
            ofRun[&c.run->data] = assessValidity(c.run->data, c.run->variantParams);
        }
    }
    for (const auto& side : chosen) {
        const auto& v = ofRun.at(side.data);
        const auto& own = side.data->variantNames[static_cast<std::size_t>(side.variant)];
        out.cpuTimeKnown = out.cpuTimeKnown || v.cpuTimeKnown;
        for (auto r : v.reasons) {
            if (!r.variants.empty() && std::find(r.variants.begin(), r.variants.end(), own) == r.variants.end()) {
                continue;
            }
            r.variants = {side.name};
            out.reasons.push_back(std::move(r));
        }
    }
    return out;
}

// Where the packets and cycles went, per CPU and device: each variant's mean of every breakdown
// metric, one row per metric.
void writeBreakdownText(const ComparisonReport& report, std::ostream& out)
{
    if (report.breakdown.empty()) {
        return;
    }
    out << "\nWhere the packets and cycles went (per CPU, softnet and device; each variant's mean, not tested:\n"
           "name a metric with --metric to compare it)\n";
    std::vector<std::string> header = {"metric", "unit"};
    for (const auto& v : report.breakdownVariants) {
        header.push_back(">" + v);
    }
    TextTable table(header);
    for (const auto& ms : report.breakdown) {
        std::vector<std::string> row = {ms.metric.name, ms.metric.unit};
        for (const auto& s : ms.perVariant) {
            row.push_back(s.n == 0 ? "-" : formatValue(s.mean));
        }
        table.addRow(row);
    }
    table.write(out);
}

nlohmann::json breakdownJson(const ComparisonReport& report)
{
    nlohmann::json rows = nlohmann::json::array();
    for (const auto& ms : report.breakdown) {
        nlohmann::json means = nlohmann::json::object();
        for (std::size_t v = 0; v < ms.perVariant.size() && v < report.breakdownVariants.size(); ++v) {
            means[report.breakdownVariants[v]] =
                ms.perVariant[v].n == 0 ? nlohmann::json(nullptr) : nlohmann::json(ms.perVariant[v].mean);
        }
        rows.push_back({{"metric", ms.metric.name}, {"unit", ms.metric.unit}, {"mean", means}});
    }
    return rows;
}

// One variant from each of several distinct runs, none of them perf stat -r summaries: each run a
// side of its own, named as chosenVariants names it. Empty otherwise.
std::vector<LabelChoice> oneRunPerSide(const std::vector<RunChoice>& choices)
{
    const auto chosen = chosenVariants(choices);
    std::set<const RunData*> runs;
    for (const auto& c : chosen) {
        runs.insert(c.data);
    }
    if (chosen.size() < 2 || runs.size() != chosen.size()) {
        return {};
    }
    std::vector<LabelChoice> sides;
    for (const auto& c : chosen) {
        const auto it =
            std::find_if(choices.begin(), choices.end(), [&](const auto& x) { return &x.run->data == c.data; });
        if (it->run->data.summarised()) {
            return {};
        }
        sides.push_back({c.name, {it->run}, it->run->data.variantNames[static_cast<std::size_t>(c.variant)]});
    }
    return sides;
}

// The run every choice names (each choice may hold its own copy of it), nullptr when they name several.
const RunRecord* oneRun(const std::vector<RunChoice>& choices)
{
    const auto* run = choices.front().run;
    const bool same = std::all_of(choices.begin(), choices.end(),
                                  [&](const RunChoice& c) { return c.run == run || c.run->row.id == run->row.id; });
    return same ? run : nullptr;
}

// The variants chosen of one run, in the order chosen; empty when a choice takes them all.
std::vector<std::string> chosenOf(const std::vector<RunChoice>& choices)
{
    std::vector<std::string> names;
    for (const auto& c : choices) {
        if (c.variant.empty()) {
            return {};
        }
        if (std::find(names.begin(), names.end(), c.variant) == names.end()) {
            names.push_back(c.variant);
        }
    }
    return names;
}

// "variants a, c of the run's 3 (b left out)": a comparison of some of a run's variants says so.
std::string leftOutLine(const std::vector<std::string>& all, const std::vector<std::string>& chosen)
{
    std::vector<std::string> left;
    for (const auto& v : all) {
        if (std::find(chosen.begin(), chosen.end(), v) == chosen.end()) {
            left.push_back(v);
        }
    }
    return fmt::format("variants {} of the run's {} ({} left out)", fmt::join(chosen, ", "), all.size(),
                       fmt::join(left, ", "));
}

// A breakdown row's means of the chosen variants only, in their order.
void keepChosen(MetricSummary& ms, const std::vector<std::string>& all, const std::vector<std::string>& chosen)
{
    decltype(ms.perVariant) kept;
    for (const auto& name : chosen) {
        const auto at = static_cast<std::size_t>(std::find(all.begin(), all.end(), name) - all.begin());
        if (at < ms.perVariant.size()) {
            kept.push_back(ms.perVariant[at]);
        }
    }
    ms.perVariant = std::move(kept);
}

// The unit conversions in `layout` of a metric `input` compares, not compared themselves.
std::vector<DerivedMetric> conversionsLeftOut(const RunLayout& layout, const AnalysisInput& input)
{
    auto compared = [&](const std::string& name) {
        return std::any_of(input.metrics.begin(), input.metrics.end(),
                           [&](const MetricSpec& m) { return m.name == name; });
    };
    std::vector<DerivedMetric> out;
    for (const auto& m : layout.metrics) {
        if (!m.aliasOf.empty() && compared(m.aliasOf) && !compared(m.name)) {
            out.push_back({m.name, m.aliasOf});
        }
    }
    return out;
}

// compare --primary; without it the primary metric is the one the run stored first (its workload's,
// its importer's or its own --primary).
Result<void> choosePrimary(AnalysisInput& input, const AnalysisOptions& options)
{
    return options.primary.empty() ? Result<void>{} : putPrimaryFirst(input, options.primary);
}

// What the compact text says about the metrics beyond the analysis's.
void describeMetrics(EvidenceContext& ctx, const AnalysisInput& input, const RunLayout& layout,
                     const std::vector<std::string>& asked)
{
    ctx.derived = derivedMetrics(input);
    ctx.metricsAsked = !asked.empty();
    if (asked.empty()) {
        ctx.conversions = conversionsLeftOut(layout, input);
    }
}

}  // namespace

Result<AnalysisInput> choicesInput(const std::vector<RunChoice>& choices, const std::vector<std::string>& metrics)
{
    if (choices.empty()) {
        return Error{"nothing to compare"};
    }
    if (const auto* only = oneRun(choices)) {
        auto input = NF_TRY(analysisInput(only->data, only->spec.interleaved(), metrics));
        input.layoutsPlanned = only->spec.layouts.value_or(0);
        input.validity = assessValidity(only->data, only->variantParams);
        if (const auto variants = chosenOf(choices); !variants.empty()) {
            if (auto kept = keepVariants(input, variants); !kept) {
                return Error{"run " + std::to_string(only->row.id) + ": " + kept.error().message};
            }
        }
        return input;
    }
    auto input = NF_TRY(analysisInputAcross(chosenVariants(choices), metrics));
    input.validity = validityAcross(choices);
    return input;
}

namespace {

// A profiled run: where the time went in each comparison of its primary metric's verdict.
void addProfiles(ComparisonReport& report, const RunData& data)
{
    if (!data.profile) {
        return;
    }
    report.profile = data.profile->summary;
    for (auto& [variant, stacks] : data.profile->foldedByVariant(true)) {
        report.profileStacks[data.variantNames.at(static_cast<std::size_t>(variant))] = std::move(stacks);
    }
    const auto indexOf = [&](const std::string& name) {
        const auto& names = data.variantNames;
        return static_cast<int>(std::find(names.begin(), names.end(), name) - names.begin());
    };
    ProfileOptions options;
    options.alpha = report.analysis.options.compare.alpha;
    for (const auto& c : report.analysis.comparisons) {
        if (!c.primary || c.metric != report.analysis.primaryMetric) {
            continue;
        }
        const int baseline = indexOf(c.baseline);
        const int candidate = indexOf(c.candidate);
        if (baseline < static_cast<int>(data.variantNames.size()) &&
            candidate < static_cast<int>(data.variantNames.size())) {
            options.design = c.result.design;  // the verdict's unit is the profile's
            report.profiles.push_back(compareProfiles(data, baseline, candidate, options));
        }
    }
}

}  // namespace

Result<ComparisonReport> compareRuns(const std::vector<RunChoice>& choices, const std::vector<std::string>& metrics,
                                     const AnalysisOptions& options, const std::map<std::string, RunNoiseFloor>& floors)
{
    if (choices.empty()) {
        return Error{"nothing to compare"};
    }
    ComparisonReport report;
    if (const auto* only = oneRun(choices)) {
        const auto& run = *only;
        auto input = NF_TRY(choicesInput(choices, metrics));
        const auto variants = chosenOf(choices);
        NF_TRY(choosePrimary(input, options));
        AnalysisOptions used = options;
        if (run.decision) {
            used.compare.marginPct = options.marginGiven ? options.compare.marginPct : run.decision->marginPct;
            used.compare.alpha = options.alphaGiven ? options.compare.alpha : run.decision->alpha;
        } else if (run.spec.until) {  // stopped before it decided (aborted): no decision row, its spec still says
            used.compare.marginPct = options.marginGiven ? options.compare.marginPct : run.spec.until->marginPct;
            used.compare.alpha = options.alphaGiven ? options.compare.alpha : run.spec.until->alpha;
        }
        auto analysis = NF_TRY(analyze(input, used));
        report.analysis = std::move(analysis);
        report.context = contextForRun(run, input);
        if (!variants.empty() && variants.size() < run.data.variantNames.size()) {
            report.context.designLines.push_back(leftOutLine(run.data.variantNames, variants));
        }
        describeMetrics(report.context, input, run.data.layout, metrics);
        for (const auto& work : input.validity.cpuWork) {
            report.context.designLines.push_back("CPU work, " + work);
        }
        report.breakdownVariants = input.variants;
        // The run's decision (--until decided) was made on all its variants, in their order.
        report.decision = variants.empty() || variants == run.data.variantNames ? run.decision : std::nullopt;
        addProfiles(report, run.data);
        for (auto& ms : summarizeRun(run.data)) {
            const auto& compared = report.analysis.comparisons;
            const bool isCompared = std::any_of(compared.begin(), compared.end(),
                                                [&](const auto& c) { return c.metric == ms.metric.name; });
            if (isBreakdown(ms.metric) && !isCompared) {
                keepChosen(ms, run.data.variantNames, input.variants);
                report.breakdown.push_back(std::move(ms));
            }
        }
        return report;
    }
    if (const auto sides = oneRunPerSide(choices); !sides.empty()) {
        return compareLabels(sides, metrics, floors, options);
    }
    auto input = NF_TRY(choicesInput(choices, metrics));
    NF_TRY(choosePrimary(input, options));
    auto analysis = NF_TRY(analyze(input, options));
    std::vector<const RunRecord*> runs;
    for (const auto& c : choices) {
        if (runs.empty() || runs.back() != c.run) {
            runs.push_back(c.run);
        }
    }
    report.analysis = std::move(analysis);
    report.context = contextForRuns(runs);
    describeMetrics(report.context, input, runs.front()->data.layout, metrics);
    report.acrossRuns = true;
    if (runs.size() > 1 && chosenVariants(choices).size() > runs.size()) {
        report.context.warnings.insert(
            report.context.warnings.begin(),
            "run-to-run variance not counted: several variants per run (compare --label counts it)");
    }
    return report;
}

namespace {

// The runs of each label as the pooled input takes them: names[v], groups[v] and boots[v].
struct LabelGroups {
    std::vector<std::string> names;
    std::vector<std::vector<RunVariant>> groups;
    std::vector<std::vector<std::string>> boots;
    std::vector<std::vector<std::string>> pairs;  // the lab pair of each run ("" outside a lab)
    std::vector<const RunRecord*> runs;
};

Result<LabelGroups> labelGroups(const std::vector<LabelChoice>& labels)
{
    LabelGroups out;
    for (const auto& l : labels) {
        out.names.push_back(l.label);
        auto& group = out.groups.emplace_back();
        out.boots.emplace_back();
        out.pairs.emplace_back();
        for (const auto* run : l.runs) {
            const auto& variants = run->data.variantNames;
            const std::string chosen = l.variant.empty() && variants.size() == 1 ? variants.front() : l.variant;
            const auto it = std::find(variants.begin(), variants.end(), chosen);
            if (it == variants.end()) {
                return Error{"--label " + l.label + ": run " + std::to_string(run->row.id) +
                             (chosen.empty() ? " has several variants: name one as LABEL:VARIANT"
                                             : " has no variant '" + chosen + "'")};
            }
            group.push_back({"run" + std::to_string(run->row.id), &run->data, static_cast<int>(it - variants.begin())});
            out.boots.back().push_back(run->row.bootId);
            const auto lab = LabFacts::of(run->environment);
            out.pairs.back().push_back(lab ? lab->pair() : std::string());
            out.runs.push_back(run);
        }
    }
    return out;
}

// Runs of several labels profiled (run --profile, import perf-script): one summary of them all, or
// nullopt with why not.
std::optional<ProfileSummary> summaryAcross(const LabelGroups& groups, std::string& why)
{
    std::optional<ProfileSummary> out;
    for (const auto* run : groups.runs) {
        if (!run->data.profile) {
            return std::nullopt;
        }
        const auto& s = run->data.profile->summary;
        if (!out) {
            out = s;
            continue;
        }
        if (s.event != out->event) {
            why = "profiles not compared: " + out->event + " samples on one side, " + s.event + " on the other";
            return std::nullopt;
        }
        out->hz = s.hz == out->hz ? out->hz : 0;
        for (const auto& c : s.cpus) {
            if (std::none_of(out->cpus.begin(), out->cpus.end(),
                             [&](const ProfileCpu& o) { return o.role == c.role; })) {
                out->cpus.push_back(c);
            }
        }
        out->samples += s.samples;
        out->outside += s.outside;
        out->lost += s.lost;
        out->readerSeconds += s.readerSeconds;
        out->readerOnMeasured = out->readerOnMeasured || s.readerOnMeasured;
    }
    return out;
}

// Where the time went between the labels of each comparison of the primary metric, when every
// run has a profile (engine/analysis/profile_diff.h, compareProfilesAcross).
void addProfilesAcross(ComparisonReport& report, const LabelGroups& groups)
{
    std::string why;
    report.profile = summaryAcross(groups, why);
    if (!report.profile) {
        if (!why.empty()) {
            report.context.warnings.push_back(why);
        }
        return;
    }
    for (std::size_t i = 0; i < groups.names.size(); ++i) {
        auto& sum = report.profileStacks[groups.names[i]];
        for (const auto& rv : groups.groups[i]) {  // the role as the first frame: CPUs differ from run to run
            const auto& profile = *rv.data->profile;
            for (const auto& s : profile.stacks) {
                if (s.variant == rv.variant) {
                    sum[foldedFrame(roleAcrossRuns(profile, s.cpu)) + ";" + s.stack] += s.samples;
                }
            }
        }
    }
    const auto sideOf = [&](const std::string& name) {
        std::vector<ProfileRun> side;
        const auto it = std::find(groups.names.begin(), groups.names.end(), name);
        if (it != groups.names.end()) {
            for (const auto& rv : groups.groups[static_cast<std::size_t>(it - groups.names.begin())]) {
                side.push_back({rv.data, rv.variant});
            }
        }
        return side;
    };
    ProfileOptions options;
    options.alpha = report.analysis.options.compare.alpha;
    for (const auto& c : report.analysis.comparisons) {
        if (c.primary && c.metric == report.analysis.primaryMetric) {
            auto compared =
                compareProfilesAcross(c.baseline, sideOf(c.baseline), c.candidate, sideOf(c.candidate), options);
            if (compared.rows.empty()) {  // a measured run's rx against an import's pooled CPUs
                report.context.warnings.push_back("profiles of " + c.baseline + " and " + c.candidate +
                                                  " not compared: they sampled no CPU of the same role (rx, tx, "
                                                  "worker; an import's pooled CPUs)");
                continue;
            }
            report.profiles.push_back(std::move(compared));
        }
    }
}

// The layout floor of every compared metric: from the placebos, else from a calibration.
Result<void> addLayoutFloors(AnalysisInput& input, const std::vector<LabelChoice>& labels,
                             const std::vector<std::string>& metrics, const AnalysisOptions& options,
                             const LayoutControl& layout)
{
    auto floors = layout.floors;
    if (!layout.placebos.empty()) {
        const auto base = std::find_if(labels.begin(), labels.end(),
                                       [&](const LabelChoice& l) { return l.label == options.baseline; });
        floors = NF_TRY(placeboFloors(base != labels.end() ? *base : labels.front(), layout.placebos, metrics));
    }
    for (std::size_t m = 0; m < input.metrics.size(); ++m) {
        if (const auto it = floors.find(input.metrics[m].name); it != floors.end()) {
            input.layoutFloors[m] = it->second;
        }
    }
    return {};
}

// The warning when code layout is not controlled: for every metric, or for those named.
std::optional<std::string> layoutWarning(const Analysis& analysis)
{
    std::vector<std::string> missing;
    bool any = false;
    for (const auto& c : analysis.comparisons) {
        any = any || c.result.layoutSpreadPct.has_value();
        if (!c.result.layoutSpreadPct && std::find(missing.begin(), missing.end(), c.metric) == missing.end()) {
            missing.push_back(c.metric);
        }
    }
    if (missing.empty()) {
        return std::nullopt;
    }
    if (!any) {
        return kLayoutNotControlled;
    }
    const std::string text = kLayoutNotControlled;
    const auto colon = text.find(':');
    return fmt::format("{} for {}{}", text.substr(0, colon), fmt::join(missing, ", "), text.substr(colon));
}

}  // namespace

Result<std::map<std::string, LayoutFloor>> placeboFloors(const LabelChoice& baseline,
                                                         const std::vector<LabelChoice>& placebos,
                                                         const std::vector<std::string>& metrics)
{
    std::vector<LabelChoice> all{baseline};
    all.insert(all.end(), placebos.begin(), placebos.end());
    const auto groups = NF_TRY(labelGroups(all));
    const auto input = NF_TRY(analysisInputPooled(groups.names, groups.groups, groups.boots, metrics, groups.pairs));
    std::vector<std::string> names;
    names.reserve(placebos.size());
    for (const auto& p : placebos) {
        names.push_back(p.label);
    }
    const std::string source = fmt::format("{} against its rebuild{} {}", baseline.label,
                                           placebos.size() > 1 ? "s" : "", fmt::join(names, ", "));
    std::map<std::string, LayoutFloor> out;
    for (std::size_t m = 0; m < input.metrics.size(); ++m) {
        const auto& runs = input.runs[m];
        if (auto floor = layoutFloor(runs[0], {runs.begin() + 1, runs.end()}, source)) {
            out[input.metrics[m].name] = *floor;
        }
    }
    return out;
}

Result<ComparisonReport> compareLabels(const std::vector<LabelChoice>& labels, const std::vector<std::string>& metrics,
                                       const std::map<std::string, RunNoiseFloor>& floors,
                                       const AnalysisOptions& options, const LayoutControl& layout)
{
    const auto groups = NF_TRY(labelGroups(labels));
    auto input = NF_TRY(analysisInputPooled(groups.names, groups.groups, groups.boots, metrics, groups.pairs));
    NF_TRY(choosePrimary(input, options));
    for (std::size_t m = 0; m < input.metrics.size(); ++m) {
        if (const auto it = floors.find(input.metrics[m].name); it != floors.end()) {
            input.runFloors[m] = it->second;
        }
    }
    NF_TRY(addLayoutFloors(input, labels, metrics, options, layout));
    auto analysis = NF_TRY(analyze(input, options));
    ComparisonReport report;
    report.analysis = std::move(analysis);
    report.context = contextForRuns(groups.runs);
    describeMetrics(report.context, input, groups.runs.front()->data.layout, metrics);
    report.context.designNote =
        "runs pooled per label: repetitions are nested in runs (runs in boots, boots in lab pairs), and the "
        "unit is the run (the boot, the pair), so the run-to-run drift is in the interval; with one run on a "
        "side the run-to-run variance "
        "comes from the other side's runs or this machine's calibration (calibrate --across-runs)";
    if (auto warning = layoutWarning(report.analysis)) {
        report.context.warnings.push_back(std::move(*warning));
    }
    addProfilesAcross(report, groups);
    report.acrossRuns = true;
    return report;
}

void writeComparison(const ComparisonReport& report, const std::string& format, std::ostream& out, bool verbose)
{
    const std::string& simulated = report.context.simulatedCounters;
    if (format == "json") {
        auto j = evidenceJson(report.analysis, report.context);
        if (!simulated.empty()) {
            j[kSimulatedCountersKey] = simulated;  // the first key: upper case sorts first
        }
        if (!report.breakdown.empty()) {
            j["breakdown"] = breakdownJson(report);
        }
        if (report.decision) {
            j["sequential"] = decisionJson(*report.decision);
        }
        for (const auto& size : report.codeSizes) {
            j["code_size"][size.label] = codeSizeJson(size);
        }
        if (report.profile) {
            j["profile"] = profileSummaryJson(*report.profile);
            for (auto& c : j["comparisons"]) {
                for (const auto& p : report.profiles) {
                    if (c.value("primary_metric", false) && c.value("primary", true) && c["baseline"] == p.baseline &&
                        c["candidate"] == p.candidate) {
                        c["profile"] = profileRowsJson(p);
                    }
                }
            }
        }
        out << j.dump(2) << '\n';
    } else if (format == "csv") {
        if (!simulated.empty()) {
            out << "# " << simulated << '\n';
        }
        writeEvidenceCsv(report.analysis, out);
    } else if (verbose) {
        writeEvidenceText(report.analysis, report.context, out);
        if (report.decision && report.breakdownVariants.size() >= 2) {
            writeDecisionText(*report.decision, report.breakdownVariants[0], report.breakdownVariants[1], out);
        }
        writeBreakdownText(report, out);
        if (report.profile) {
            writeProfileText(*report.profile, report.profiles, report.analysis.options.compare.alpha, out);
        }
    } else {
        EvidenceContext context = report.context;
        if (report.decision) {
            for (auto& line : decisionLines(*report.decision)) {
                context.designLines.push_back(std::move(line));
            }
        }
        if (!report.breakdown.empty()) {
            context.notShown.push_back(std::to_string(report.breakdown.size()) + " per-CPU/device means (--verbose)");
        }
        writeCompactEvidence(report.analysis, context, out);
        if (report.profile) {
            writeProfileText(*report.profile, report.profiles, report.analysis.options.compare.alpha, out);
        }
    }
}

std::string comparisonText(const ComparisonReport& report, bool verbose)
{
    std::ostringstream out;
    writeComparison(report, "text", out, verbose);
    return out.str();
}

}  // namespace nf::engine
