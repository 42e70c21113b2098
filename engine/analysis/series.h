#pragma once
// A series of builds (the steps of a patch set, each measured in its own run or variant): the
// metric per step with its interval, and the steps where it changes, found by binary segmentation
// with a permutation test so that the choice of the split is part of the test.

#include <cstdint>
#include <limits>
#include <string>
#include <vector>

#include "base/result.h"
#include "engine/analysis/comparison.h"
#include "engine/stats/descriptive.h"

namespace nf::engine {

struct SeriesStep {
    std::string name;
    std::vector<double> values;  // independent repetition values of the metric
};

struct SeriesOptions {
    double alpha = 0.05;
    int permutations = 4999;
    std::uint64_t seed = 1;  // the permutations are drawn from this seed: reruns give the same p
    // Each step is its own run: step means differ by the run-to-run variance too. It is estimated
    // from the steps' adjacent differences (most adjacent steps do not change) and counted in the
    // tests, the intervals and the change points' effects.
    bool separateRuns = false;
    // The steps are the variants of one interleaved run: values[i] of every step were measured in
    // the same repetition (or chunk round) i, side by side, so drift during the run is shared.
    // Adjacent steps are compared paired (comparePaired over the blocks), and the change-point
    // search centres each block and permutes the steps within it. Every step needs the same number
    // of values.
    bool blocked = false;
};

struct StepStats {
    std::string name;
    Summary summary;
    double ciLow = 0;  // 1 - alpha Student t interval of the mean; NaN with one value
    double ciHigh = 0;
    double deltaPrevPct = 0;  // mean against the previous step's, %; NaN for the first step
    double pPrev = 1;         // Welch's t against the previous step, Holm-adjusted over the steps
};

struct ChangePoint {
    std::size_t step = 0;          // the first step after the change
    std::size_t segmentBegin = 0;  // the segment the split was found in: [begin, end)
    std::size_t segmentEnd = 0;
    double statistic = 0;  // Welch |t| of the segment's values before and after the split
    double p = 1;          // permutation p of the largest |t| over the segment's splits
    double pAdjusted = 1;  // Holm over every segment tested
    Comparison effect;     // after against before, over the segment (Fieller interval)
};

// A step the series cannot call a change at. A change is a level that stays: a run (or variant)
// far from both neighbours in the same direction is one disturbed measurement, and a first or last
// step that differs from the rest has nothing beyond it to show the new level stays.
struct StepApart {
    enum class Kind {
        Alone,  // far from both neighbours, on the same side: rerun it
        First,  // differs from the rest, with nothing before it
        Last    // differs from the rest, with nothing after it
    };
    std::size_t step = 0;
    Kind kind = Kind::Alone;
    double deltaPct = 0;                                  // against its neighbours' mean (Alone), else the rest's
    double p = std::numeric_limits<double>::quiet_NaN();  // the outlier test's; NaN when segmentation found it
};
// "s3 stands apart: rerun it (+12.40% from its neighbours, p=0.002)", and the like.
std::string describe(const StepApart& apart, const std::vector<StepStats>& steps);

struct SeriesResult {
    std::vector<StepStats> steps;
    std::vector<StepApart> apart;      // by step: not changes, said by name
    std::vector<ChangePoint> changes;  // significant ones, by step
    std::vector<ChangePoint> tested;   // every segment test, in the order made
    std::vector<std::string> warnings;
    std::string method;  // one paragraph for the report
    // With separate runs: the run-to-run SD over the mean of the step means, from the adjacent
    // differences (their trimmed mean square, less the within-run part); NaN otherwise.
    double betweenRunCv = std::numeric_limits<double>::quiet_NaN();
};

Result<SeriesResult> analyzeSeries(const std::vector<SeriesStep>& steps, const SeriesOptions& options);

// The split of `values` grouped in steps (sizes) that maximises Welch's |t| between the values
// before and after it; {0, 0} when no split has two values on each side.
struct BestSplit {
    std::size_t step = 0;
    double statistic = 0;
};
BestSplit bestSplit(const std::vector<double>& values, const std::vector<std::size_t>& sizes);

// Separate runs: the between-run variance of step means from their adjacent differences d_k, whose
// variance is 2 sigma_b^2 + w_k + w_k+1 where no step changes. The mean of the squared d_k without
// the largest (where a step changes, if one does; kept with fewer than 3), made unbiased for
// normal d_k (times (n - 1) / (n - E[largest of n chi-square(1)])), halved, less the mean of
// `within` (each step's s^2 / m), at least 0.
double betweenRunVarianceOfSteps(const std::vector<double>& means, const std::vector<double>& within);

}  // namespace nf::engine
