#pragma once
// The options that describe an experiment, shared by `run` and `calibrate`.

#include <cstdint>
#include <string>
#include <vector>

#include "app/cli/cli.h"
#include "engine/catalog/spec_check.h"
#include "engine/model/experiment_spec.h"

namespace nf::cli {

struct RunOptions {
    engine::ExperimentSpec spec;
    std::string workload;
    std::vector<std::string> params;
    std::vector<std::string> variants;
    std::string cpus;
    std::string housekeeping;
    std::string counters;
    std::string pmu = "perf";
    std::string countersMode;        // "user", "all"
    bool countersModeGiven = false;  // else the workload's default
    std::string order = "interleaved";
    double chunk = 0;
    bool chunkGiven = false;
    std::uint64_t seed = 0;
    bool seedGiven = false;
    std::string sweep;  // PARAM=v1,v2,...; "" = no sweep
    std::string until;  // "decided", or "" for a fixed number of repetitions
    engine::UntilDecided decided;
    std::vector<std::string> decidedGiven;  // --max-time, --margin, --alpha as given
    std::string profile;                    // --profile[=HZ] as given; "" = not profiled
};

// Turns the options into a spec; errors name the option and value.
Result<engine::ExperimentSpec> buildSpec(RunOptions& o);

// The option a field of the experiment is set with ("--reps"), for the spec check's problems.
std::string optionName(engine::SpecField field);

// Adds the workload argument and -p, --reps, --duration, --warmup, --interval, --chunk, --cpu,
// --housekeeping, --share-cpus, --counters, --counters-mode, --pmu, --seed, --label; with
// `variants`, also --variant and --order.
void addRunOptions(CLI::App* sub, RunOptions& o, bool variants);

}  // namespace nf::cli
