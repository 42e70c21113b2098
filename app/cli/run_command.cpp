// noisefloor run: parse an experiment, check it, run it, store it, print its summary.

#include <unistd.h>

#include <cstdio>
#include <iostream>

#include "cli.h"
#include "run_store.h"
#include "run_text.h"
#include "scheduler.h"
#include "signal_stop.h"
#include "system_facts.h"

namespace nf::cli {

namespace {

struct RunOptions {
    engine::ExperimentSpec spec;
    std::string workload;
    std::vector<std::string> params;
    std::vector<std::string> variants;
    std::string cpus;
    std::string counters;
    std::string order = "interleaved";
    double chunk = 0;
    bool chunkGiven = false;
    std::uint64_t seed = 0;
    bool seedGiven = false;
};

// Records the run and shows progress and warnings on the terminal.
class CliObserver : public engine::RunObserver {
public:
    explicit CliObserver(data::RunRecorder& recorder) : m_recorder(recorder), m_tty(isatty(STDERR_FILENO) == 1) {}

    Result<void> runStarted(const engine::RunStart& start) override { return m_recorder.runStarted(start); }
    Result<void> repetitionFinished(const engine::RepetitionResult& rep) override
    {
        return m_recorder.repetitionFinished(rep);
    }
    void warning(std::string_view text) override
    {
        clearProgress();
        std::cerr << "noisefloor: warning: " << text << '\n';
    }
    void progress(int done, int total, double secondsLeft) override
    {
        if (m_tty) {
            (void)std::fprintf(stderr, "\r  repetition %d of %d, %.1f s left   ", done, total, secondsLeft);
            m_progressShown = true;
        }
    }
    void runFinished(engine::RunStatus status, std::string_view reason) override
    {
        clearProgress();
        m_recorder.runFinished(status, reason);
    }

private:
    void clearProgress()
    {
        if (m_progressShown) {
            (void)std::fprintf(stderr, "\r%60s\r", "");
            m_progressShown = false;
        }
    }
    data::RunRecorder& m_recorder;
    bool m_tty;
    bool m_progressShown = false;
};

Result<engine::ExperimentSpec> buildSpec(RunOptions& o)
{
    auto& spec = o.spec;
    spec.workload = o.workload;
    for (const auto& p : o.params) {
        auto kv = engine::parseAssignment(p);
        if (!kv) {
            return Error{"-p " + kv.error().message};
        }
        spec.params[kv->first] = kv->second;
    }
    for (const auto& v : o.variants) {
        auto variant = engine::parseVariant(v);
        if (!variant) {
            return variant.error();
        }
        spec.variants.push_back(std::move(*variant));
    }
    if (!o.cpus.empty()) {
        bool ok = false;
        spec.cpus = probes::parseCpuList(o.cpus, &ok);
        if (!ok) {
            return Error{"--cpu '" + o.cpus + "': expected a CPU list such as 1 or 0-3,8"};
        }
    }
    if (!o.counters.empty()) {
        std::string name;
        for (char c : o.counters + ",") {
            if (c == ',') {
                if (!name.empty()) {
                    spec.counters.push_back(name);
                }
                name.clear();
            } else if (c != ' ') {
                name += c;
            }
        }
    }
    auto order = engine::parseOrder(o.order);
    if (!order) {
        return order.error();
    }
    spec.order = *order;
    if (o.chunkGiven) {
        spec.chunk = o.chunk;
    }
    if (o.seedGiven) {
        spec.seed = o.seed;
    }
    return spec;
}

int execute(RunOptions& o, const Context& ctx)
{
    auto spec = buildSpec(o);
    if (!spec) {
        return fail(kExitUsage, spec.error().message);
    }
    auto prepared = engine::prepareExperiment(std::move(*spec), probes::readSystemFacts());
    if (!prepared) {
        return fail(kExitUsage, prepared.error().message);
    }
    auto db = openDatabase(ctx, data::Database::Mode::ReadWrite);
    if (!db) {
        return fail(kExitRuntime, db.error().message);
    }
    data::RunRecorder recorder(*db);
    CliObserver observer(recorder);
    SignalStop signals;
    const auto outcome = engine::runExperiment(*prepared, observer, {signals.token(), &signals.signal()});
    if (recorder.runId() == 0) {
        return fail(kExitRuntime, "run failed before measuring: " + outcome.reason);
    }
    if (auto stored = data::loadRun(*db, recorder.runId())) {
        printRunText(*stored, db->path(), std::cout);
    }
    if (recorder.finishError()) {
        return fail(kExitRuntime, "could not record the end of the run: " + recorder.finishError()->message);
    }
    switch (outcome.status) {
        case engine::RunStatus::Complete: return 0;
        case engine::RunStatus::Aborted:
            fail(kExitRuntime, "run " + std::to_string(recorder.runId()) + " aborted: " + outcome.reason);
            return signals.exitStatus() != 0 ? signals.exitStatus() : kExitRuntime;
        default: return fail(kExitRuntime, "run " + std::to_string(recorder.runId()) + " failed: " + outcome.reason);
    }
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
    auto* sub = app.add_subcommand("run", "Run an A/B experiment and store every sample");
    sub->footer(workloadFooter());
    sub->add_option("workload", o->workload, "Workload to run")->required();
    sub->add_option("-p,--param", o->params, "key=value for every variant (repeatable)");
    sub->add_option("--variant", o->variants,
                    "NAME or NAME:key=value[,key=value...] (repeatable; default: one "
                    "variant named 'default')");
    sub->add_option("--reps", o->spec.repetitions, "Repetitions per variant")->capture_default_str();
    sub->add_option("--duration", o->spec.duration, "Seconds per variant per repetition")->capture_default_str();
    sub->add_option("--warmup", o->spec.warmup, "Seconds per variant before measuring")->capture_default_str();
    sub->add_option("--interval", o->spec.interval, "Sample length in seconds when not alternating in chunks")
        ->capture_default_str();
    sub->add_option("--chunk", o->chunk,
                    "Alternate variants in chunks of this many seconds inside each repetition "
                    "(0: off; default: the workload's, 0.002 for in-process workloads)")
        ->each([o](const std::string&) { o->chunkGiven = true; });
    sub->add_option("--cpu", o->cpus, "CPU list for the worker, e.g. 1 or 2-3 (default: the last allowed CPU)");
    sub->add_option("--counters", o->counters,
                    "Counters, comma separated (default: cycles, instructions, "
                    "branches, branch-misses, cache-misses, task-clock, "
                    "context-switches, cpu-migrations, page-faults)");
    sub->add_option("--order", o->order, "interleaved (A B B A), random (seeded) or blocked")->capture_default_str();
    sub->add_option("--seed", o->seed, "Seed for random order (default: drawn and recorded)")
        ->each([o](const std::string&) { o->seedGiven = true; });
    sub->add_option("--label", o->spec.label, "A label to find the run by");
    return {sub, [o, &ctx] { return execute(*o, ctx); }};
}

}  // namespace nf::cli
