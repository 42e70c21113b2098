#pragma once
// The blocked design of a series (SeriesOptions::blocked): the steps are the variants of one
// interleaved run, and values[i] of every step come from its repetition i.

#include <random>
#include <vector>

#include "engine/analysis/series.h"

namespace nf::engine {

// Each step against the previous, paired by repetition (comparePaired's primary test, Holm over
// the steps): sets deltaPrevPct and pPrev of out[1..].
void compareAdjacentBlocked(const std::vector<SeriesStep>& steps, double alpha, std::vector<StepStats>& out);

// The logs of the values of steps [begin, end), step after step (the layout bestSplit takes), with
// each repetition's mean log over those steps taken out: changes are ratios.
std::vector<double> centredByRepetition(const std::vector<SeriesStep>& steps, std::size_t begin, std::size_t end);

// The midranks of centredByRepetition's values over the whole segment (aligned ranks): a split is
// scored on them, so one slow chunk weighs as one rank, not as its size, and the test agrees with
// the signed-rank test of the adjacent steps.
std::vector<double> alignedRanks(const std::vector<double>& centred);

// Per repetition, the geometric mean of steps [begin, end): one side of a split.
std::vector<double> geometricMeanPerRepetition(const std::vector<SeriesStep>& steps, std::size_t begin,
                                               std::size_t end);

// The share of `permutations` shuffles of the steps within each repetition of `values` (aligned ranks,
// `steps` steps of equal size) whose best split's Welch |t| is at least `observed`.
double blockedPermutationP(std::vector<double> values, std::size_t steps, double observed, int permutations,
                           std::mt19937_64& rng);

}  // namespace nf::engine
