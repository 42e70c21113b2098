#pragma once
// Code layout as a random factor (docs/measurement.md, "Code layout as a factor"). In a run with
// --layouts K every variant runs each code placement equally often, and the layout plan
// (engine/run/schedule.h) makes two variants always meet in the same cells: (baseline's placement,
// candidate's placement) pairs, K of them. Each cell's mean log ratio of its pairs is one draw of
// the difference at a random placement of both variants' code. The verdict's interval is
// Student's t over the cells (cells - 1 degrees of freedom), so it holds the variance between
// placements as well as the noise of the pairs; the pairs inside a cell still remove the drift
// within a repetition. The layout spread is the standard deviation of the cells' differences.

#include <vector>

#include "engine/analysis/comparison.h"

namespace nf::engine {

// base[i] and cand[i] form pair i, measured side by side, with the baseline in placement
// baseLayout[i] and the candidate in candLayout[i] (-1: none recorded; the pair is left out).
// `planned` is K. Fewer than 2 cells give no interval and no spread, and say why.
Comparison compareAcrossLayouts(const std::vector<double>& base, const std::vector<double>& cand,
                                const std::vector<int>& baseLayout, const std::vector<int>& candLayout, int planned,
                                const CompareOptions& options);

}  // namespace nf::engine
