#pragma once
// `noisefloor run --dry-run`: the experiment checked as `run` would check it, and its plan
// printed (as text, or with --format json); nothing runs and nothing is stored.

#include <ostream>
#include <vector>

#include "engine/model/experiment_spec.h"

namespace nf::cli {

// Prepares every spec (every point of a sweep) and prints the plan. Returns 0, or 2 with one line on
// stderr when a spec is refused.
int printPlan(std::vector<engine::ExperimentSpec> specs, std::ostream& out);

// The plan as JSON (--dry-run --format json), for front ends: the time as planTime gives it
// ("time": {"text", "total_s", "at_most", "points"}), the CPUs the run would measure on ("cpus")
// and the runs measuring on them now ("cpus_in_use", cpusInUse's lines: a run that does not
// share is refused while it is not empty). Errors as printPlan.
int printPlanJson(const std::vector<engine::ExperimentSpec>& specs, std::ostream& out);

}  // namespace nf::cli
