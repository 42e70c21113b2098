#pragma once
// The decision of a campaign that boots until decided (campaign new --until decided): the unit is
// a pair of boots, one of each kernel, in the order the plan booted them, and its value the log
// ratio of their means, ln(candidate / baseline). After every pair the interval on the mean log
// ratio is looked at; the campaign stops when it excludes 0 (different, or negligible when it also
// lies inside the margin) or lies inside +-margin (equivalent).
//
// Looking after every pair needs an interval whose coverage holds at every look at once. Within a
// run that is the normal mixture of engine/analysis/sequential.h, with a plug-in variance that is
// only right after tens of units; with a handful of boots its plug-in variance makes it miss far
// more often than alpha (simulated: 14% of A/A campaigns called different when looking from 3
// pairs to 15 at alpha 0.05). Boots are few, so here each look k (k = 1 at 2 pairs) is Student's t
// interval at level alpha_k = 6 alpha / (pi^2 k^2): the alpha_k sum to alpha, so by the union bound
// the chance that any look misses is at most alpha, exactly for normal log ratios at every n,
// whatever the looks (tests/engine/boot_sequence_test.cpp checks it by simulation).

#include <cstddef>
#include <limits>
#include <optional>
#include <vector>

#include "engine/analysis/comparison.h"

namespace nf::engine {

struct BootLook {
    std::size_t pairs = 0;
    double estimatePct = std::numeric_limits<double>::quiet_NaN();
    PercentInterval ci;
    double sdLog = std::numeric_limits<double>::quiet_NaN();      // of the pairs' log ratios
    double alphaLook = std::numeric_limits<double>::quiet_NaN();  // this look's share of alpha
    Verdict decision = Verdict::Inconclusive;
    // Pairs still needed, at this spread, for the interval to exclude 0 or lie inside the margin
    // around this estimate; unset when fewer than 2 pairs or when neither can happen.
    std::optional<std::size_t> pairsStillNeeded;
};

// The look after these pairs (each ln(candidate / baseline)); non-finite values are not counted.
BootLook lookAcrossBoots(const std::vector<double>& pairLogRatios, double alpha, double marginPct);

// This look's share of alpha: 6 alpha / (pi^2 k^2), k = pairs - 1.
double bootLookAlpha(std::size_t pairs, double alpha);

}  // namespace nf::engine
