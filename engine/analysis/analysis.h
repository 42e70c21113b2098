#pragma once
// From measured values to evidence: per-variant statistics and, for every candidate against the
// baseline and every metric, a comparison in the design the data was recorded in.

#include <optional>
#include <string>
#include <vector>

#include "engine/analysis/across_runs.h"
#include "engine/analysis/chunk_cut.h"
#include "engine/analysis/comparison.h"
#include "engine/analysis/validity.h"
#include "engine/model/metric.h"
#include "engine/model/run_data.h"
#include "engine/stats/descriptive.h"

namespace nf::engine {

// The values to analyse, metric by metric. `repetitions[m][v]` holds variant v's repetition values
// for metrics[m] in time order; `pairs[m][v]` (alternating runs only) holds its chunk values
// aligned across variants by alternation round, NaN where a variant has no chunk in that round.
struct AnalysisInput {
    std::vector<std::string> variants;
    std::vector<MetricSpec> metrics;
    std::vector<std::vector<std::vector<double>>> repetitions;
    std::vector<std::vector<std::vector<double>>> pairs;
    bool alternating = false;             // chunk pairs exist: a paired design (pairs, cells or setups) is primary
    bool pairedRepetitions = false;       // repetition i of every variant ran side by side (interleaved)
    bool pairedPrimary = false;           // the paired analysis of repetitions is the primary one (stat --paired)
    std::string pairUnit = "chunk pair";  // what one pair is
    std::string unit = "repetition";      // what one independent value is
    // Chunks during which the measuring thread was switched out (context-switches > 0) or stalled
    // (longer than 1.5x its variant's median chunk): their
    // time includes another task's, so they are NaN in `pairs` and left out of the paired analysis.
    std::size_t chunks = 0;
    std::size_t preemptedChunks = 0;
    bool keptPreempted = false;  // a variant lost more than 90% of its chunks: none were left out
    // Live runs: per variant, the share of the packets the generator offered that the receiver took
    // (packets / offered_packets over the run). Empty when the run has no generator count.
    std::vector<double> receivedShare;
    // Live runs: whether the test measured what its metrics say (engine/analysis/validity.h).
    RunValidity validity;
    // Runs stored as summaries (perf stat -r N): summaries[m][v] is variant v's, unset for a variant
    // whose values were kept. Empty when no variant comes from summaries.
    std::vector<std::vector<std::optional<SummaryStats>>> summaries;
    std::vector<bool> summarised;  // per variant: its run is stored as summaries
    // Several runs per variant (analysisInputPooled): runs[m][v] holds each run of variant v, and
    // runFloors[m] the machine's run-to-run noise floor of metrics[m] when one was calibrated, and
    // layoutFloors[m] code layout's spread between two builds when a placebo or a calibration gave
    // one. The comparison is then compareAcrossRuns. Empty otherwise.
    std::vector<std::vector<std::vector<RunValues>>> runs;
    std::vector<std::optional<RunNoiseFloor>> runFloors;
    std::vector<std::optional<LayoutFloor>> layoutFloors;
    // Code layout as a factor (a run with --layouts K > 0; engine/analysis/layout_factor.h): the
    // placement variant v ran in for pair i (pairLayouts[v][i], aligned with pairs[m][v]) and for
    // repetition value i (repetitionLayouts[v][i]); -1 where none was recorded. layoutsPlanned is
    // K, set by whoever knows the run's spec: 0 leaves layout out of the comparison.
    std::vector<std::vector<int>> pairLayouts;
    std::vector<std::vector<int>> repetitionLayouts;
    int layoutsPlanned = 0;
    // Setups of a live run side by side (engine/analysis/setup_factor.h): the setup (0, 1, ... in
    // the order they started) variant v's chunk of pair i was measured in (pairSetups[v][i], aligned
    // with pairs[m][v]); -1 where none was recorded. Empty for runs without places.
    std::vector<std::vector<int>> pairSetups;
};

// Builds the input from one run: repetition values and, when the run alternated, chunk values
// (without the chunks in which the measuring thread was switched out, unless that is nearly all).
// `metrics` empty: the metrics worth comparing (unit conversions of another metric left out).
Result<AnalysisInput> analysisInput(const RunData& data, bool interleaved, const std::vector<std::string>& metrics);

// One variant of one stored run, for comparisons across runs (always the independent design).
struct RunVariant {
    std::string name;  // how the report names it
    const RunData* data = nullptr;
    int variant = 0;
};
Result<AnalysisInput> analysisInputAcross(const std::vector<RunVariant>& selection,
                                          const std::vector<std::string>& metrics);

// Several runs per variant (every run under one label): groups[v] holds the runs of variant
// names[v], boots[v][i] the boot run i ran in ("" unknown), pairs[v][i] the lab pair it was
// measured on ("" outside a lab; `pairs` empty: none). Each variant's repetitions are those of all
// its runs; `runs` keeps them per run. Runs stored as summaries are refused.
Result<AnalysisInput> analysisInputPooled(const std::vector<std::string>& names,
                                          const std::vector<std::vector<RunVariant>>& groups,
                                          const std::vector<std::vector<std::string>>& boots,
                                          const std::vector<std::string>& metrics,
                                          const std::vector<std::vector<std::string>>& pairs = {});

// Makes `metric` the primary metric (the first, tested at alpha alone): moves it and its values to
// the front. An error names the metrics compared when it is not among them.
Result<void> putPrimaryFirst(AnalysisInput& input, const std::string& metric);

// Keeps the variants named, in the order named (the first the baseline), with the values of the run's
// own design: variants of one run are compared as that run measured them (chunk pairs, repetition
// pairs) whichever of them are chosen. An error names a variant the input does not hold.
Result<void> keepVariants(AnalysisInput& input, const std::vector<std::string>& names);

struct AnalysisOptions {
    CompareOptions compare;
    std::string baseline;  // "" = the first variant
    std::string primary;   // --primary: "" = the run's (the first metric stored)
    bool holm = true;
    bool dropOutliers = false;
    // Whether the user set the margin and alpha; if not, a run that ran until decided is compared
    // with the margin and alpha it decided with.
    bool marginGiven = false;
    bool alphaGiven = false;
    // --allow-invalid: an invalid live test keeps its verdict, the reasons become warnings.
    bool allowInvalid = false;
};

struct VariantStats {
    std::string variant;
    std::string metric;
    Summary summary;   // over repetition values
    double ciLow = 0;  // 95% (1 - alpha) Student t interval of the mean
    double ciHigh = 0;
    std::vector<std::size_t> outliers;  // repetition positions, modified z-score > 3.5
    std::size_t dropped = 0;            // with --drop-outliers
};

struct MetricComparison {
    std::string metric;
    std::string unit;
    bool higherIsBetter = false;
    std::string baseline;
    std::string candidate;
    bool primary = true;  // the comparison the verdict rests on (false: a secondary design shown beside it)
    Comparison result;
};

struct Analysis {
    AnalysisOptions options;
    // The metric the question is about (the first of the input's): tested at alpha alone, the
    // others Holm-adjusted among themselves (engine/analysis/multiplicity.h).
    std::string primaryMetric;
    std::vector<VariantStats> variants;
    std::vector<MetricComparison> comparisons;
    std::vector<std::string> warnings;
};

Result<Analysis> analyze(const AnalysisInput& input, const AnalysisOptions& options);

}  // namespace nf::engine
