#pragma once
// Parameter sweeps: one experiment repeated at several values of one parameter. Each point is a
// complete run of every variant (alternated as usual), so each point has its own comparison; the
// runs of a sweep share a sweep id and record their point (ExperimentSpec::sweep).

#include <cstdint>
#include <string>
#include <string_view>
#include <vector>

#include "experiment_spec.h"
#include "result.h"

namespace nf::engine {

struct SweepSpec {
    std::string param;
    std::vector<std::string> values;  // in the order given
};

// "zero_size_pct=0,0.001,1,50,100" -> {zero_size_pct, [0, 0.001, 1, 50, 100]}. Values are
// non-empty and distinct; at most 1000 points.
Result<SweepSpec> parseSweep(std::string_view text);

// One spec per point: `base` with params[param] = value and its SweepPoint filled in. Fails when
// the workload has no such parameter, or a variant overrides it (a sweep sets it for every variant).
// Values are checked against the parameter's range when the experiment is prepared.
Result<std::vector<ExperimentSpec>> expandSweep(const ExperimentSpec& base, const SweepSpec& sweep,
                                                const std::string& id);

// A new sweep id: the start time and 32 random bits, e.g. "20261130T034512-9f3a61c2".
std::string newSweepId();

}  // namespace nf::engine
