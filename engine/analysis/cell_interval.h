#pragma once
// The verdict's numbers for a design whose unit is a cell of chunk pairs rather than a pair: code
// placements (engine/analysis/layout_factor.h) and the setups of a live run side by side
// (engine/analysis/setup_factor.h). Each cell gives one log ratio; the interval is Student's t over
// the cells (cells - 1 degrees of freedom), so it holds the variance between cells as well as the
// noise of the pairs inside them.

#include <string>
#include <vector>

#include "engine/analysis/comparison.h"

namespace nf::engine {

// The fewest pairs a cell needs to stand for its level: a fifth of the median cell's. A repetition
// or setup the machine took away (most of its chunks preempted) leaves a cell of a few pairs whose
// value is noise, and each cell weighs as much as any other in the interval.
std::size_t cellFloor(std::vector<double> pairsPerCell);

// Fills c's interval, equivalence interval, p (one-sample t of the cells' log ratios against 0),
// direction, effect size, detectable difference and the cells needed for c.targetPct (or the
// observed difference). `cellLogRatios` has at least two values. Returns their standard deviation
// (the spread between cells, on the log scale).
double intervalOverCells(const std::vector<double>& cellLogRatios, Design design, const std::string& method,
                         const CompareOptions& options, Comparison& c);

}  // namespace nf::engine
