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

}  // namespace nf::engine
