#pragma once
// What the Compare tab shows, taken from the comparison `noisefloor compare` makes (engine::
// compareRuns, the code behind `compare --format json`): for every metric the runs stored, each
// variant's repetition values, mean and 95% CI, and - what the verdict rests on - each candidate's
// difference from the baseline with its interval, in the comparison's own design (paired chunk
// log-ratios, or independent repetitions). No statistics are computed here; this only selects and
// arranges. Four metrics are the default panels: PPS, IPC, branch misses per op, cycles per op.

#include <QString>
#include <QStringList>

#include <array>
#include <limits>
#include <map>
#include <optional>
#include <vector>

#include "engine/analysis/comparison.h"
#include "engine/analysis/profile_diff.h"
#include "engine/model/noise_floor.h"
#include "engine/model/run_record.h"

namespace nf::engine {
struct MetricComparison;
}

namespace nf::ui {

struct VariantView {
    QString name;
    std::vector<double> repetitions;  // one value per repetition, in time order, from its clean chunks
                                      // (engine/analysis/chunk_cut.h): the chunks the verdict's pairs use
    double mean = 0;
    double ciLow = 0;
    double ciHigh = 0;
};

// Code layout as a factor of a comparison (engine::Comparison): how far the difference moves
// between code placements, in percent, and the placements measured and planned (fewer measured: an
// incomplete layout design).
struct LayoutSpreadView {
    double spreadPct = 0;
    std::size_t measured = 0;
    std::size_t planned = 0;
    bool setups = false;  // the spread between the setups of a live run, not between code placements
};

// One candidate against the baseline: the engine's Comparison::interval, as it is.
struct DifferenceView {
    QString candidate;
    QString baseline;
    QString design;  // "paired chunk log-ratios" or "independent repetitions"
    QString method;  // how the engine formed the estimate and interval
    double estimatePct = std::numeric_limits<double>::quiet_NaN();
    double ciLowPct = std::numeric_limits<double>::quiet_NaN();  // NaN: unbounded on that side
    double ciHighPct = std::numeric_limits<double>::quiet_NaN();
    double levelPct = std::numeric_limits<double>::quiet_NaN();  // the coverage the interval has
    // The level as the report names it ("95%", "98.33%": engine::levelText), and whether it is wider
    // than 1 - alpha, the level that matches the metric's Holm-adjusted p (the report's "h"): a
    // secondary metric's verdict comes from that p, and the interval at that level agrees with it.
    QString level;
    bool holmLevel = false;
    QString verdict;                         // different, negligible, equivalent, inconclusive
    std::optional<LayoutSpreadView> layout;  // unset when neither code layout nor setups were a factor
};

// The difference of comparison `c` as a panel draws it; `alpha` names its level.
DifferenceView differenceView(const engine::MetricComparison& c, double alpha);

struct PanelView {
    QString title;   // what it shows: "PPS", "IPC, receiver thread", ... (+ " (SIMULATED)")
    QString metric;  // engine metric name shown, "" when none
    QString unit;
    QString notMeasured;  // why the panel is empty ("not measured: cycles (no PMU: ...)")
    std::vector<VariantView> variants;
    std::vector<DifferenceView> differences;  // one per candidate
    double marginPct = 1.0;                   // the equivalence margin the verdict used
    double meanLevelPct = 95;                 // the level of each variant's mean interval: 1 - alpha
    QString source;                           // the command whose figures these are
    QStringList verdicts;                     // one line per candidate: delta, CI and verdict
};

// What the user chose in Compare, as `noisefloor compare` takes it: an option left unset is the
// command's default (for a run that ran until decided, the margin and alpha it decided with).
struct CompareSettings {
    QString baseline;                 // "" = the first variant
    std::optional<double> marginPct;  // --margin
    std::optional<double> alpha;      // --alpha
    bool dropOutliers = false;        // --drop-outliers

    bool operator==(const CompareSettings&) const = default;
};

// The options of `noisefloor compare` that give the same figures (" --margin 0.5 --alpha 0.01
// --drop-outliers"; "" for the defaults). The baseline is not among them: the report names it.
QString settingsArguments(const CompareSettings& settings);

// A profiled run (run --profile): where the time went, as `noisefloor compare` says it, and each
// variant's call stacks for the differential flame graph.
struct ProfileView {
    QStringList summary;  // how it was taken (engine::profileSummaryLines)
    QString table;        // "where the time went" as the report prints it
    double alpha = 0.05;
    bool severalCpus = false;
    std::vector<engine::ProfileComparison> comparisons;  // one per candidate
    // variant -> folded stack, the sampled CPU its first frame ("cpu1-rx;...") -> samples
    std::map<QString, std::map<std::string, long long>> stacks;
};

struct ComparisonView {
    QString title;
    QString error;                    // the analysis could not run (no repetitions yet, ...)
    std::array<PanelView, 4> panels;  // the default four
    std::vector<PanelView> metrics;   // every metric the runs stored, in the run's order
    QStringList variants;             // as the report names them, in the runs' order
    QString baseline;                 // the one the others are compared against
    // What the comparison used (the settings given, else the run's or the command's defaults).
    double marginPct = 1.0;
    double alpha = 0.05;
    bool dropOutliers = false;
    // The evidence report of `noisefloor compare` for the same runs (engine/report/comparison_report),
    // and its warnings: the CLI and the GUI say the same things.
    QString report;
    QStringList warnings;
    // A run that ran until decided: its sequential decision, as the report's header gives it
    // (engine/report/decision_text.h); the panels show the fixed-n analysis of the same data.
    QStringList decision;
    std::optional<ProfileView> profile;  // one profiled run's; unset otherwise
    QString kernel;                      // of the first run
    QString workload;                    // of the first run
    QStringList runIds;
};

// One run's variants against each other, as `settings` say.
ComparisonView compareRun(const engine::RunRecord& run, const CompareSettings& settings = {});

// Variants of several runs against each other (kernel A vs kernel B); `variants[i]` empty = every
// variant of runs[i], else only that one. The first run's is the baseline unless the settings name
// one (as the report names it).
// `floors`: the machine's run-to-run noise floors (data::calibratedFloors), used when each side is
// one run.
ComparisonView compareAcross(const std::vector<const engine::RunRecord*>& runs, const QStringList& variants,
                             const CompareSettings& settings = {},
                             const std::map<std::string, engine::RunNoiseFloor>& floors = {});

// The four panels' metric candidates, first present wins (docs/measurement.md, "Metric names"):
// PPS; IPC; branch misses per op, per packet or per branch; cycles per op or packet, else TSC ticks
// per op. A live test's receiver thread comes before its counted CPUs.
const std::array<std::vector<std::string>, 4>& panelMetrics();

// How a plot names the design a comparison's interval comes from: "paired chunk log-ratios",
// "independent repetitions", "repetition means across runs", "no run-to-run calibration".
QString designName(const engine::Comparison& comparison);

// The level of a panel's differences as its caption names it: "95% CI", "98.33% CI, Holm-adjusted",
// "97.5-98.33% CI, Holm-adjusted" (candidates at different levels); "CI" when none is known.
QString levelCaption(const std::vector<DifferenceView>& differences);

// What a panel says it shows for `metric` ("IPC, receiver thread"); the metric's own name when it
// has no title of its own.
QString metricTitle(const std::string& metric);

// Why `metricName` is missing from a run: the counters it needs that did not open, and why.
QString whyNotMeasured(const std::string& metricName, const engine::RunEnvironment& environment);

}  // namespace nf::ui
