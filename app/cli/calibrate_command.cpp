// noisefloor calibrate: an A/A run (the same variant twice, interleaved) that measures the noise
// floor of this machine: how small a difference it can show, and how much data a given one needs.

#include <fmt/format.h>
#include <algorithm>
#include <cmath>
#include <iostream>

#include "app/cli/calibrate_across_runs.h"
#include "app/cli/cli.h"
#include "app/cli/run_options.h"
#include "app/cli/run_session.h"
#include "engine/report/run_text.h"
#include "engine/report/text_table.h"

namespace nf::cli {

namespace {

struct CalibrateArgs {
    RunOptions run;
    std::string format = "text";
    bool acrossRuns = false;
    int runs = 1;
    bool layout = false;
    std::string placebo;
};

struct DesignFloor {
    std::string name;
    std::string unit;
    double mdePct = NAN;
    std::optional<double> halfPercent;  // units per variant to detect 0.5%
    std::optional<double> onePercent;
    double secondsPerUnit = 0;  // run time one more unit costs
};

const engine::MetricComparison* find(const engine::Analysis& a, engine::Design design, const std::string& metric)
{
    for (const auto& c : a.comparisons) {
        if (c.result.design == design && c.metric == metric) {
            return &c;
        }
    }
    return nullptr;
}

// The setups of a live run side by side (each phase of a repetition starts its variants anew).
double setupCount(const engine::AnalysisInput& in)
{
    if (in.pairSetups.empty() || in.pairSetups.front().empty()) {
        return 1;
    }
    const auto& setups = in.pairSetups.front();
    return std::max(1, *std::max_element(setups.begin(), setups.end()) + 1);
}

std::optional<double> neededFor(const engine::AnalysisInput& in, engine::Design design, double pct)
{
    engine::AnalysisOptions o;
    o.compare.targetPct = pct;
    auto a = engine::analyze(in, o);
    const auto* c = a ? find(*a, design, in.metrics.front().name) : nullptr;
    return c != nullptr ? c->result.nNeeded : std::nullopt;
}

std::string count(const std::optional<double>& n)
{
    return n ? fmt::format("{:.0f}", *n) : "-";
}

void report(const engine::RunRecord& run, const std::string& dbPath, const std::string& format)
{
    auto in = engine::analysisInput(run.data, true, {});
    auto analysis = in ? engine::analyze(*in, {}) : Result<engine::Analysis>(in.error());
    if (!analysis) {
        fail(kExitRuntime, "cannot analyse run " + std::to_string(run.row.id) + ": " + analysis.error().message);
        return;
    }
    const auto& metric = in->metrics.front();
    const double chunk = run.spec.chunk.value_or(0.0);
    const double duration = run.spec.duration;
    std::vector<DesignFloor> floors;
    // A live run side by side: a setup costs its share of the repetitions' time (one per phase).
    const double setupSeconds = duration * static_cast<double>(run.spec.repetitions) / setupCount(*in);
    for (const auto design : {engine::Design::Setups, engine::Design::Paired, engine::Design::Independent}) {
        const auto* c = find(*analysis, design, metric.name);
        if (c == nullptr) {
            continue;
        }
        const bool paired = design == engine::Design::Paired;
        floors.push_back({std::string(engine::toString(design)), c->result.unit, c->result.mdePct,
                          neededFor(*in, design, 0.5), neededFor(*in, design, 1.0),
                          design == engine::Design::Setups ? 2 * setupSeconds
                          : paired && in->alternating      ? 2 * chunk
                                                           : 2 * duration});
    }
    const engine::MetricComparison* aa = nullptr;
    for (const auto& c : analysis->comparisons) {
        if (c.primary && c.metric == metric.name) {
            aa = &c;
            break;
        }
    }
    if (format == "json") {
        nlohmann::json designs = nlohmann::json::array();
        for (const auto& f : floors) {
            designs.push_back({{"design", f.name},
                               {"unit", f.unit},
                               {"mde_pct", f.mdePct},
                               {"n_needed_0_5_pct", f.halfPercent ? nlohmann::json(*f.halfPercent) : nlohmann::json()},
                               {"n_needed_1_pct", f.onePercent ? nlohmann::json(*f.onePercent) : nlohmann::json()},
                               {"seconds_per_unit", f.secondsPerUnit}});
        }
        nlohmann::json cv = nlohmann::json::object();
        for (const auto& v : analysis->variants) {
            if (v.metric == metric.name) {
                cv[v.variant] = v.summary.cv;
            }
        }
        std::cout << nlohmann::json{{"run", run.row.id},
                                    {"metric", metric.name},
                                    {"cv_of_repetition_means", cv},
                                    {"aa_delta_pct", aa != nullptr ? aa->result.interval.estimatePct : NAN},
                                    {"aa_verdict", aa != nullptr ? engine::toString(aa->result.verdict) : "n/a"},
                                    {"designs", designs}}
                         .dump(2)
                  << '\n';
        return;
    }
    printRunHeader(run, std::cout);
    std::cout << fmt::format("\nnoise floor of {} on this machine (A/A: a1 and a2 are the same code)\n", metric.name);
    std::string cvs;
    for (const auto& v : analysis->variants) {
        if (v.metric == metric.name) {
            cvs += fmt::format("{}{} {:.3f}%", cvs.empty() ? "" : ", ", v.variant, v.summary.cv * 100);
        }
    }
    std::cout << "  CV of repetition means: " << cvs << '\n';
    if (aa != nullptr) {
        std::cout << "  A/A: " << verdictSentence(*aa, {}) << '\n';
    }
    engine::TextTable table({"  design (80% power, alpha 0.05)", ">smallest effect", ">for 0.5%", ">for 1%", "unit"});
    for (const auto& f : floors) {
        table.addRow({"  " + f.name, fmt::format("{:.3f}%", f.mdePct), count(f.halfPercent), count(f.onePercent),
                      f.unit + "s per variant"});
    }
    std::cout << '\n';
    table.write(std::cout);
    for (const auto& f : floors) {
        std::cout << fmt::format("  one {} costs {:g} s of run time\n", f.unit, f.secondsPerUnit);
    }
    std::cout << "\nstored as run " << run.row.id << " in " << dbPath << '\n';
}

int execute(CalibrateArgs& a, const Context& ctx)
{
    if (a.layout) {
        if (!a.run.workload.empty() || a.acrossRuns) {
            return fail(kExitUsage,
                        "calibrate --layout measures nothing: it takes --label and --placebo, no "
                        "workload and no --across-runs");
        }
        return calibrateLayout(a.run.spec.label, a.placebo, a.format, ctx);
    }
    if (!a.placebo.empty()) {
        return fail(kExitUsage, "--placebo " + a.placebo + " takes --layout");
    }
    if (a.run.workload.empty()) {
        return fail(kExitUsage, "calibrate: give the WORKLOAD to run (or --layout, which runs nothing)");
    }
    if (a.acrossRuns) {
        return calibrateAcrossRuns(a.run, a.runs, a.format, ctx);
    }
    a.run.variants = {"a1", "a2"};
    if (a.run.spec.label.empty()) {
        a.run.spec.label = "calibrate";
    }
    auto spec = buildSpec(a.run);
    if (!spec) {
        return fail(kExitUsage, spec.error().message);
    }
    return runAndReport(std::move(*spec), ctx,
                        [&](const engine::RunRecord& run, const std::string& path) { report(run, path, a.format); });
}

}  // namespace

Command addCalibrateCommand(CLI::App& app, Context& ctx)
{
    auto a = std::make_shared<CalibrateArgs>();
    a->run.spec.repetitions = 6;
    auto* sub = app.add_subcommand("calibrate", "Measure this machine's noise floor with an A/A run");
    addRunOptions(sub, a->run, false);
    sub->get_option("workload")->required(false);  // not with --layout
    sub->add_option("--format", a->format, "text or json")
        ->check(CLI::IsMember({"text", "json"}))
        ->capture_default_str();
    sub->add_flag("--across-runs", a->acrossRuns,
                  "A/A as separate runs under one label (--label, default calibrate-runs): run it after "
                  "each boot; stores the run-to-run noise floor cross-run compare uses");
    sub->add_option("--runs", a->runs, "With --across-runs: runs to make now, one after the other")
        ->capture_default_str();
    sub->add_flag("--layout", a->layout,
                  "No run: from the stored runs under --label (the baseline build) and --placebo (its rebuild "
                  "that changes only code layout), store code layout's spread for cross-build compares");
    sub->add_option("--placebo", a->placebo, "With --layout: the label of the baseline's rebuild");
    return {sub, [a, &ctx] { return execute(*a, ctx); }, true};
}

}  // namespace nf::cli
