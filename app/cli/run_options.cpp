#include "app/cli/run_options.h"

#include <charconv>

#include "base/system_facts.h"
#include "engine/model/parameter.h"
#include "engine/model/profile.h"

namespace nf::cli {

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
            return Error{"--variant " + variant.error().message};
        }
        spec.variants.push_back(std::move(*variant));
    }
    if (!o.cpus.empty()) {
        bool ok = false;
        spec.cpus = base::parseCpuList(o.cpus, &ok);
        if (!ok) {
            return Error{"--cpu '" + o.cpus + "': expected a CPU list such as 1 or 0-3,8"};
        }
    }
    if (!o.housekeeping.empty()) {
        bool ok = false;
        spec.housekeeping = base::parseCpuList(o.housekeeping, &ok);
        if (!ok) {
            return Error{"--housekeeping '" + o.housekeeping + "': expected a CPU list such as 0 or 2-3"};
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
    if (o.countersModeGiven) {
        auto mode = engine::parseCountersMode(o.countersMode);
        if (!mode) {
            return Error{"--counters-mode " + mode.error().message};
        }
        spec.countersMode = *mode;
    }
    auto pmu = engine::parsePmu(o.pmu);
    if (!pmu) {
        return Error{"--pmu " + pmu.error().message};
    }
    spec.pmu = *pmu;
    auto order = engine::parseOrder(o.order);
    if (!order) {
        return Error{"--order " + order.error().message};
    }
    spec.order = *order;
    if (o.chunkGiven) {
        spec.chunk = o.chunk;
    }
    if (o.seedGiven) {
        spec.seed = o.seed;
    }
    if (!o.profile.empty()) {
        int hz = 0;
        const auto* end = o.profile.data() + o.profile.size();
        if (auto [p, ec] = std::from_chars(o.profile.data(), end, hz); ec != std::errc{} || p != end) {
            return Error{"--profile=" + o.profile + ": expected a rate in samples a second, e.g. --profile=999"};
        }
        spec.profileHz = hz;
    }
    if (!o.until.empty()) {
        if (o.until != "decided") {
            return Error{"--until '" + o.until + "': expected 'decided'"};
        }
        spec.until = o.decided;
    } else if (!o.decidedGiven.empty()) {
        return Error{o.decidedGiven.front() + ": only with --until decided"};
    }
    return spec;
}

std::string optionName(engine::SpecField field)
{
    switch (field) {
        case engine::SpecField::Workload: return "workload";
        case engine::SpecField::Repetitions: return "--reps";
        case engine::SpecField::Duration: return "--duration";
        case engine::SpecField::Warmup: return "--warmup";
        case engine::SpecField::Interval: return "--interval";
        case engine::SpecField::Chunk: return "--chunk";
        case engine::SpecField::Variants: return "--variant";
        case engine::SpecField::Param: return "-p";
        case engine::SpecField::Cpus: return "--cpu";
        case engine::SpecField::Counters: return "--counters";
        case engine::SpecField::Pmu: return "--pmu";
        case engine::SpecField::Sweep: return "--sweep";
        case engine::SpecField::Until: return "--until";
        case engine::SpecField::MaxTime: return "--max-time";
        case engine::SpecField::Margin: return "--margin";
        case engine::SpecField::Alpha: return "--alpha";
        case engine::SpecField::Primary: return "--primary";
        case engine::SpecField::Layouts: return "--layouts";
        case engine::SpecField::Housekeeping: return "--housekeeping";
        case engine::SpecField::Setups: return "--setups";
        case engine::SpecField::Profile: return "--profile";
    }
    return "?";
}

void addRunOptions(CLI::App* sub, RunOptions& o, bool variants)
{
    sub->add_option("workload", o.workload, "Workload to run")->required();
    sub->add_option("-p,--param", o.params, "key=value for every variant (repeatable)");
    if (variants) {
        sub->add_option("--variant", o.variants,
                        "NAME or NAME:key=value[,key=value...] (repeatable; default: one "
                        "variant named 'default')");
        sub->add_option("--order", o.order, "interleaved (A B B A), random (seeded) or blocked")->capture_default_str();
        sub->add_option(
            "--until", o.until,
            "decided: alternate until the primary metric is different, negligible or equivalent within --margin "
            "(a confidence sequence, valid at every look; --reps is then as many as fit in --max-time) or --max-time "
            "passes");
        sub->add_option("--max-time", o.decided.maxTime, "With --until decided: seconds of measuring at most")
            ->capture_default_str()
            ->each([&o](const std::string&) { o.decidedGiven.emplace_back("--max-time"); });
        sub->add_option("--margin", o.decided.marginPct, "With --until decided: the equivalence margin, +-%")
            ->capture_default_str()
            ->each([&o](const std::string&) { o.decidedGiven.emplace_back("--margin"); });
        sub->add_option("--alpha", o.decided.alpha, "With --until decided: the error rate the decision holds to")
            ->capture_default_str()
            ->each([&o](const std::string&) { o.decidedGiven.emplace_back("--alpha"); });
    }
    sub->add_option("--reps", o.spec.repetitions, "Repetitions per variant")->capture_default_str();
    sub->add_option("--duration", o.spec.duration, "Seconds per variant per repetition")->capture_default_str();
    sub->add_option("--warmup", o.spec.warmup, "Seconds per variant before measuring")->capture_default_str();
    sub->add_option("--interval", o.spec.interval, "Sample length in seconds when not alternating in chunks")
        ->capture_default_str();
    sub->add_option("--chunk", o.chunk,
                    "Alternate variants in chunks of this many seconds inside each repetition "
                    "(0: off; default: the workload's, 0.002 for in-process workloads)")
        ->each([&o](const std::string&) { o.chunkGiven = true; });
    sub->add_option("--cpu", o.cpus, "CPU list for the worker, e.g. 1 or 2-3 (default: the last allowed CPU)");
    sub->add_option("--housekeeping", o.housekeeping,
                    "CPU list for the harness's own threads (sampler, recorder, event stream), e.g. 0 or 2-3; "
                    "never a measured CPU (default: every allowed CPU the run does not measure on; with none "
                    "left, a live run counts the harness's wakeups and CPU time per sample)");
    sub->add_flag("--share-cpus", o.spec.shareCpus,
                  "Run even on CPUs another run is measuring on (recorded with the run, and a warning); "
                  "by default such a run refuses to start");
    sub->add_option("--counters", o.counters,
                    "Counters, comma separated (default: cycles, instructions, "
                    "branches, branch-misses, cache-misses, task-clock, "
                    "context-switches, cpu-migrations, page-faults)");
    sub->add_option("--counters-mode", o.countersMode,
                    "user: hardware counters count user mode only (kernel excluded: interrupts and ticks are not "
                    "in a variant's counts); all: user and kernel mode. Default: user for in-process workloads, "
                    "all for live tests and command. Software counters (context-switches, ...) count both either "
                    "way")
        ->each([&o](const std::string&) { o.countersModeGiven = true; });
    sub->add_option("--pmu", o.pmu,
                    "Where cycles, instructions, branches, branch-misses and cache-misses come from: perf (the "
                    "kernel) or simulated[:running=F,period_ms=P,fail_read=N], made-up counts that test the counter "
                    "path on a machine without a PMU; every output then says SIMULATED counters")
        ->capture_default_str();
    sub->add_option("--seed", o.seed, "Seed for random order (default: drawn and recorded)")
        ->each([&o](const std::string&) { o.seedGiven = true; });
    sub->add_option("--layouts", o.spec.layouts,
                    "Code placements of the workload's hot code drawn per repetition, each variant every one "
                    "equally often, so the verdict's interval includes how much where the code sits moves the "
                    "result (0: placement 0 only; 2-8; default: 8 when the variants run different code, e.g. "
                    "check=early against late, else 0). layout=N among a variant's parameters pins it to "
                    "placement N");
    sub->add_option("--setups", o.spec.setups,
                    "Live runs side by side: setups per repetition, each a phase in which the variants' receivers "
                    "start anew (sockets, threads, buffers) on traded places; the verdict's interval is over the "
                    "setups, so more of them, shorter, find smaller differences. A multiple of the variants "
                    "(default: one per 20 chunk rounds, at least one per variant)");
    sub->add_flag("--profile{" + std::to_string(engine::kDefaultProfileHz) + "}", o.profile,
                  "--profile[=HZ]: sample the measured CPUs' call stacks (cycles where a PMU counts them, else "
                  "cpu-clock) HZ times a second (default " +
                      std::to_string(engine::kDefaultProfileHz) +
                      "), each sample in the chunk it fell in; compare then says where the time went");
    sub->add_option("--label", o.spec.label, "A label to find the run by");
    sub->add_option("--primary", o.spec.primaryMetric,
                    "The metric the verdict rests on, tested at alpha alone (the others are Holm-adjusted among "
                    "themselves); default: the workload's (noisefloor workloads names it)");
}

}  // namespace nf::cli
