// noisefloor run: parse an experiment, check it, run it, store it, print its summary.

#include <algorithm>
#include <iostream>

#include "cli.h"
#include "run_lookup.h"
#include "run_options.h"
#include "run_session.h"
#include "run_store.h"
#include "run_text.h"
#include "scheduler.h"
#include "sweep.h"
#include "system_facts.h"

namespace nf::cli {

namespace {

// Prints what ran and, with two or more variants, the comparison; with one, the summary.
void report(const data::StoredRun& run, const std::string& dbPath)
{
    if (run.data.variantNames.size() < 2) {
        printRunText(run, dbPath, std::cout);
        return;
    }
    printRunHeader(run, std::cout);
    std::cout << '\n';
    printRunComparison(run, {}, {}, "text", std::cout);
    std::cout << "\nstored as run " << run.row.id << " in " << dbPath << "; 'noisefloor compare " << run.row.id
              << " --format json' for the figures\n";
}

// One line per finished point; the table of every point comes at the end.
void reportPoint(const data::StoredRun& run, const std::string& /*dbPath*/)
{
    const auto& s = run.spec.at("sweep");
    std::cout << s.value("param", "") << "=" << s.value("value", "") << " (point " << s.value("index", 0) + 1 << " of "
              << s.value("points", 0) << "): run " << run.row.id << " " << engine::toString(run.row.status)
              << std::endl;
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

void noReport(const data::StoredRun& /*run*/, const std::string& /*dbPath*/) {}

bool hasCompletePoint(data::Database& db, const std::string& sweepId)
{
    auto runs = data::sweepRuns(db, sweepId);
    return runs && std::any_of(runs->begin(), runs->end(),
                               [](const data::RunRow& row) { return row.status == engine::RunStatus::Complete; });
}

int runSweep(const engine::ExperimentSpec& spec, const std::string& sweepText, const Context& ctx, bool events)
{
    auto sweep = engine::parseSweep(sweepText);
    if (!sweep) {
        return usageFail(events, sweep.error().message);
    }
    const std::string id = engine::newSweepId();
    auto specs = engine::expandSweep(spec, *sweep, id);
    if (!specs) {
        return usageFail(events, specs.error().message);
    }
    if (events) {
        // One run_started ... finished sequence per point; each spec names its sweep point.
        return runAllAndReport(std::move(*specs), ctx, noReport, &std::cout);
    }
    std::cout << "Sweep " << id << ": " << spec.workload << " at " << sweep->param << " = ";
    for (std::size_t i = 0; i < sweep->values.size(); ++i) {
        std::cout << (i > 0 ? ", " : "") << sweep->values[i];
    }
    std::cout << "\n\n";
    const int status = runAllAndReport(std::move(*specs), ctx, reportPoint);
    // The points that completed, compared; a sweep stopped before its first point has none, and its
    // stop already said so in one line.
    if (auto db = openExisting(ctx); db && status != kExitUsage && hasCompletePoint(*db, id)) {
        std::cout << '\n';
        (void)printSweepComparison(*db, id, {}, {}, "text", std::cout);
        std::cout << "\n'noisefloor compare --sweep RUN' shows this again for any run of the sweep.\n";
    }
    return status;
}

int execute(RunOptions& o, const Context& ctx, const std::string& eventsFormat)
{
    const bool events = eventsFormat == "jsonl";
    auto spec = buildSpec(o);
    if (!spec) {
        return usageFail(events, spec.error().message);
    }
    if (!o.sweep.empty()) {
        return runSweep(*spec, o.sweep, ctx, events);
    }
    if (events) {
        // stdout carries only the events; the run's id is in them for `compare`.
        return runAndReport(std::move(*spec), ctx, noReport, &std::cout);
    }
    return runAndReport(std::move(*spec), ctx, report);
}

std::string workloadFooter()
{
    std::string text = "\nWorkloads (see 'noisefloor workloads' for every parameter):\n";
    for (const auto& w : engine::workloadRegistry()) {
        text += "  " + w.name + ": " + w.summary + "\n";
    }
    return text;
}

}  // namespace

Command addRunCommand(CLI::App& app, Context& ctx)
{
    auto o = std::make_shared<RunOptions>();
    auto events = std::make_shared<std::string>();
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
    return {sub, [o, events, &ctx] { return execute(*o, ctx, *events); }, true};
}

}  // namespace nf::cli
