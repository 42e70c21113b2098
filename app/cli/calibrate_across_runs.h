#pragma once
// noisefloor calibrate --across-runs (app/cli/calibrate_across_runs.cpp).

#include <string>

#include "app/cli/cli.h"
#include "app/cli/run_options.h"

namespace nf::cli {

// `runs` A/A runs of one variant, one after the other, stored under the spec's label (default
// "calibrate-runs"); after each, the floors of every metric over all runs under that label.
int calibrateAcrossRuns(RunOptions& run, int runs, const std::string& format, const Context& ctx);

}  // namespace nf::cli
