// noisefloor compare: the variants of one run, or variants across runs, with the evidence a
// reviewer reads; across labels, with each label's code size where one is stored.

#include <fmt/format.h>
#include <algorithm>
#include <cmath>
#include <iostream>
#include <map>
#include <set>

#include "app/cli/cli.h"
#include "app/cli/run_lookup.h"
#include "data/code_size_store.h"
#include "data/noise_floor_store.h"
#include "engine/report/code_size_report.h"
#include "engine/report/comparison_report.h"

namespace nf::cli {

namespace {

struct CompareArgs {
    std::vector<std::string> runs;
    std::vector<std::string> labels;
    std::vector<std::string> placebos;  // rebuilds of the baseline that change only code layout
    std::vector<std::string> metrics;
    engine::AnalysisOptions analysis;
    std::string format = "text";
    bool noHolm = false;
    bool sweep = false;
    bool verbose = false;
};

struct Selected {
    engine::RunRecord run;
    std::string variant;  // "" = every variant of the run
};

Result<std::vector<Selected>> selectRuns(data::Database& db, const CompareArgs& a)
{
    if (!a.runs.empty() && !a.labels.empty()) {
        return usageError("give RUN arguments or --label, not both");
    }
    std::vector<Selected> selected;
    for (const auto& label : a.labels) {
        auto run = loadRunWithLabel(db, label);
        std::string variant;
        const auto colon = label.rfind(':');
        if (!run && colon != std::string::npos) {  // LABEL:VARIANT
            run = loadRunWithLabel(db, label.substr(0, colon));
            variant = label.substr(colon + 1);
        }
        if (!run) {
            return run.error();
        }
        const auto& names = run->data.variantNames;
        if (!variant.empty() && std::find(names.begin(), names.end(), variant) == names.end()) {
            return usageError("--label " + label + ": run " + std::to_string(run->row.id) + " has no variant '" +
                              variant + "'");
        }
        selected.push_back({std::move(*run), std::move(variant)});
    }
    for (const auto& text : a.runs.empty() && a.labels.empty() ? std::vector<std::string>{"last"} : a.runs) {
        const auto colon = text.find(':');
        auto run = NF_TRY(loadNamedRun(db, text.substr(0, colon)));
        std::string variant = colon == std::string::npos ? "" : text.substr(colon + 1);
        const auto& names = run.data.variantNames;
        if (!variant.empty() && std::find(names.begin(), names.end(), variant) == names.end()) {
            return usageError(text + ": run " + std::to_string(run.row.id) + " has no variant '" + variant + "'");
        }
        selected.push_back({std::move(run), std::move(variant)});
    }
    return selected;
}

// The complete runs under a label (or LABEL:VARIANT): the runs, and the variant named ("" none).
Result<std::pair<std::vector<engine::RunRecord>, std::string>> labelRuns(data::Database& db, const std::string& text)
{
    auto runs = loadRunsWithLabel(db, text);
    std::string variant;
    const auto colon = text.rfind(':');
    if (!runs && colon != std::string::npos) {  // LABEL:VARIANT
        runs = loadRunsWithLabel(db, text.substr(0, colon));
        variant = text.substr(colon + 1);
    }
    if (!runs) {
        return runs.error();
    }
    return std::pair{std::move(*runs), variant};
}

// The code size stored under each compared label (noisefloor size --label, import bloat-o-meter),
// each label once, for the report's header and JSON.
Result<std::vector<engine::CodeSizeRecord>> codeSizesOf(data::Database& db,
                                                        const std::vector<std::vector<engine::RunRecord>>& loaded)
{
    std::vector<engine::CodeSizeRecord> sizes;
    for (const auto& runs : loaded) {
        const auto& label = runs.front().row.label;
        const bool seen = std::any_of(sizes.begin(), sizes.end(), [&](const auto& s) { return s.label == label; });
        if (auto size = NF_TRY(data::codeSizeFor(db, label)); size && !seen) {
            sizes.push_back(std::move(*size));
        }
    }
    return sizes;
}

// Prints the report with the labels' code sizes in its header.
int writePooled(data::Database& db, engine::ComparisonReport& report,
                const std::vector<std::vector<engine::RunRecord>>& loaded, const CompareArgs& a)
{
    auto sizes = codeSizesOf(db, loaded);
    if (!sizes) {
        return failWith(sizes.error());
    }
    engine::addCodeSizes(report, std::move(*sizes));
    engine::writeComparison(report, a.format, std::cout, a.verbose);
    return 0;
}

// --label A --label B: every complete run under each label, pooled with the run as a level of
// the design; the machine's run-to-run noise floor for one run per side; code layout from the
// placebo (--placebo), else from a calibration (calibrate --layout), else said to be uncontrolled.
int comparePooled(data::Database& db, const CompareArgs& a)
{
    std::vector<std::vector<engine::RunRecord>> loaded;
    std::vector<engine::LabelChoice> labels;
    for (const auto& text : a.labels) {
        auto runs = labelRuns(db, text);
        if (!runs) {
            return failWith(runs.error());
        }
        loaded.push_back(std::move(runs->first));
        labels.push_back({text, {}, runs->second});
    }
    std::vector<std::vector<engine::RunRecord>> placeboRuns;
    engine::LayoutControl layout;
    for (const auto& placebo : a.placebos) {
        if (std::count(a.placebos.begin(), a.placebos.end(), placebo) > 1) {
            return failWith(usageError("--placebo " + placebo + ": given twice; each rebuild once"));
        }
        if (std::find(a.labels.begin(), a.labels.end(), placebo) != a.labels.end()) {
            return failWith(usageError("--placebo " + placebo +
                                       ": also given as --label; the placebo is a rebuild of the baseline, not "
                                       "one of the builds compared"));
        }
        auto runs = labelRuns(db, placebo);
        if (!runs) {
            return failWith(usageError("--placebo " + placebo + ": no complete run with that label in " + db.path()));
        }
        placeboRuns.push_back(std::move(runs->first));
        layout.placebos.push_back({placebo, {}, runs->second});
    }
    for (std::size_t i = 0; i < layout.placebos.size(); ++i) {
        for (const auto& run : placeboRuns[i]) {
            layout.placebos[i].runs.push_back(&run);
        }
    }
    for (std::size_t i = 0; i < labels.size(); ++i) {
        for (const auto& run : loaded[i]) {
            labels[i].runs.push_back(&run);
        }
    }
    const bool summaries = std::any_of(loaded.begin(), loaded.end(), [](const auto& runs) {
        return std::any_of(runs.begin(), runs.end(), [](const auto& r) { return r.data.summarised(); });
    });
    if (summaries && !a.placebos.empty()) {
        return failWith(usageError("--placebo " + a.placebos.front() +
                                   ": perf stat -r summaries hold no runs to pool; import the repetitions (one "
                                   "file per perf stat run)"));
    }
    if (summaries) {  // perf stat -r summaries hold no repetitions to pool: the newest run of each label
        std::vector<engine::RunChoice> choices;
        choices.reserve(labels.size());
        for (const auto& l : labels) {
            choices.push_back({l.runs.back(), l.variant});
        }
        auto report = engine::compareRuns(choices, a.metrics, a.analysis);
        if (!report) {
            return failWith(usageError(report.error().message));
        }
        return writePooled(db, *report, loaded, a);
    }
    const auto& first = labels.front().runs.front()->row;
    auto floors = data::calibratedFloors(db, first.workload, first.host);
    if (!floors) {
        return failWith(floors.error());
    }
    if (layout.placebos.empty()) {
        auto stored = data::calibratedLayoutFloors(db, first.workload, first.host);
        if (!stored) {
            return failWith(stored.error());
        }
        layout.floors = std::move(*stored);
    }
    auto report = engine::compareLabels(labels, a.metrics, *floors, a.analysis, layout);
    if (!report) {
        return failWith(usageError(report.error().message));
    }
    return writePooled(db, *report, loaded, a);
}

int execute(CompareArgs& a, const Context& ctx)
{
    a.analysis.holm = !a.noHolm;
    if (auto ok = validateAnalysisOptions(a.analysis); !ok) {
        return failWith(ok.error());
    }
    auto db = openExisting(ctx);
    if (!db) {
        return failWith(db.error());
    }
    if (!a.placebos.empty() && (a.labels.empty() || !a.runs.empty() || a.sweep)) {
        return failWith(usageError("--placebo " + a.placebos.front() +
                                   " takes --label: it measures code layout between builds compared by label"));
    }
    if (!a.labels.empty() && a.runs.empty() && !a.sweep) {
        return comparePooled(*db, a);
    }
    auto selected = selectRuns(*db, a);
    if (!selected) {
        return failWith(selected.error());
    }
    if (a.sweep) {
        if (selected->size() != 1) {
            return failWith(usageError("--sweep takes one RUN (any run of the sweep)"));
        }
        const auto& row = selected->front().run.row;
        if (row.sweepId.empty()) {
            return failWith(usageError("run " + std::to_string(row.id) + " is not part of a sweep"));
        }
        return printSweepComparison(*db, row.sweepId, a.metrics, a.analysis, a.format, std::cout, a.verbose);
    }
    std::vector<engine::RunChoice> choices;
    for (const auto& s : *selected) {
        choices.push_back({&s.run, s.variant});
    }
    auto floors = data::calibratedFloors(*db, choices.front().run->row.workload, choices.front().run->row.host);
    if (!floors) {
        return failWith(floors.error());
    }
    auto report = engine::compareRuns(choices, a.metrics, a.analysis, *floors);
    if (!report) {
        return failWith(usageError(report.error().message));
    }
    engine::writeComparison(*report, a.format, std::cout, a.verbose);
    return 0;
}

}  // namespace

int printEvidence(const engine::Analysis& analysis, const engine::EvidenceContext& context, const std::string& format,
                  std::ostream& out)
{
    if (format == "json") {
        out << engine::evidenceJson(analysis, context).dump(2) << '\n';
    } else if (format == "csv") {
        engine::writeEvidenceCsv(analysis, out);
    } else {
        engine::writeEvidenceText(analysis, context, out);
    }
    return 0;
}

int printRunComparison(const engine::RunRecord& run, const std::vector<std::string>& metrics,
                       const engine::AnalysisOptions& options, const std::string& format, std::ostream& out)
{
    auto report = engine::compareRuns({{&run, ""}}, metrics, options);
    if (!report) {
        return failWith(usageError(report.error().message));
    }
    engine::writeComparison(*report, format, out);
    return 0;
}

Result<void> validateAnalysisOptions(const engine::AnalysisOptions& options)
{
    const auto& o = options.compare;
    if (!(o.alpha > 0 && o.alpha < 0.5)) {
        return usageError(fmt::format("--alpha {:g}: must be between 0 and 0.5", o.alpha));
    }
    if (!(o.marginPct > 0 && o.marginPct < 100)) {
        return usageError(fmt::format("--margin {:g}: must be a percentage above 0 and below 100", o.marginPct));
    }
    if (o.targetPct && !(*o.targetPct > 0 && *o.targetPct < 100)) {
        return usageError(fmt::format("--target {:g}: must be a percentage above 0 and below 100", *o.targetPct));
    }
    return {};
}

void addAnalysisOptions(CLI::App* sub, engine::AnalysisOptions& o, bool& noHolm)
{
    sub->add_option("--baseline", o.baseline, "Variant the others are compared against (default: the first)");
    sub->add_option("--primary", o.primary,
                    "The metric the verdict rests on, tested at alpha alone; the others are Holm-adjusted among "
                    "themselves (default: the run's, first in its metric list)");
    sub->add_option("--alpha", o.compare.alpha, "Significance level (default for a run until decided: its own)")
        ->capture_default_str()
        ->each([&o](const std::string&) { o.alphaGiven = true; });
    sub->add_option("--margin", o.compare.marginPct,
                    "Equivalence margin in percent (+-) (default for a run until decided: its own)")
        ->capture_default_str()
        ->each([&o](const std::string&) { o.marginGiven = true; });
    sub->add_option_function<double>(
        "--target", [&o](double v) { o.compare.targetPct = v; },
        "Effect in percent to size n_needed for (default: the observed delta)");
    sub->add_flag("--drop-outliers", o.dropOutliers, "Leave out outliers (modified z-score > 3.5); the report says so");
    sub->add_flag("--no-holm", noHolm, "No Holm correction across the metrics of one comparison");
    sub->add_flag("--allow-invalid", o.allowInvalid,
                  "Live tests: keep the verdict of a comparison the validity rules call invalid (generator-bound, "
                  "receive CPU not saturated, losses elsewhere, state drift), with the reasons as warnings");
}

Command addCompareCommand(CLI::App& app, Context& ctx)
{
    auto a = std::make_shared<CompareArgs>();
    auto* sub = app.add_subcommand("compare", "Is the difference real? Estimates, intervals, tests and a verdict");
    sub->add_option("runs", a->runs, "RUN or RUN:VARIANT, one or more (default: the last run); RUN is an id or 'last'");
    sub->add_option("--label", a->labels,
                    "Every complete run with this label, pooled (runs and boots are levels of the design), "
                    "or LABEL:VARIANT (repeatable, instead of RUN)");
    sub->add_option("--placebo", a->placebos,
                    "Runs of a rebuild of the baseline that changes only code layout (LABEL or LABEL:VARIANT; "
                    "docs/workflows.md): their difference from the baseline is counted in the interval "
                    "(repeatable: one label per rebuild, each one more degree of freedom)");
    sub->add_option("--metric", a->metrics,
                    "Metric to compare (repeatable; default: every metric but unit conversions)");
    sub->add_option("--format", a->format, "text, json or csv")
        ->check(CLI::IsMember({"text", "json", "csv"}))
        ->capture_default_str();
    sub->add_flag("--verbose,-v", a->verbose,
                  "Text: every detail (per-variant tables, both designs, tests, sizing, notes) rather than one "
                  "line per metric");
    sub->add_flag("--sweep", a->sweep,
                  "Compare every point of the sweep RUN belongs to, one row per point and variant");
    addAnalysisOptions(sub, a->analysis, a->noHolm);
    return {sub, [a, &ctx] { return execute(*a, ctx); }};
}

}  // namespace nf::cli
