#pragma once
// Comparisons across separate runs (vanilla against patched, each measured in its own runs and
// boots): repetitions are nested in runs and runs in boots, and separate runs of the same code
// differ by more than the repetitions inside one run do. The verdict's interval counts that
// run-to-run variance: estimated from the runs when a side has several, from a calibration made on
// this machine (noisefloor calibrate --across-runs) when it has one, and said to be missing
// otherwise. Two builds also differ by where their code sits (code layout): a placebo, a rebuild of
// the baseline that changes only layout, measures that, and the interval counts it too.

#include <optional>
#include <string>
#include <vector>

#include "engine/analysis/comparison.h"
#include "engine/model/noise_floor.h"

namespace nf::engine {

// One run's repetition values of one metric, the boot it ran in ("" when unknown), and the lab pair
// (generator and device under test) it was measured on ("" outside a lab).
struct RunValues {
    std::string boot;
    std::vector<double> values;
    std::string pair = {};
};

// The unit means of one side: pair means when its runs were measured on two or more lab pairs, runs
// outside a lab being one more (each
// the mean of that pair's own units: runs of different pairs are not pooled as if one machine had
// measured them); else boot means (the mean of a boot's run means) when the side's runs share some
// boots but not all; else run means. `unit` is set to "pair", "boot" or "run".
std::vector<double> unitMeans(const std::vector<RunValues>& runs, std::string* unit = nullptr);

// The between-run variance component by moments: the sample variance of the run means minus the
// mean within-run variance of a run mean (s^2 / m), at least 0, relative to `scale` squared.
// Needs 2 runs; NaN otherwise.
double betweenRunVariance(const std::vector<RunValues>& runs, double scale);

// The independent design with runs (boots, lab pairs: unitMeans) as the unit:
// - several units on both sides: Welch's t and Fieller's interval on the unit means (the variance
//   of a run mean holds the run-to-run and the within-run variance; the balanced nested model's
//   exact analysis);
// - one run on a side: its mean's variance is the between-run variance (from the other side's
//   runs, else `floor`) plus its within-run s^2 / m, with Satterthwaite's degrees of freedom;
// - one run per side and no floor: the repetitions as independent values (the interval is too
//   narrow, and a warning says so).
// `layout` (a placebo's, or a calibrated one; layoutFloor() below): the layout variance of a
// difference between two builds is added to the variance of the difference, as one more
// independent variance component, whichever of the designs above the runs give, and the degrees
// of freedom are Satterthwaite's but at most the layout estimate's (1 for one placebo: a small
// layout estimate must not borrow the runs' degrees of freedom); layoutSpreadPct,
// layoutsMeasured and layoutSource say so. Runs cannot shrink that component, so no number of
// runs is sized (nNeeded unset).
// Sides measured on different sets of lab pairs (runs outside a lab count as one more) are
// inconclusive, with a warning: the pairs' own difference cannot be told from the change.
Comparison compareAcrossRuns(const std::vector<RunValues>& base, const std::vector<RunValues>& cand,
                             const std::optional<RunNoiseFloor>& floor, const CompareOptions& options,
                             const std::optional<LayoutFloor>& layout = std::nullopt);

// The layout floor from the runs of a baseline build and of its rebuilds (placebos: the same code,
// linked in another layout; each rebuild's runs one element of `rebuilds`). The model: a build's
// level is its code's level times (1 + L), L drawn once per build, mean 0 and SD sigma, independent
// of the code change; a candidate build's difference from the baseline build then holds
// L_C - L_B, of variance 2 sigma^2. The build means (each the mean of its unit means) of the
// baseline and its rebuilds estimate 2 sigma^2 as twice their sample variance, relative to the
// baseline's mean squared, with (builds - 1) degrees of freedom: one placebo P gives
// ((P - B) / B)^2 with 1 degree of freedom, and spreadCv = |P - B| / B. Nothing is taken off for
// the run-to-run and within-run noise of the build means, which the comparison counts again: the
// estimate errs on the wide side by that much. What it cannot know: whether the candidate's layout
// draw is like the rebuilds' (a patch that adds code shifts everything after it; a placebo must
// move code as much as the patch does to stand for it). Unset when the baseline or every rebuild
// has no value.
std::optional<LayoutFloor> layoutFloor(const std::vector<RunValues>& base,
                                       const std::vector<std::vector<RunValues>>& rebuilds, const std::string& source);

inline constexpr const char* kNoRunCalibration = "no run-to-run calibration: this interval is too narrow";

}  // namespace nf::engine
