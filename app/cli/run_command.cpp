// noisefloor run: parse an experiment, check it, run it, store it, print its summary.

#include <algorithm>
#include <iostream>
#include <optional>

#include "app/cli/cli.h"
#include "app/cli/run_lookup.h"
#include "app/cli/run_options.h"
#include "app/cli/run_plan.h"
#include "app/cli/run_session.h"
#include "base/system_facts.h"
#include "data/run_store.h"
#include "engine/catalog/spec_check.h"
#include "engine/catalog/workload_catalog.h"
#include "engine/model/sweep.h"
#include "engine/report/run_text.h"

namespace nf::cli {

namespace {

// Prints what ran and, with two or more variants, the comparison; with one, the summary.
void report(const engine::RunRecord& run, const std::string& dbPath)
{
    if (run.data.variantNames.size() < 2) {
        printRunText(run, dbPath, std::cout);
        return;
    }
    printRunHeader(run, std::cout);
    std::cout << '\n';
    printRunComparison(run, {}, {}, "text", std::cout);
    std::cout << "\nstored as run " << run.row.id << " in " << dbPath << "; 'noisefloor compare " << run.row.id
              << " --verbose' for every detail, '--format json' for the figures\n";
}

// One line per finished point; the table of every point comes at the end.
void reportPoint(const engine::RunRecord& run, const std::string& /*dbPath*/)
{
    const auto& s = *run.spec.sweep;
    std::cout << s.param << "=" << s.value << " (point " << s.index + 1 << " of " << s.points << "): run " << run.row.id
              << " " << engine::toString(run.row.status) << std::endl;
}

// Bad input: one line on stderr and, when streaming events, an error event on stdout.
int usageFail(bool events, const std::string& message)
{
    if (events) {
        std::cout
            << nlohmann::json{{"event", "error"}, {"run", 0}, {"message", message}, {"exit_status", kExitUsage}}.dump()
            << std::endl;
    }
    return fail(kExitUsage, message);
}

void noReport(const engine::RunRecord& /*run*/, const std::string& /*dbPath*/) {}

bool hasCompletePoint(data::Database& db, const std::string& sweepId)
{
    auto runs = data::sweepRuns(db, sweepId);
    return runs && std::any_of(runs->begin(), runs->end(),
                               [](const engine::RunRow& row) { return row.status == engine::RunStatus::Complete; });
}

// The experiment checked as a whole (every sweep point) before anything runs: one line and exit
// 2 on the first problem.
Result<std::vector<engine::ExperimentSpec>> checkedPoints(const engine::ExperimentSpec& spec,
                                                          const std::optional<engine::SweepSpec>& sweep,
                                                          const std::string& sweepId)
{
    auto checked = engine::checkExperiment(spec, sweep, base::readSystemFacts(), sweepId);
    if (!checked.ok()) {
        const auto& problem = checked.problems.front();
        return Error{engine::describe(problem, optionName(problem.field))};
    }
    if (!sweep) {
        return std::vector<engine::ExperimentSpec>{spec};  // prepareExperiment fills in the defaults
    }
    return std::move(checked.experiment.points);
}

int runSweep(std::vector<engine::ExperimentSpec> specs, const engine::SweepSpec& sweep, const std::string& id,
             const Context& ctx, bool events)
{
    if (events) {
        // One run_started ... finished sequence per point; each spec names its sweep point.
        return runAllAndReport(specs, ctx, noReport, &std::cout);
    }
    if (specs.front().pmu.simulated) {
        std::cout << engine::simulatedCountersNote(specs.front().pmu) << '\n';
    }
    std::cout << "Sweep " << id << ": " << specs.front().workload << " at " << sweep.param << " = ";
    for (std::size_t i = 0; i < sweep.values.size(); ++i) {
        std::cout << (i > 0 ? ", " : "") << sweep.values[i];
    }
    std::cout << "\n\n";
    const int status = runAllAndReport(specs, ctx, reportPoint);
    // The points that completed, compared; a sweep stopped before its first point has none, and its
    // stop already said so in one line.
    if (auto db = openExisting(ctx); db && status != kExitUsage && hasCompletePoint(*db, id)) {
        std::cout << '\n';
        (void)printSweepComparison(*db, id, {}, {}, "text", std::cout);
        std::cout << "\n'noisefloor compare --sweep RUN' shows this again for any run of the sweep.\n";
    }
    return status;
}

int execute(RunOptions& o, const Context& ctx, const std::string& eventsFormat, bool dryRun,
            const std::string& planFormat)
{
    const bool events = eventsFormat == "jsonl";
    auto spec = buildSpec(o);
    if (!spec) {
        return usageFail(events, spec.error().message);
    }
    std::optional<engine::SweepSpec> sweep;
    if (!o.sweep.empty()) {
        auto parsed = engine::parseSweep(o.sweep);
        if (!parsed) {
            return usageFail(events, "--sweep " + parsed.error().message);
        }
        sweep = std::move(*parsed);
    }
    const std::string id = sweep ? engine::newSweepId() : "";
    auto specs = checkedPoints(*spec, sweep, id);
    if (!specs) {
        return usageFail(events, specs.error().message);
    }
    if (dryRun) {
        return planFormat == "json" ? printPlanJson(*specs, std::cout) : printPlan(std::move(*specs), std::cout);
    }
    if (sweep) {
        return runSweep(std::move(*specs), *sweep, id, ctx, events);
    }
    // stdout carries only the events when streaming; the run's id is in them for `compare`.
    return runAllAndReport(*specs, ctx, events ? noReport : report, events ? &std::cout : nullptr);
}

std::string workloadFooter()
{
    std::string text = "\nWorkloads (see 'noisefloor workloads' for every parameter):\n";
    for (const auto& w : engine::workloadCatalog()) {
        text += "  " + w.name + ": " + w.summary + "\n";
    }
    return text;
}

}  // namespace

Command addRunCommand(CLI::App& app, Context& ctx)
{
    auto o = std::make_shared<RunOptions>();
    auto events = std::make_shared<std::string>();
    auto dryRun = std::make_shared<bool>(false);
    auto* sub = app.add_subcommand("run", "Run an A/B experiment and store every sample");
    sub->footer(workloadFooter());
    addRunOptions(sub, *o, true);
    sub->add_option("--sweep", o->sweep,
                    "PARAM=v1,v2,...: run every variant at each value of PARAM, one run per point, and "
                    "compare each point");
    sub->add_option("--events", *events,
                    "jsonl: write the run to stdout as JSON lines (run_started, samples, progress, warning, "
                    "finished, error; see docs/events.md) instead of the text report")
        ->check(CLI::IsMember({"jsonl"}));
    auto stdinStops = std::make_shared<bool>(false);
    sub->add_flag("--stop-when-stdin-closes", *stdinStops,
                  "Stop the run (as at SIGHUP) when stdin reaches its end: a front end that drives the run "
                  "over ssh stops it by closing its side");
    sub->add_flag("--dry-run", *dryRun,
                  "Check the experiment and print the plan (variants, parameters, CPUs, schedule, time); run and "
                  "store nothing");
    auto planFormat = std::make_shared<std::string>("text");
    sub->add_option("--format", *planFormat,
                    "With --dry-run: text, or json (the time, the CPUs it would measure on and the runs "
                    "measuring on them now)")
        ->check(CLI::IsMember({"text", "json"}))
        ->capture_default_str();
    return {sub,
            [o, events, dryRun, stdinStops, planFormat, &ctx] {
                ctx.stopWhenStdinCloses = *stdinStops;
                if (*planFormat != "text" && !*dryRun) {
                    return fail(kExitUsage, "--format is for --dry-run (a run reports as text, or --events jsonl)");
                }
                return execute(*o, ctx, *events, *dryRun, *planFormat);
            },
            true};
}

}  // namespace nf::cli
