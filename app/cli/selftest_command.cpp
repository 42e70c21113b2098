// noisefloor selftest: measures the measurement. Prints the TSC read overhead, the harness's
// per-call overhead, the cost of a counter read, the linearity of `spin` and the run-to-run spread
// of repetition means on this machine.

#include <fmt/format.h>

#include <iostream>

#include "app/cli/cli.h"
#include "app/cli/run_options.h"
#include "app/cli/signal_stop.h"
#include "base/system_facts.h"
#include "engine/analysis/chunk_cut.h"
#include "engine/run/counter_columns.h"
#include "engine/run/run_collector.h"
#include "engine/run/scheduler.h"
#include "engine/stats/descriptive.h"
#include "engine/workloads/registry.h"
#include "probes/counter_group.h"
#include "probes/tsc_clock.h"

namespace nf::cli {

namespace {

struct SelftestOptions {
    std::string cpus;
    std::string pmu = "perf";
    engine::PmuChoice choice;
    double scale = 1.0;  // --quick shortens every run
};

engine::ExperimentSpec spinSpec(const SelftestOptions& o, std::vector<engine::VariantSpec> variants, int reps,
                                double duration, double chunk)
{
    engine::ExperimentSpec spec;
    spec.workload = "spin";
    spec.variants = std::move(variants);
    spec.repetitions = reps;
    spec.duration = duration * o.scale;
    spec.warmup = 0.2 * o.scale;
    spec.chunk = chunk;
    spec.pmu = o.choice;
    if (!o.cpus.empty()) {
        spec.cpus = base::parseCpuList(o.cpus);
    }
    return spec;
}

// A bad --cpu or --pmu is bad input: refused before anything is measured or printed.
Result<void> checkOptions(SelftestOptions& o)
{
    auto pmu = engine::parsePmu(o.pmu);
    if (!pmu) {
        return Error{"--pmu " + pmu.error().message};
    }
    o.choice = *pmu;
    bool ok = true;
    if (!o.cpus.empty() && (base::parseCpuList(o.cpus, &ok).empty() || !ok)) {
        return Error{"--cpu '" + o.cpus + "': expected a CPU list such as 1 or 2-3"};
    }
    NF_TRY(engine::prepareExperiment(spinSpec(o, {{"default", {}}}, 1, 0.5, 0), base::readSystemFacts(),
                                     engine::workloads::implementations(), optionName));
    return {};
}

Result<engine::RunCollector> runSpin(const SelftestOptions& o, std::vector<engine::VariantSpec> variants, int reps,
                                     double duration, double chunk, const SignalStop& signals)
{
    const auto prepared =
        NF_TRY(engine::prepareExperiment(spinSpec(o, std::move(variants), reps, duration, chunk),
                                         base::readSystemFacts(), engine::workloads::implementations(), optionName));
    engine::RunCollector collector;
    const auto outcome = engine::runExperiment(prepared, collector, {signals.token(), &signals.signal(), ""});
    if (outcome.status != engine::RunStatus::Complete) {
        return Error{"selftest run " + std::string(engine::toString(outcome.status)) + ": " + outcome.reason};
    }
    return collector;
}

double counterReadMicros(const probes::TscClock& tsc, const engine::PmuChoice& pmu)
{
    auto events = probes::resolveEvents("cycles,instructions,branch-misses,task-clock,context-switches");
    if (!events) {
        return 0;
    }
    auto simulated = engine::simulatedPmu(pmu);
    if (simulated) {
        simulated->tscHz = tsc.hz();
    }
    auto group =
        probes::CounterGroup::open(*events, probes::CounterTarget::callingThread(), simulated ? &*simulated : nullptr);
    if (!group) {
        return 0;
    }
    constexpr int kReads = 2000;
    probes::CounterReading reading = group->reading();
    const auto t0 = probes::readTsc();
    for (int i = 0; i < kReads; ++i) {
        (void)group->read(reading);
    }
    return tsc.toNanoseconds(probes::readTsc() - t0) / kReads / 1e3;
}

int execute(SelftestOptions& o)
{
    if (auto checked = checkOptions(o); !checked) {
        return fail(kExitUsage, checked.error().message);
    }
    if (o.choice.simulated) {
        std::cout << engine::simulatedCountersNote(o.choice) << '\n';
    }
    SignalStop signals;
    auto tsc = probes::TscClock::calibrate(0.1);
    if (!tsc) {
        return fail(kExitRuntime, tsc.error().message);
    }
    const auto& cal = tsc->calibration();
    std::cout << fmt::format("TSC: {:.1f} MHz, {}\n", cal.hz / 1e6, cal.invariant ? "invariant" : "NOT invariant");
    std::cout << fmt::format("TSC read overhead: {:g} ticks median, {:g} min ({:.1f} ns)\n", cal.readOverheadTicks,
                             cal.readOverheadMinTicks,
                             tsc->toNanoseconds(static_cast<std::uint64_t>(cal.readOverheadTicks)));
    const double readUs = counterReadMicros(*tsc, o.choice);
    std::cout << fmt::format(
        "counter group read{}: {:.2f} us per read (2 per slice: {:.3f}% of a 2 ms chunk, "
        "outside the timed loop)\n",
        o.choice.simulated ? " (SIMULATED PMU)" : "", readUs, 2 * readUs / 2000 * 100);

    auto lin = runSpin(o, {{"w1", {{"work", "1"}}}, {"w1000", {{"work", "1000"}}}, {"w2000", {{"work", "2000"}}}}, 5,
                       0.5, 0.002, signals);
    if (!lin) {
        return fail(kExitRuntime, lin.error().message);
    }
    const auto& data = lin->data();
    const auto& tscPerOp = data.layout.metrics.front();
    const auto cut = engine::chunkCut(data);
    const double w1 = engine::mean(engine::repetitionValues(data, cut, 0, tscPerOp));
    const double w1000 = engine::mean(engine::repetitionValues(data, cut, 1, tscPerOp));
    const double w2000 = engine::mean(engine::repetitionValues(data, cut, 2, tscPerOp));
    const double loop = lin->start().environment["measurement"].value("loop_overhead_ticks_per_op", 0.0);
    std::cout << fmt::format("harness loop overhead: {:.2f} ticks per call ({:.3f}% of a spin work=1000 call)\n", loop,
                             loop / w1000 * 100);
    std::cout << fmt::format("spin cost: work=1 {:.2f}, work=1000 {:.1f}, work=2000 {:.1f} ticks per call\n", w1, w1000,
                             w2000);
    const double ratio = w2000 / w1000;
    const bool linear = ratio > 1.98 && ratio < 2.02;
    std::cout << fmt::format("linearity: work=2000 / work=1000 = {:.4f} (expected 2.00 +- 0.02): {}\n", ratio,
                             linear ? "ok" : "FAIL");

    auto reps = runSpin(o, {{"default", {}}}, 10, 0.5, 0, signals);
    if (!reps) {
        return fail(kExitRuntime, reps.error().message);
    }
    const auto& once = reps->data();
    const auto values = engine::repetitionValues(once, engine::chunkCut(once), 0, once.layout.metrics.front());
    const auto s = engine::summarize(values);
    std::cout << fmt::format(
        "repetition means, {} x {:g} s of spin work=1000 (not alternating): mean {:.2f} "
        "ticks/op, CV {:.3f}%, min {:.2f}, max {:.2f}\n",
        s.n, 0.5 * o.scale, s.mean, s.cv * 100, s.min, s.max);
    return linear ? 0 : kExitRuntime;
}

}  // namespace

Command addSelftestCommand(CLI::App& app)
{
    auto o = std::make_shared<SelftestOptions>();
    auto* sub = app.add_subcommand("selftest",
                                   "Measure the measurement: TSC and harness overhead, linearity of "
                                   "spin, run-to-run spread");
    sub->add_option("--cpu", o->cpus, "Worker CPU (default: the last allowed CPU)");
    sub->add_option("--pmu", o->pmu,
                    "perf, or simulated[:running=F,period_ms=P,fail_read=N] to test the counter path on a machine "
                    "without a PMU (the output then starts with SIMULATED counters)")
        ->capture_default_str();
    sub->add_flag_callback(
        "--quick", [o] { o->scale = 0.2; }, "Shorter runs (about 5x faster, noisier)");
    return {sub, [o] { return execute(*o); }, true};
}

}  // namespace nf::cli
