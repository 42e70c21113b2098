#pragma once
// The steps of `noisefloor series` (labels, runs or the variants of one run, in order) and the
// values each step is analysed by.

#include <memory>
#include <string>
#include <vector>

#include "data/run_store.h"
#include "engine/analysis/series.h"

namespace nf::cli {

struct Step {
    std::string name;
    std::shared_ptr<engine::RunRecord> run;  // the newest run of the step
    int variant = 0;
    // --label: every complete run with the label, oldest first (the newest is `run`).
    std::vector<std::shared_ptr<engine::RunRecord>> pooled;
};

// "run 12 'label'".
std::string runName(const engine::RunRecord& run);

// The steps named by `labels` (--label LABEL[:VARIANT], each every complete run with the label) or
// by `runs` (RUN[:VARIANT] per step, or one RUN whose variants are the steps); not both.
Result<std::vector<Step>> selectSteps(data::Database& db, const std::vector<std::string>& runs,
                                      const std::vector<std::string>& labels);
// The variants of one run, in order: its steps.
std::vector<Step> variantSteps(const std::shared_ptr<engine::RunRecord>& run);

// The metric asked for, else the first metric of the first step that is not a unit conversion.
Result<engine::MetricSpec> chooseMetric(const std::vector<Step>& steps, const std::string& asked);

// True when some step pools several runs (the run is then the unit).
bool pooledDesign(const std::vector<Step>& steps);

struct SeriesValues {
    std::vector<engine::SeriesStep> steps;
    // The steps are the variants of one run alternated in chunks, and each value is one round.
    bool chunkRounds = false;
};

// The values each step is analysed by. `oneRun`: every step is a variant of the same run; when that
// run is interleaved and alternated its variants in chunks, the rounds are the blocks (every step
// ran one chunk in each, milliseconds apart). Otherwise each step's repetition values or, with
// several runs under a step's label, each run's mean (the boot mean where runs share boots), so the
// run-to-run variance is in every interval and test, as in compare --label.
Result<SeriesValues> valuesOf(const std::vector<Step>& steps, const engine::MetricSpec& metric, bool oneRun);

}  // namespace nf::cli
