#pragma once
// `noisefloor run --dry-run`: the experiment checked as `run` would check it, and its plan
// printed; nothing runs and nothing is stored.

#include <ostream>
#include <vector>

#include "engine/model/experiment_spec.h"

namespace nf::cli {

// Prepares every spec (every point of a sweep) and prints the plan. Returns 0, or 2 with one line on
// stderr when a spec is refused.
int printPlan(std::vector<engine::ExperimentSpec> specs, std::ostream& out);

}  // namespace nf::cli
