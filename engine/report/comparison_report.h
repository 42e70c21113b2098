#pragma once
// The comparison a reviewer reads, made the same way for both front ends: one run's variants
// against each other, or chosen variants of several runs (vanilla and patched kernels). `noisefloor
// compare` prints it; the GUI's Compare tab shows the same text and copies it to the clipboard.

#include <map>
#include <optional>
#include <ostream>
#include <string>
#include <vector>

#include "engine/analysis/analysis.h"
#include "engine/analysis/profile_diff.h"
#include "engine/model/code_size.h"
#include "engine/model/run_record.h"
#include "engine/report/evidence.h"
#include "engine/report/run_summary.h"

namespace nf::engine {

struct RunChoice {
    const RunRecord* run = nullptr;
    std::string variant;  // "" = every variant of the run
};

struct ComparisonReport {
    Analysis analysis;
    EvidenceContext context;
    bool acrossRuns = false;  // variants of several runs (independent design) rather than one run's
    // One run's per-CPU and device breakdown (cpuN_..., dev_...) not among the compared metrics:
    // each variant's mean, shown beside the verdicts (like xdp-bench's per-CPU lines), not tested.
    std::vector<std::string> breakdownVariants;
    std::vector<MetricSummary> breakdown;
    // One run that ran until decided: its sequential decision, shown first (the fixed-n analysis
    // of the same data beside it).
    std::optional<DecisionRecord> decision;
    // One run profiled (run --profile): how, and where the time went in each comparison of the
    // primary metric (engine/analysis/profile_diff.h).
    std::optional<ProfileSummary> profile;
    std::vector<ProfileComparison> profiles;
    // Each variant's folded stacks as the report names it, summed over its runs and repetitions,
    // the sampled CPU the first frame (RunProfile::foldedByVariant): what a flame graph draws.
    std::map<std::string, std::map<std::string, long long>> profileStacks;
    // The compared labels' code sizes, where stored (addCodeSizes, code_size_report.h): lines of the
    // header, and "code_size" in JSON.
    std::vector<CodeSizeRecord> codeSizes;
};

// One run with every variant: its own design (paired chunks, interleaved repetitions). One variant
// from each of several runs (vanilla against patched): compareLabels with one run per side, so the
// run-to-run noise floor in `floors` is used, or its absence said. Anything else: the chosen
// variants across runs. The first choice is the baseline unless `options` names one. Errors are
// bad input (no variant in common, a metric no run has).
Result<ComparisonReport> compareRuns(const std::vector<RunChoice>& choices, const std::vector<std::string>& metrics,
                                     const AnalysisOptions& options,
                                     const std::map<std::string, RunNoiseFloor>& floors = {});

// Every run under each label, pooled with the run as a level of the design (engine/analysis/
// across_runs.h); `floors` is the machine's run-to-run noise floor per metric name, if calibrated.
struct LabelChoice {
    std::string label;
    std::vector<const RunRecord*> runs;
    std::string variant;  // "" = the runs' only variant
};
// Code layout across builds (docs/measurement.md, "Code layout across builds: the placebo"):
// placebo labels (each the runs of one rebuild of the baseline that changes only code layout), else
// the layout floors calibrate --layout stored for this workload and host, by metric name. With
// neither for a metric, the report warns that layout is not controlled (kLayoutNotControlled).
struct LayoutControl {
    std::vector<LabelChoice> placebos;
    std::map<std::string, LayoutFloor> floors;
};
Result<ComparisonReport> compareLabels(const std::vector<LabelChoice>& labels, const std::vector<std::string>& metrics,
                                       const std::map<std::string, RunNoiseFloor>& floors,
                                       const AnalysisOptions& options, const LayoutControl& layout = {});

// Code layout's spread of each metric between the baseline label's build and its placebos' (the
// same code, rebuilt in other layouts, one label per rebuild): layoutFloor() on each metric's run
// values, by metric name ("source": "vanilla against its rebuild vanilla-rebuilt"). What compare
// --placebo uses and calibrate --layout stores. `metrics` empty: the default ones.
Result<std::map<std::string, LayoutFloor>> placeboFloors(const LabelChoice& baseline,
                                                         const std::vector<LabelChoice>& placebos,
                                                         const std::vector<std::string>& metrics);

inline constexpr const char* kLayoutNotControlled =
    "code layout not controlled: differences below a few percent may be placement (give --placebo LABEL: a "
    "rebuild of the baseline that changes only layout, docs/workflows.md)";

// What compareRuns compares for `choices` (before --primary reorders its metrics): one run, whatever
// subset of its variants is chosen, in its own design (chunk or repetition pairs); else the chosen
// variants across runs. `metrics` empty: the default ones.
Result<AnalysisInput> choicesInput(const std::vector<RunChoice>& choices, const std::vector<std::string>& metrics);

// text (72 columns), json or csv. The text is the compact report (writeCompactEvidence) unless
// `verbose`, which gives every detail (writeEvidenceText and the breakdown).
void writeComparison(const ComparisonReport& report, const std::string& format, std::ostream& out,
                     bool verbose = false);
// The text of the report as `noisefloor compare` prints it: the GUI's report pane, "Copy evidence
// report" and the evidence in its PNG and PDF exports.
std::string comparisonText(const ComparisonReport& report, bool verbose = false);

}  // namespace nf::engine
