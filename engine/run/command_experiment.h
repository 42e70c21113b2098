#pragma once
// Runs an experiment of the `command` workload: every repetition of every variant is one run of
// the variant's command (command_process.h); each becomes one sample of its repetition. Its
// settings are parsed and checked by engine/catalog/command_config.

#include "engine/run/cpu_claim.h"
#include "engine/run/run_context.h"
#include "engine/run/scheduler.h"

namespace nf::engine {

// Layout of a command's process (docs/measurement.md): every run of a command gets
// kCommandLayoutVariable in its environment, kCommandLayoutPadStep * L mod 4096 bytes long in
// placement L (0..kMaxLayouts-1, drawn per repetition and variant by the run's LayoutPlan), which
// moves where the strings of its environment, and so its initial stack, start, as the size of the
// environment did in Mytkowicz et al., ASPLOS 2009. The step is that of the in-process workloads'
// stack offset (NF_PLACEMENT_STACK_STEP): a new place in the page and in the cache line each time.
inline constexpr const char* kCommandLayoutVariable = "NOISEFLOOR_LAYOUT_PAD";
inline constexpr int kCommandLayoutPadStep = 784;

// The bytes of kCommandLayoutVariable's value in placement `layout`.
constexpr int commandLayoutPad(int layout)
{
    return layout * kCommandLayoutPadStep % 4096;
}

// Runs on the calling thread with the run's context: its counters (on each command's process and
// on counter_cpus), the CPU the commands run on, its failure sink. `early`: warnings from before the
// run was stored, said once it is. `sharers`: looked at after every stored repetition; what it
// found is said before the run is marked finished.
RunOutcome runCommandExperiment(const PreparedExperiment& prepared, RunContext& context, RunObserver& observer,
                                const RunControl& control, const std::vector<std::string>& early, SharerWatch& sharers);

}  // namespace nf::engine
