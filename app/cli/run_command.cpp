// noisefloor run: parse an experiment, check it, run it, store it, print its summary.

#include <iostream>

#include "cli.h"
#include "run_options.h"
#include "run_session.h"
#include "run_store.h"
#include "run_text.h"
#include "scheduler.h"
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

int execute(RunOptions& o, const Context& ctx, const std::string& events)
{
    auto spec = buildSpec(o);
    if (events == "jsonl") {
        if (!spec) {
            std::cout << nlohmann::json{{"event", "error"},
                                        {"run", 0},
                                        {"message", spec.error().message},
                                        {"exit_status", kExitUsage}}
                             .dump()
                      << std::endl;
            return fail(kExitUsage, spec.error().message);
        }
        // stdout carries only the events; the run's id is in them for `compare`.
        return runAndReport(
            std::move(*spec), ctx, [](const data::StoredRun&, const std::string&) {}, &std::cout);
    }
    if (!spec) {
        return fail(kExitUsage, spec.error().message);
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
    sub->add_option("--events", *events,
                    "jsonl: write the run to stdout as JSON lines (run_started, samples, progress, warning, "
                    "finished, error; see docs/events.md) instead of the text report")
        ->check(CLI::IsMember({"jsonl"}));
    return {sub, [o, events, &ctx] { return execute(*o, ctx, *events); }};
}

}  // namespace nf::cli
