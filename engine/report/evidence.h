#pragma once
// The evidence a reviewer reads: the analysis as mail-ready text (at most 72 columns), as JSON
// (with schema_version) and as CSV summary rows.

#include <array>
#include <limits>
#include <nlohmann/json.hpp>
#include <ostream>
#include <string>
#include <utility>
#include <vector>

#include "engine/analysis/analysis.h"

namespace nf::engine {

// A metric the compact text leaves out because another one already shows it: a unit conversion
// by definition (ns_per_op of tsc_per_op), or an exact multiple in every stored value (bytes_per_sec
// of pps at a fixed datagram size).
struct DerivedMetric {
    std::string metric;                                        // "bytes_per_sec"
    std::string of;                                            // "pps"
    double factor = std::numeric_limits<double>::quiet_NaN();  // metric = factor x of; NaN: by definition only
};

// What the analysis was made from, for the header and the warnings.
struct EvidenceContext {
    std::string title;                   // "run 12: spin, complete"
    std::vector<std::string> header;     // command line, kernel, CPU, cores, repetitions x duration, order
    std::string designNote;              // how the pairs or repetitions were made
    std::vector<std::string> warnings;   // from the environment: counters missing, noisy machine
    nlohmann::json source;               // runs or files, for JSON
    std::string simulatedCounters;       // simulatedCountersNote of a run with the simulated PMU, else ""
    std::vector<DerivedMetric> derived;  // left out of the compact table, named once below it
    std::vector<std::string> notShown;   // more the compact text names as left out ("24 per-CPU ... means")
    // Unit conversions of a compared metric that were not compared themselves (ns_per_op of
    // tsc_per_op): named once by the compact text.
    std::vector<DerivedMetric> conversions;
    // Metrics named with --metric: every one is in the compact table, none left out as derived or
    // zero throughout.
    bool metricsAsked = false;
    // The compact header's lines in place of `header` when not empty: the facts several runs
    // share said once.
    std::vector<std::string> briefHeader;
    // Further facts about the design for the compact header, one line each (pooled runs,
    // sequential stopping): shown after the design line.
    std::vector<std::string> designLines;
    // The text shows a variant's interval on the log scale where no value is below zero (rates and
    // counts). `stat` reads plain numbers of any kind and keeps Student's t.
    bool logScaleIntervals = true;
};

inline constexpr int kEvidenceSchemaVersion = 1;

// Everything: per-variant tables, both designs, tests, sizing, notes and warnings (--verbose).
void writeEvidenceText(const Analysis& analysis, const EvidenceContext& context, std::ostream& out);
// What a reviewer reads in ten seconds: the header lines of compactHeader(), then one line per
// metric and comparison against the baseline (its mean and %stddev per variant, the change with
// its interval, a verdict word), the derived metrics named once. At most 72 columns.
void writeCompactEvidence(const Analysis& analysis, const EvidenceContext& context, std::ostream& out);
// The compact header: title, command, machine, schedule, design, alpha and margin, the warnings
// that matter; one line each, at most 72 columns.
std::vector<std::string> compactHeader(const Analysis& analysis, const EvidenceContext& context);
// The metrics of `input` that convert or exactly multiply an earlier one (see DerivedMetric).
std::vector<DerivedMetric> derivedMetrics(const AnalysisInput& input);
// The interval of a variant's mean shown in the text: on the log scale for a quantity that cannot
// be negative (no value below zero), else the Student t interval of the analysis.
std::pair<double, double> textInterval(const VariantStats& v, double alpha);
// The compact cells: "581.2k"; the standard deviation in % of the mean ("2.1"); the change in %,
// its interval ("^" marks one below the level asked for) and the verdict word (different,
// equivalent, ~).
std::string compactValue(double v);
std::string compactSd(const Summary& s);
// `coarse`: a change of 10% or more in whole percents, for a table that would not fit otherwise.
std::array<std::string, 3> compactChange(const Analysis& analysis, const MetricComparison& c, bool hold = true,
                                         bool coarse = false);
// The change's interval the text shows: the analysis's, held to the range of the ratio where no
// value of either variant is below zero (a rate, a count; with `hold`). Their ratio cannot be
// negative, so an interval reaching below -100% (Fieller's, of widely spread counts) is cut at
// -100%, the candidate's mean at zero; only impossible ratios go, so the coverage stays.
PercentInterval heldChangeInterval(const Analysis& analysis, const MetricComparison& c, bool hold = true);
// No value below zero and at least two of them: textInterval() is the log-scale one.
bool intervalOnLogScale(const VariantStats& v);
nlohmann::json evidenceJson(const Analysis& analysis, const EvidenceContext& context);
void writeEvidenceCsv(const Analysis& analysis, std::ostream& out);

// One sentence: "b is 0.49% slower than a (tsc_per_op +0.49%, 95% CI +0.45..+0.53%, p<0.001)".
std::string verdictSentence(const MetricComparison& c, const CompareOptions& options);

// Where code layout was a factor (Comparison::layoutSpreadPct): "layout spread +-1.80% (vanilla
// against its rebuild vanilla-rebuilt): where the code sits moves a difference this much; the
// interval includes it", with
// "(incomplete: 5 of 8 placements)" when a run measured fewer placements than planned; "" otherwise.
std::string layoutSpreadText(const Comparison& r);

// Where the setups of a live run were the unit (Comparison::setupSpreadPct): "setup spread +-0.9%:
// the setups' differences scatter this much (what each start of the receivers drew, and the noise
// of its chunks); the interval includes it"; "" otherwise.
std::string setupSpreadText(const Comparison& r);

// The validity block of a live run's comparisons (engine/analysis/validity.h), one line per
// reason: "invalid (generator_bound) for pps, bytes_per_sec: ..." for each reason that made
// comparisons invalid, "kept with --allow-invalid" when it did not, and one line naming the metrics
// that keep their verdicts beside a rate's reason. Empty when every comparison was valid or the
// run's validity was not judged.
std::vector<std::string> validityLines(const Analysis& analysis);

// "different: slower", "equivalent" or "inconclusive".
std::string verdictWord(const MetricComparison& c);

// "95%": the level of an interval, or the level it has when the data allow no more ("87.5%").
std::string levelText(const IntervalResult& interval, double alpha);

// Formatting shared by the reports: "p<0.001" / "p=0.042"; "+0.49%"; "+0.45..+0.53%".
std::string formatP(double p);
// Decimals for a percent: 2, more for a nonzero below 0.005 in size so that it never prints as
// 0.00 ("-0.0020%").
int percentDecimals(double v);
std::string signedPct(double v);
std::string percentInterval(double lo, double hi);
// Per-op times and rates read as speed (faster/slower); other metrics as higher or lower.
bool isSpeed(const MetricComparison& c);

// Splits `text` into lines of at most `width` columns, each after the first indented by `indent`.
std::vector<std::string> wrap(const std::string& text, std::size_t width, const std::string& indent);

}  // namespace nf::engine
