#pragma once
// The one check of an experiment before anything runs: the workload exists, the counts and
// durations are in range, the variants are named well, every variant's parameters (at every sweep
// point) are in range and pass the workload's own checks, and the CPUs exist. `noisefloor run`
// (and its --dry-run) and the GUI's editor both call it, so the editor's Run button is enabled
// exactly when the engine would accept the experiment.

#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "base/system_facts.h"
#include "engine/catalog/workload_catalog.h"
#include "engine/model/experiment_spec.h"
#include "engine/model/sweep.h"

namespace nf::engine {

// The most samples one repetition may hold (it is stored, and so held, whole).
inline constexpr std::size_t kMaxSamplesPerRepetition = 1'000'000;
// The shortest chunk of a live workload side by side: each is preceded by a guard of a millisecond
// or more while the previous variant's socket drains.
inline constexpr double kMinLiveChunk = 0.005;

// What a problem is about. Each front end names a field its own way (the CLI by its option,
// "--reps"; the GUI by its form label), so problems carry the field, not the name.
enum class SpecField {
    Workload,
    Repetitions,
    Duration,
    Warmup,
    Interval,
    Chunk,
    Variants,
    Param,
    Cpus,
    Counters,
    Pmu,
    Sweep,
    Until,         // --until decided: what it needs of the experiment
    MaxTime,       // --max-time
    Margin,        // the equivalence margin an until-decided run decides with
    Alpha,         // the error rate it decides with
    Primary,       // the metric the verdict rests on
    Layouts,       // the code placements drawn per repetition
    Housekeeping,  // the CPUs of the harness's own threads
    Setups,        // the setups per repetition of a live run side by side
    Profile        // the sampling rate of --profile
};
std::string_view toString(SpecField field);  // "repetitions", "duration", ...

struct SpecProblem {
    SpecField field = SpecField::Workload;
    std::string variant;  // the variant it is about; "" when it is about all of them (or there is one)
    std::string param;    // Param: the parameter it is about, when one is named ("work" of "work=0: ...")
    std::string value;    // the value as given ("0" for repetitions 0); "" when there is none
    std::string message;  // what is wrong, naming no command-line option: "must be 1..100000"
};

// "<name> <value>: <message>" (or "variant <v>: <message>" for a variant's parameters), where the
// front end supplies <name>, e.g. "--reps" or "Repetitions".
std::string describe(const SpecProblem& problem, std::string_view fieldName);

struct CheckedExperiment {
    const WorkloadDescriptor* workload = nullptr;
    // One spec per sweep point (one without a sweep), resolved: a "default" variant when none was
    // given, the workload's chunk when none was set, the run's CPU when none was chosen, the workload's
    // counting mode when none was asked for.
    std::vector<ExperimentSpec> points;
    std::vector<std::vector<ParamSet>> params;  // per point, per variant
};

struct SpecCheck {
    std::vector<SpecProblem> problems;  // every problem found, the most basic first
    CheckedExperiment experiment;       // filled when there are no problems
    bool ok() const { return problems.empty(); }
};

// The counting mode of a workload's hardware counters when --counters-mode is not given: user mode
// for in-process call loops, user and kernel mode for live tests and commands (CountersMode).
CountersMode defaultCountersMode(const WorkloadDescriptor& w);

// Whether the variants run different code: they differ in a parameter that selects it
// (ParamSpec::selectsCode), so that where the code sits is a factor of their comparison.
bool variantsRunDifferentCode(const ExperimentSpec& spec, const WorkloadDescriptor& w);

// Checks `spec` (and every point of `sweep`) on a machine with `facts`, collecting every problem.
// Sweep points carry `sweepId`.
SpecCheck checkExperiment(const ExperimentSpec& spec, const std::optional<SweepSpec>& sweep,
                          const base::SystemFacts& facts, const std::string& sweepId = "");

}  // namespace nf::engine
