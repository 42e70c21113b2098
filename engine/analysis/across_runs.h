#pragma once
// Comparisons across separate runs (vanilla against patched, each measured in its own runs and
// boots): repetitions are nested in runs and runs in boots, and separate runs of the same code
// differ by more than the repetitions inside one run do. The verdict's interval counts that
// run-to-run variance: estimated from the runs when a side has several, from a calibration made on
// this machine (noisefloor calibrate --across-runs) when it has one, and said to be missing
// otherwise.

#include <optional>
#include <string>
#include <vector>

#include "engine/analysis/comparison.h"
#include "engine/model/noise_floor.h"

namespace nf::engine {

// One run's repetition values of one metric, and the boot it ran in ("" when unknown).
struct RunValues {
    std::string boot;
    std::vector<double> values;
};

// The unit means of one side: boot means (the mean of a boot's run means) when the side's runs
// share some boots but not all, else run means. `unit` is set to "boot" or "run".
std::vector<double> unitMeans(const std::vector<RunValues>& runs, std::string* unit = nullptr);

// The between-run variance component by moments: the sample variance of the run means minus the
// mean within-run variance of a run mean (s^2 / m), at least 0, relative to `scale` squared.
// Needs 2 runs; NaN otherwise.
double betweenRunVariance(const std::vector<RunValues>& runs, double scale);

// The independent design with runs as the unit:
// - several units on both sides: Welch's t and Fieller's interval on the unit means (the variance
//   of a run mean holds the run-to-run and the within-run variance; the balanced nested model's
//   exact analysis);
// - one run on a side: its mean's variance is the between-run variance (from the other side's
//   runs, else `floor`) plus its within-run s^2 / m, with Satterthwaite's degrees of freedom;
// - one run per side and no floor: the repetitions as independent values (the interval is too
//   narrow, and a warning says so).
Comparison compareAcrossRuns(const std::vector<RunValues>& base, const std::vector<RunValues>& cand,
                             const std::optional<RunNoiseFloor>& floor, const CompareOptions& options);

inline constexpr const char* kNoRunCalibration = "no run-to-run calibration: this interval is too narrow";

}  // namespace nf::engine
