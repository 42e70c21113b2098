#pragma once
// The machine's run-to-run noise floor of a metric, as calibrated by noisefloor calibrate
// --across-runs (stored by data/noise_floor_store.h, used by engine/analysis/across_runs.h).

#include <cstddef>
#include <string>

namespace nf::engine {

// The machine's run-to-run noise floor of one metric: the standard deviation of run means beyond
// what the repetitions inside a run explain, relative to the mean, and the degrees of freedom it
// was estimated with (runs - 1).
struct RunNoiseFloor {
    double betweenCv = 0;
    double df = 0;
    std::size_t runs = 0;
    std::size_t boots = 0;
    std::string source;  // e.g. "calibration of 2026-12-01 (6 runs, 2 boots)"
};

// Code layout's share of a difference between two builds (docs/measurement.md, "Code layout across
// builds: the placebo"): how far two builds of the same code differ when only where the linker put
// things changed, relative to the baseline's mean. From a placebo (compare --placebo: a rebuild of
// the baseline) or as calibrated by noisefloor calibrate --layout.
struct LayoutFloor {
    double spreadCv = 0;     // SD of a two-build difference that layout alone makes, over the baseline mean
    double df = 1;           // degrees of freedom: the rebuilds it rests on (one placebo: 1)
    std::size_t builds = 2;  // builds of the same code measured: the baseline and its rebuilds
    std::string source;      // e.g. "vanilla against its rebuild vanilla-rebuilt"
};

}  // namespace nf::engine
