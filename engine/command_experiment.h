#pragma once
// Runs an experiment of the `command` workload: every repetition of every variant is one run of
// the variant's command (command_process.h); each becomes one sample of its repetition.

#include "scheduler.h"

namespace nf::engine {

// The variants' command settings (cmd, quoting, metric_regex, ...) checked without running
// anything: bad ones are bad input, refused before a run is stored.
Result<void> checkCommandExperiment(const PreparedExperiment& prepared);

RunOutcome runCommandExperiment(const PreparedExperiment& prepared, RunObserver& observer, const RunControl& control);

// Splits a command into arguments like a shell would split words, with '...' and "..." quoting and
// backslash escapes, but without expansion of any kind. Fails on an unterminated quote.
Result<std::vector<std::string>> splitCommand(const std::string& text);

}  // namespace nf::engine
