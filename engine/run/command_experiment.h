#pragma once
// Runs an experiment of the `command` workload: every repetition of every variant is one run of
// the variant's command (command_process.h); each becomes one sample of its repetition. Its
// settings are parsed and checked by engine/catalog/command_config.

#include "engine/run/scheduler.h"

namespace nf::engine {

RunOutcome runCommandExperiment(const PreparedExperiment& prepared, RunObserver& observer, const RunControl& control,
                                const std::vector<std::string>& early = {});

}  // namespace nf::engine
