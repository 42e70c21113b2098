#pragma once
// Runs an experiment of the `command` workload: every repetition of every variant is one run of
// the variant's command (command_process.h); each becomes one sample of its repetition. Its
// settings are parsed and checked by engine/catalog/command_config.

#include "engine/run/cpu_claim.h"
#include "engine/run/run_context.h"
#include "engine/run/scheduler.h"

namespace nf::engine {

// Runs on the calling thread with the run's context: its counters (on each command's process and
// on counter_cpus), the CPU the commands run on, its failure sink. `early`: warnings from before the
// run was stored, said once it is. `sharers`: looked at after every stored repetition; what it
// found is said before the run is marked finished.
RunOutcome runCommandExperiment(const PreparedExperiment& prepared, RunContext& context, RunObserver& observer,
                                const RunControl& control, const std::vector<std::string>& early, SharerWatch& sharers);

}  // namespace nf::engine
