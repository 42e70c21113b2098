#pragma once
// noisefloor calibrate --across-runs and --layout (app/cli/calibrate_across_runs.cpp): the floors
// cross-run compares use.

#include <string>

#include "app/cli/cli.h"
#include "app/cli/run_options.h"

namespace nf::cli {

// `runs` A/A runs of one variant, one after the other, stored under the spec's label (default
// "calibrate-runs"); after each, the floors of every metric over all runs under that label.
int calibrateAcrossRuns(RunOptions& run, int runs, const std::string& format, const Context& ctx);

// From the stored runs under `baseline` and under `placebo` (a rebuild of the baseline that
// changes only code layout), code layout's spread per metric, stored as the layout floor of their
// workload and host (data/noise_floor_store.h) for later cross-build compares. Measures nothing.
int calibrateLayout(const std::string& baseline, const std::string& placebo, const std::string& format,
                    const Context& ctx);

}  // namespace nf::cli
