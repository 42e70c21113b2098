#pragma once
// Parameter sweeps: one experiment repeated at several values of one parameter. Each point is a
// complete run of every variant (alternated as usual), so each point has its own comparison; the
// runs of a sweep share a sweep id and record their point (ExperimentSpec::sweep).

#include <cstdint>
#include <string>
#include <string_view>
#include <vector>

#include "base/result.h"
#include "engine/model/experiment_spec.h"

namespace nf::engine {

struct SweepSpec {
    std::string param;
    std::vector<std::string> values;  // in the order given
};

// "zero_size_pct=0,0.001,1,50,100" -> {zero_size_pct, [0, 0.001, 1, 50, 100]}. Values are
// non-empty and distinct; at most 1000 points. Errors quote the text and name no command-line option.
Result<SweepSpec> parseSweep(std::string_view text);

// One spec per point: `base` with params[param] = value and its SweepPoint filled in. The points
// are checked by checkExperiment (engine/catalog/spec_check.h): the parameter exists, no variant
// sets it, every value is in its range.
std::vector<ExperimentSpec> expandSweep(const ExperimentSpec& base, const SweepSpec& sweep, const std::string& id);

// A new sweep id: the start time and 32 random bits, e.g. "20261130T034512-9f3a61c2".
std::string newSweepId();

}  // namespace nf::engine
