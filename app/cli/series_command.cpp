// noisefloor series: the steps of a patch set (labels, runs or the variants of one run, in order),
// the metric per step and the step where it changes, and each step's code size where its label has
// one stored.

#include <fmt/format.h>

#include <algorithm>
#include <cmath>
#include <cstdint>
#include <iostream>
#include <optional>
#include <set>

#include "app/cli/cli.h"
#include "app/cli/run_lookup.h"
#include "app/cli/run_options.h"
#include "app/cli/run_session.h"
#include "app/cli/series_steps.h"
#include "app/cli/signal_stop.h"
#include "data/code_size_store.h"
#include "engine/analysis/across_runs.h"
#include "engine/analysis/analysis.h"
#include "engine/analysis/environment_diff.h"
#include "engine/analysis/series.h"
#include "engine/report/code_size_report.h"

namespace nf::cli {

namespace {

struct SeriesArgs {
    std::vector<std::string> runs;
    std::vector<std::string> labels;
    std::string metric;
    engine::SeriesOptions options;
    std::string format = "text";
    bool interleaved = false;  // `runs` holds the arguments of the run that measures the steps
};

std::string pText(double p)
{
    if (std::isnan(p)) {
        return "n/a";
    }
    return p < 0.001 ? "<0.001" : fmt::format("{:.3f}", p);
}

// "p<0.001" or "p=0.042".
std::string pClause(double p)
{
    const auto text = pText(p);
    return "p" + (text.front() == '<' ? text : "=" + text);
}

void writeWrapped(const std::string& text, std::ostream& out, const std::string& indent = "  ")
{
    for (const auto& line : engine::wrap(text, 72, indent)) {
        out << line << '\n';
    }
}

std::string rtrim(std::string text)
{
    text.erase(text.find_last_not_of(' ') + 1);
    return text;
}

// Each step's code size (noisefloor size --label, import bloat-o-meter): nullopt where its label
// has none stored, or where the step has no label of its own (the variants of one run).
using StepCodeSizes = std::vector<std::optional<engine::CodeSizeRecord>>;

Result<StepCodeSizes> codeSizesOf(data::Database& db, const std::vector<Step>& steps)
{
    StepCodeSizes sizes(steps.size());
    for (std::size_t k = 0; k < steps.size(); ++k) {
        const auto& label = steps[k].run->row.label;
        const bool own = !label.empty() && std::count_if(steps.begin(), steps.end(),
                                                         [&](const Step& s) { return s.run->row.label == label; }) == 1;
        if (own) {
            sizes[k] = NF_TRY(data::codeSizeFor(db, label));
        }
    }
    return sizes;
}

void writeText(const engine::SeriesResult& r, const engine::MetricSpec& metric, const std::vector<Step>& steps,
               const engine::SeriesOptions& o, bool chunkRounds, const StepCodeSizes& codeSizes, std::ostream& out)
{
    out << fmt::format("noisefloor series: {} ({}, {} is better), {} steps\n", metric.name, metric.unit,
                       metric.higherIsBetter ? "higher" : "lower", steps.size());
    // The kernels line names each step's newest run; the environment is compared over every run.
    std::vector<engine::RunFacts> facts;
    std::vector<engine::RunFacts> everyRun;
    auto add = [](std::vector<engine::RunFacts>& to, const engine::RunRecord& run) {
        if (to.empty() || to.back().name != runName(run)) {
            to.push_back({runName(run), run.row.kernel, run.row.host, run.row.cpuModel, run.row.toolVersion,
                          run.environment.json, engine::toJson(run.spec)});
        }
    };
    for (const auto& s : steps) {
        add(facts, *s.run);
        for (const auto& run : s.pooled.empty() ? std::vector{s.run} : s.pooled) {
            add(everyRun, *run);
        }
    }
    out << '\n'
        << rtrim(fmt::format("  {:<14} {:>3} {:>11} {:>21} {:>8} {:>7}", "step", "n", "mean",
                             fmt::format("{:g}% CI of mean", (1 - o.alpha) * 100), "vs prev", "p"))
        << '\n';
    for (std::size_t k = 0; k < r.steps.size(); ++k) {
        const auto& s = r.steps[k];
        const std::string ci = std::isnan(s.ciLow) ? "-" : fmt::format("{:.5g}..{:.5g}", s.ciLow, s.ciHigh);
        const std::string delta = std::isnan(s.deltaPrevPct) ? "" : fmt::format("{:+.2f}%", s.deltaPrevPct);
        out << rtrim(fmt::format("  {:<14} {:>3} {:>11.5g} {:>21} {:>8} {:>7}", s.name.substr(0, 14), s.summary.n,
                                 s.summary.mean, ci, delta, k == 0 ? "" : pText(s.pPrev)))
            << '\n';
    }
    if (pooledDesign(steps)) {
        std::size_t fewest = SIZE_MAX;
        std::size_t most = 0;
        for (const auto& s : steps) {
            fewest = std::min(fewest, s.pooled.size());
            most = std::max(most, s.pooled.size());
        }
        out << "  (n: runs; p: Welch's t against the previous step, Holm-adjusted)\n";
        writeWrapped(fmt::format("design: {} runs per step pooled, each run's mean one value (boot means where "
                                 "runs share boots), so the run-to-run variance is in every interval and test",
                                 fewest == most ? std::to_string(most) : fmt::format("{}-{}", fewest, most)),
                     out);
        out << '\n';
    } else if (o.blocked) {
        out << "  (p: paired against the previous step, Holm-adjusted over the steps)\n";
        writeWrapped(chunkRounds ? fmt::format("design: the steps are the variants of one run, alternated in "
                                               "chunks and paired by round (n: {} rounds, every step one chunk "
                                               "in each), so drift during the run cancels",
                                               r.steps.front().summary.n)
                                 : fmt::format("design: the steps are the variants of one interleaved run, paired by "
                                               "repetition ({} each), so drift during the run cancels",
                                               r.steps.front().summary.n),
                     out);
        out << '\n';
    } else if (std::isnan(r.betweenRunCv)) {
        out << "  (p: Welch's t against the previous step, Holm-adjusted over the steps)\n\n";
    } else {
        out << "  (p: t against the previous step with the run-to-run variance, Holm)\n";
        writeWrapped(fmt::format("design: one run per step; the run-to-run variance (between-run CV {:.2f}%, "
                                 "from adjacent steps) is in every interval and test",
                                 r.betweenRunCv * 100),
                     out);
        out << '\n';
    }
    bool sized = false;
    for (std::size_t k = 0; k < codeSizes.size() && k < r.steps.size(); ++k) {
        if (codeSizes[k]) {
            writeWrapped(engine::codeSizeLine(*codeSizes[k], r.steps[k].name), out, "    ");
            sized = true;
        }
    }
    if (sized) {
        out << '\n';
    }
    if (r.changes.empty()) {
        out << fmt::format("no change point at alpha {:g}", o.alpha);
        out << (r.tested.empty() ? "\n"
                                 : fmt::format(" (best split before {}: p={})\n", r.steps[r.tested.front().step].name,
                                               pText(r.tested.front().pAdjusted)));
    }
    for (const auto& c : r.changes) {
        const auto& ci = c.effect.interval;
        const std::string range =
            ci.bounded() ? fmt::format("{:+.2f}..{:+.2f}%", ci.ci.low, ci.ci.high) : std::string("unbounded");
        writeWrapped(fmt::format("change at {} (after {}): {:+.2f}% ({:g}% CI {}), {}{}", r.steps[c.step].name,
                                 r.steps[c.step - 1].name, ci.estimatePct, (1 - o.alpha) * 100, range,
                                 pClause(c.pAdjusted), std::isnan(r.betweenRunCv) ? " (Holm)" : ""),
                     out);
        out << fmt::format("  steps {}..{} against {}..{}\n", r.steps[c.segmentBegin].name, r.steps[c.step - 1].name,
                           r.steps[c.step].name, r.steps[c.segmentEnd - 1].name);
    }
    for (const auto& apart : r.apart) {  // not changes, and not dropped silently either
        writeWrapped(engine::describe(apart, r.steps), out);
    }
    out << '\n';
    for (const auto& line : engine::wrap("method: " + r.method, 72, "  ")) {
        out << line << '\n';
    }
    writeWrapped(engine::kernelsLine(facts), out);
    std::vector<std::string> warnings = r.warnings;
    for (auto& w : engine::environmentDifferences(everyRun)) {
        warnings.push_back(std::move(w));
    }
    if (!warnings.empty()) {
        out << "warnings:\n";
        for (const auto& w : warnings) {
            for (const auto& line : engine::wrap("  - " + w, 72, "    ")) {
                out << line << '\n';
            }
        }
    }
}

std::string apartKind(engine::StepApart::Kind kind)
{
    switch (kind) {
        case engine::StepApart::Kind::Alone: return "alone";
        case engine::StepApart::Kind::First: return "first";
        case engine::StepApart::Kind::Last: return "last";
    }
    return "alone";
}

void writeCsv(const engine::SeriesResult& r, const engine::MetricSpec& metric, const StepCodeSizes& codeSizes,
              std::ostream& out)
{
    out << "step,name,metric,unit,n,mean,ci_low,ci_high,delta_prev_pct,p_prev_holm,change_here,change_delta_pct,"
           "change_ci_low_pct,change_ci_high_pct,change_p_holm,stands_apart,code_size_delta_bytes\n";
    auto num = [](double v) { return std::isnan(v) ? std::string() : fmt::format("{:.10g}", v); };
    for (std::size_t k = 0; k < r.steps.size(); ++k) {
        const auto& s = r.steps[k];
        auto c = std::find_if(r.changes.begin(), r.changes.end(), [&](const auto& x) { return x.step == k; });
        const bool here = c != r.changes.end();
        std::string name = s.name;
        if (name.find_first_of(",\"") != std::string::npos) {
            name = "\"" + name + "\"";
        }
        const auto apart = std::find_if(r.apart.begin(), r.apart.end(), [&](const auto& x) { return x.step == k; });
        const std::string codeBytes = k < codeSizes.size() && codeSizes[k]
                                          ? std::to_string(engine::combined(codeSizes[k]->diff).net())
                                          : std::string();
        out << fmt::format("{},{},{},{},{},{},{},{},{},{},{},{},{},{},{},{},{}\n", k + 1, name, metric.name,
                           metric.unit, s.summary.n, num(s.summary.mean), num(s.ciLow), num(s.ciHigh),
                           num(s.deltaPrevPct), num(s.pPrev), here ? 1 : 0,
                           here ? num(c->effect.interval.estimatePct) : "", here ? num(c->effect.interval.ci.low) : "",
                           here ? num(c->effect.interval.ci.high) : "", here ? num(c->pAdjusted) : "",
                           apart == r.apart.end() ? "" : apartKind(apart->kind), codeBytes);
    }
}

int analyse(const SeriesArgs& a, Result<std::vector<Step>> steps, const StepCodeSizes& codeSizes = {})
{
    if (!steps) {
        return failWith(steps.error());
    }
    if (steps->size() < 2) {
        return failWith(
            usageError("a series needs at least 2 steps (give --label twice or more, or a run with "
                       "several variants)"));
    }
    auto metric = chooseMetric(*steps, a.metric);
    if (!metric) {
        return failWith(metric.error());
    }
    auto options = a.options;
    std::set<std::int64_t> runIds;
    for (const auto& s : *steps) {
        runIds.insert(s.run->row.id);
    }
    options.separateRuns = runIds.size() == steps->size() && !pooledDesign(*steps);
    // The variants of one interleaved run: repetition i of every step was measured side by side.
    // Alternated in chunks, the rounds are the blocks: every step ran one chunk in each.
    auto series = valuesOf(*steps, *metric, runIds.size() == 1);
    if (!series) {
        return failWith(series.error());
    }
    const auto& values = series->steps;
    const bool equalReps = std::all_of(values.begin(), values.end(),
                                       [&](const auto& v) { return v.values.size() == values.front().values.size(); });
    options.blocked =
        runIds.size() == 1 && steps->front().run->spec.interleaved() && equalReps && values.front().values.size() >= 2;
    auto result = engine::analyzeSeries(values, options);
    if (!result) {
        return failWith(usageError(result.error().message));
    }
    if (a.format == "csv") {
        writeCsv(*result, *metric, codeSizes, std::cout);
    } else {
        writeText(*result, *metric, *steps, options, series->chunkRounds, codeSizes, std::cout);
    }
    return 0;
}

// --interleaved -- WORKLOAD --variant ...: the steps measured as the variants of one interleaved run
// (stored as usual), then the series of its variants.
int runInterleaved(const SeriesArgs& a, const Context& ctx)
{
    if (!a.labels.empty()) {
        return failWith(
            usageError("--interleaved measures the steps itself: give the run's arguments after --, "
                       "not --label"));
    }
    CLI::App parser("noisefloor series --interleaved --");
    RunOptions o;
    addRunOptions(&parser, o, true);
    std::vector<std::string> args(a.runs.rbegin(), a.runs.rend());  // CLI11 parses a reversed vector
    try {
        parser.parse(args);
    } catch (const CLI::ParseError& e) {
        return failWith(usageError("--interleaved -- " + std::string(e.what())));
    }
    if (!o.until.empty()) {
        return failWith(usageError("--interleaved: --until decided stops on two variants, not a series"));
    }
    auto spec = buildSpec(o);
    if (!spec) {
        return failWith(usageError(spec.error().message));
    }
    if (spec->variants.size() < 2 || !spec->interleaved()) {
        return failWith(
            usageError("--interleaved needs 2 or more --variant (the steps, in order) and an interleaved "
                       "--order"));
    }
    int analysed = 0;
    const int status = runAndReport(std::move(*spec), ctx, [&](const engine::RunRecord& run, const std::string&) {
        if (run.row.status != engine::RunStatus::Complete) {
            return;  // the run's own line on stderr says why
        }
        analysed = analyse(a, variantSteps(std::make_shared<engine::RunRecord>(run)));
    });
    return status != 0 ? status : analysed;
}

int execute(const SeriesArgs& a, const Context& ctx)
{
    if (a.interleaved) {
        return runInterleaved(a, ctx);  // stops cleanly at SIGINT/SIGTERM, as run does
    }
    SignalExit exitOnSignal;  // only reads
    auto db = openExisting(ctx);
    if (!db) {
        return failWith(db.error());
    }
    auto steps = selectSteps(*db, a.runs, a.labels);
    auto sizes = steps ? codeSizesOf(*db, *steps) : Result<StepCodeSizes>(StepCodeSizes{});
    if (!sizes) {
        return failWith(sizes.error());
    }
    return analyse(a, std::move(steps), *sizes);
}

}  // namespace

Command addSeriesCommand(CLI::App& app, Context& ctx)
{
    auto a = std::make_shared<SeriesArgs>();
    auto* sub = app.add_subcommand("series",
                                   "Which step of a patch series moved the metric? Steps with intervals "
                                   "and change points");
    sub->add_option("runs", a->runs, "RUN (its variants are the steps, in order) or RUN[:VARIANT] per step");
    sub->add_option("--label", a->labels,
                    "A step: every complete run with this label (several are pooled, the run the unit), or "
                    "LABEL:VARIANT (repeat, in order)");
    sub->add_option("--metric", a->metric, "Metric to follow (default: the first step's primary metric)");
    sub->add_option("--alpha", a->options.alpha, "Significance level")->capture_default_str();
    sub->add_option("--permutations", a->options.permutations, "Permutations per change-point test")
        ->check(CLI::Range(19, 1000000))
        ->capture_default_str();
    sub->add_option("--seed", a->options.seed, "Seed of the permutations")->capture_default_str();
    sub->add_option("--format", a->format, "text or csv")->check(CLI::IsMember({"text", "csv"}))->capture_default_str();
    sub->add_flag("--interleaved", a->interleaved,
                  "Measure the steps as the variants of one interleaved run, then analyse them paired by "
                  "repetition: series --interleaved -- WORKLOAD --variant s1:... --variant s2:... [run options]");
    return {sub, [a, &ctx] { return execute(*a, ctx); }, true};
}

}  // namespace nf::cli
