#pragma once
// Runs an experiment: checks it, then measures its variants on a pinned worker thread in the
// planned order and hands each finished repetition to the observer.

#include <atomic>
#include <optional>
#include <stop_token>
#include <string>
#include <vector>

#include "base/system_facts.h"
#include "engine/catalog/spec_check.h"
#include "engine/catalog/workload_catalog.h"
#include "engine/model/experiment_spec.h"
#include "engine/model/run_data.h"
#include "engine/run/owner_lock.h"
#include "engine/run/run_watch.h"
#include "engine/run/workload.h"
#include "probes/counter_group.h"

namespace nf::engine {

// An experiment that passed every check that needs no measurement.
struct PreparedExperiment {
    ExperimentSpec spec;  // resolved: chunk, cpus, counters and seed filled in
    const WorkloadDescriptor* workload = nullptr;
    const WorkloadImplementation* implementation = nullptr;  // null for an external workload
    std::vector<ParamSet> params;                            // per variant
    std::vector<probes::EventSpec> counters;
    std::optional<probes::SimulatedPmu> simulated;  // --pmu simulated: its settings
    int workerCpu = 0;
    base::SystemFacts facts;

    // The metric the verdict rests on: --primary, else the workload's. The stored layout lists it
    // first, and the until-decided monitor decides on it.
    const std::string& primaryMetric() const
    {
        return spec.primaryMetric.empty() ? workload->primaryMetric : spec.primaryMetric;
    }
};

// checkExperiment (engine/catalog/spec_check.h), then the counters and the seed, and the workload's
// implementation among `implementations`. Every error here is bad input, found before anything
// runs or is stored: the first problem, described with `fieldName` naming its field ("--reps").
using FieldNamer = std::string (*)(SpecField);
Result<PreparedExperiment> prepareExperiment(const ExperimentSpec& spec, base::SystemFacts facts,
                                             const WorkloadImplementations& implementations,
                                             FieldNamer fieldName = nullptr);

struct RunControl {
    std::stop_token stop;                      // requested on SIGINT/SIGTERM
    const std::atomic<int>* signal = nullptr;  // the signal that requested it, for the reason text
    std::string commandLine;                   // how the run was asked for, recorded with it
    std::string owner = "noisefloor run";      // who holds the run's CPU locks, for whoever finds them
    std::string lockDir = kOwnerLockDir;       // where the CPU locks are (engine/run/cpu_claim.h)
};

struct RunOutcome {
    RunStatus status = RunStatus::Failed;
    std::string reason;  // "" when complete; an until-decided run's stop reason
    int repetitionsDone = 0;
};

// Takes the locks of the CPUs the run measures on first (engine/run/cpu_claim.h): a CPU another run
// holds fails the run before anything is stored, unless spec.shareCpus. Then sets up the run's
// context once (engine/run/run_context.h: the TSC, the counters, the CPU policy, the failure sink)
// and hands it to the runner: the call loop on a worker thread pinned to prepared.workerCpu, the
// live worker, or the command runner. Calls the observer on this thread: runStarted once the
// worker is ready (counters open, warmed up), then repetitionFinished per repetition, and
// runFinished last. A stop between or inside repetitions discards the repetition in flight and
// ends the run as aborted. An observer error (e.g. the database) ends it as failed.
// `watch`, when given (a display's: the event stream), is told the samples of each running
// repetition a few times a second and, when the run has two variants or more, the look at all
// that was measured (run_watch.h); progress then estimates the time left from the look.
RunOutcome runExperiment(const PreparedExperiment& prepared, RunObserver& observer, const RunControl& control,
                         WatchObserver* watch = nullptr);

// "SIGINT: <reason>" when a signal requested the stop, else `reason`.
std::string stopReason(const RunControl& control, const std::string& reason);

}  // namespace nf::engine
