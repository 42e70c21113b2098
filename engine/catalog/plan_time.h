#pragma once
// How long an experiment takes, from its checked plan: the measuring time of every variant's
// repetitions (the most an until-decided run may measure), plus every variant's warmup, at each
// sweep point. `noisefloor run --dry-run` prints it and the GUI's Experiment tab shows it, in the
// same words. The schedule does not depend on the machine, so a run on another host is planned
// here alike. Setup (namespaces, calibration) and the guards between chunks are not counted:
// the total is "about".

#include <cstddef>
#include <string>

#include "engine/model/experiment_spec.h"

namespace nf::engine {

struct PlanTime {
    std::size_t points = 1;  // sweep points (1 without a sweep)
    std::size_t units = 0;   // variant-repetitions per point (0 until decided: not planned ahead)
    double unitSeconds = 0;  // the duration of each
    double measuring = 0;    // seconds of measuring per point; until decided, the most (--max-time)
    double warmup = 0;       // seconds per variant before the first repetition, or per setup
    std::size_t variants = 1;
    // A live run side by side warms up at the start of every setup (--setups per repetition),
    // offering to each variant in turn: the setups of all its repetitions; 0 for other runs.
    std::size_t setups = 0;
    bool atMost = false;  // until decided: the run may stop sooner
    double total() const
    {
        const auto warmups = static_cast<double>(setups > 0 ? setups : variants);
        return (measuring + warmup * warmups) * static_cast<double>(points);
    }
};

// The time of `spec` (one resolved point, e.g. CheckedExperiment::points.front()) run at `points`
// sweep points.
PlanTime planTime(const ExperimentSpec& spec, std::size_t points = 1);

// "about 1 min 40 s (10 variant-repetitions of 10 s, plus 0.2 s of warmup per variant)"; a live run
// side by side "... plus 0.1 s of warmup in each of 60 setups";
// "at most 10 min 1 s (until decided: at most 10 min of measuring, plus ...)"; a sweep says
// "... over 5 sweep points (each ...)".
std::string planTimeText(const PlanTime& plan);

// Seconds as a person reads a span: "0.4 s", "45 s", "1 min 40 s", "2 h 5 min".
std::string spanText(double seconds);

}  // namespace nf::engine
