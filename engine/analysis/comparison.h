#pragma once
// One candidate against one baseline for one metric, in one design: the estimate with its
// interval (engine/analysis/interval.h), the tests, the verdict, and how much data would be needed.

#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "engine/analysis/interval.h"

namespace nf::engine {

// The verdicts, defined once (decide() below; the run-until-decided sequence uses the same
// words on its confidence sequence):
// - different: the interval excludes 0 and is not inside +-margin: a difference that can matter;
// - negligible: the interval excludes 0 and lies inside +-margin: real, and smaller than matters;
// - equivalent: the interval contains 0 and the 1 - 2 alpha (TOST) interval lies inside +-margin;
// - inconclusive: neither shown;
// - invalid: the live test did not measure what the metric says (engine/analysis/validity.h), set
//   after the other rules whatever they found; `--allow-invalid` keeps their verdict.
enum class Verdict { Different, Negligible, Equivalent, Inconclusive, Invalid };
std::string_view toString(Verdict verdict);
// A difference was shown (different or negligible): what an A/A error rate counts.
bool foundDifference(Verdict verdict);

struct CompareOptions {
    double alpha = 0.05;
    double marginPct = 1.0;           // equivalence margin, +-%
    std::optional<double> targetPct;  // effect to size n_needed for; default: the observed delta
    double power = 0.8;
};

// One cell of code layout as a factor (engine/analysis/layout_factor.h): the placements the
// baseline and the candidate ran in, the pairs measured so, and their mean difference.
struct LayoutCell {
    int baseline = -1;
    int candidate = -1;
    std::size_t pairs = 0;
    double deltaPct = 0;
    bool leftOut = false;  // too few pairs beside the other cells to stand for a placement
};

// One setup of a live run side by side (engine/analysis/setup_factor.h): its number in the run (1,
// 2, ... in the order they started), the pairs measured in it, and their median difference.
struct SetupCell {
    int setup = -1;
    std::size_t pairs = 0;
    double deltaPct = 0;
    bool leftOut = false;  // too few pairs beside the other setups to stand for one
};

// One reason a live test is not valid (engine/analysis/validity.h): its code
// ("generator_bound", "rx_not_saturated", "loss_elsewhere", "state_drift") and what was found.
struct ValidityFinding {
    std::string code;
    std::string text;
};

// Whether a live comparison measured what its metric says. `reasons` make it invalid; `stated`
// are reasons that apply to other metrics of the test (a rate's, beside a per-packet cost), said
// beside a verdict that stands.
struct ComparisonValidity {
    bool assessed = false;  // a live run whose validity was judged
    bool valid = true;
    std::vector<ValidityFinding> reasons{};
    std::vector<ValidityFinding> stated{};
};

struct Comparison {
    Design design = Design::Independent;
    std::string unit;            // "chunk pair" or "repetition"
    std::size_t n = 0;           // pairs (paired) or baseline repetitions (independent)
    std::size_t nCandidate = 0;  // candidate repetitions (independent); = n when paired
    IntervalResult interval;     // the estimate and its 1 - alpha interval
    // The sign of candidate - baseline (+1 higher, -1 lower, 0 equal or unknown): the direction a
    // report names. Not always the sign of the estimate: with negative values a ratio of the means
    // below 1 is a candidate above the baseline (-95.1 against -100.2).
    int direction = 0;
    IntervalResult tost;      // the 1 - 2 alpha interval: equivalence when inside +-margin
    std::string primaryTest;  // the test a difference rests on
    double p = 1;             // the primary test's p; NaN when no test is possible
    double pAdjusted = 1;     // after Holm across the metrics of one comparison (= p when alone)
    std::optional<double> pWelch, pMwu, pPairedT, pWilcoxon;
    double effectSize = 0;
    std::string effectSizeName;
    Verdict verdict = Verdict::Inconclusive;
    std::string verdictReason;  // why a rule could not apply, when inconclusive for that reason
    // Why the design cannot tell the change from something else that differs between the sides
    // (other lab pairs); when set, the verdict is inconclusive for that reason.
    std::string confounded;
    bool withinMargin = false;  // the 1 - 2 alpha interval, at its level, lies inside +-margin
    // From the power of the test the verdict rests on, not from the interval's width:
    double mdePct = 0;                // smallest |delta| detected with `power` at this n and noise; NaN: none
    double targetPct = 0;             // the effect n_needed is for
    std::optional<double> nNeeded;    // pairs or repetitions per variant; unset when unreachable
    std::size_t droppedOutliers = 0;  // pairs left out by --drop-outliers
    std::vector<std::string> warnings;
    // Across runs (engine/analysis/across_runs.h): the levels of the design (runs pooled, boots)
    // and where the run-to-run variance came from; "" for the variants of one run.
    std::string levels;
    // Code layout (docs/measurement.md, "Code layout as a factor"): how far the difference moves
    // between code placements, in percent (the standard deviation of the per-placement differences;
    // a rebuild's difference for a placebo compare); the interval includes it. Unset when layout was
    // not a factor of the comparison.
    std::optional<double> layoutSpreadPct;
    std::size_t layoutsMeasured = 0;      // placements (cells) the interval rests on; 0 when not a factor
    std::size_t layoutsPlanned = 0;       // --layouts K: fewer measured means an incomplete design
    std::vector<LayoutCell> layoutCells;  // the cells the interval rests on, and those left out
    // Across builds: what the layout spread was measured on ("vanilla against its rebuild
    // vanilla-rebuilt", or a calibration's date and labels); "" for placements inside a run.
    std::string layoutSource;
    // Setups of a live run side by side (docs/measurement.md, "Setups as a factor"): how far the
    // difference moves from one start of the receivers to the next, in percent (the standard
    // deviation of the per-setup differences); the interval includes it. Unset when the setup was
    // not the unit.
    std::optional<double> setupSpreadPct;
    std::vector<SetupCell> setupCells;  // the setups the interval rests on, and those left out
    ComparisonValidity validity{};
};

// Paired design: base[i] and cand[i] were measured side by side (adjacent chunks). Works on the
// log ratios ln(cand / base): pairedInterval(), the Wilcoxon signed-rank test (primary: robust to
// the heavy tails of chunk data) and the one-sample t test. Pairs with a non-positive or
// non-finite value are skipped and counted in a warning.
Comparison comparePaired(const std::vector<double>& base, const std::vector<double>& cand,
                         const CompareOptions& options);

// Independent design: repetition values. independentInterval() of the ratio of the means; Welch's
// t test (primary) and Mann-Whitney U.
Comparison compareIndependent(const std::vector<double>& base, const std::vector<double>& cand,
                              const CompareOptions& options);

// What a summary holds (perf stat -r N): n values, their mean and sample standard deviation.
struct SummaryStats {
    double n = 0;
    double mean = 0;
    double stddev = 0;
};

// The independent design from summary statistics: the ratio of means with Fieller's interval and
// Welch's t (primary), computed from n, mean and standard deviation exactly as compareIndependent
// computes them from the values. Mann-Whitney U needs the values: it is not run, and a warning
// says so.
Comparison compareSummaries(const SummaryStats& base, const SummaryStats& cand, const CompareOptions& options);

// Sets pAdjusted, withinMargin and the verdict of `c`, whose intervals are already at the level
// that matches pAdjusted (its p where nothing was adjusted).
void decideAdjusted(Comparison& c, double pAdjusted, const CompareOptions& options);

// The verdict from pAdjusted and the intervals:
// - a difference is shown when a test exists, pAdjusted < alpha, and the 1 - alpha interval (at
//   its level) excludes 0: negligible when that interval lies inside +-margin, else different;
// - equivalent: no difference shown, and the 1 - 2 alpha interval, at its level, lies inside
//   +-margin. It is the interval that decides, so a metric that never varies is equivalent when it
//   lies within the margin;
// - inconclusive otherwise, with `reason` set when a rule could not apply (too few pairs for the
//   interval's level, no test possible, either interval unbounded, or an interval that excludes 0
//   beside a test that does not reject: they part only at the boundary, and neither is claimed).
Verdict decide(const Comparison& c, const CompareOptions& options, std::string* reason = nullptr);

}  // namespace nf::engine
