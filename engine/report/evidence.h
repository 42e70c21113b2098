#pragma once
// The evidence a reviewer reads: the analysis as mail-ready text (at most 72 columns), as JSON
// (with schema_version) and as CSV summary rows.

#include <nlohmann/json.hpp>
#include <ostream>
#include <string>
#include <vector>

#include "engine/analysis/analysis.h"

namespace nf::engine {

// What the analysis was made from, for the header and the warnings.
struct EvidenceContext {
    std::string title;                  // "run 12: spin, complete"
    std::vector<std::string> header;    // command line, kernel, CPU, cores, repetitions x duration, order
    std::string designNote;             // how the pairs or repetitions were made
    std::vector<std::string> warnings;  // from the environment: counters missing, noisy machine
    nlohmann::json source;              // runs or files, for JSON
    std::string simulatedCounters;      // simulatedCountersNote of a run with the simulated PMU, else ""
};

inline constexpr int kEvidenceSchemaVersion = 1;

void writeEvidenceText(const Analysis& analysis, const EvidenceContext& context, std::ostream& out);
nlohmann::json evidenceJson(const Analysis& analysis, const EvidenceContext& context);
void writeEvidenceCsv(const Analysis& analysis, std::ostream& out);

// One sentence: "b is 0.49% slower than a (tsc_per_op +0.49%, 95% CI +0.45..+0.53%, p<0.001)".
std::string verdictSentence(const MetricComparison& c, const CompareOptions& options);

// "different: slower", "equivalent" or "inconclusive".
std::string verdictWord(const MetricComparison& c);

// "95%": the level of an interval, or the level it has when the data allow no more ("87.5%").
std::string levelText(const IntervalResult& interval, double alpha);

// Formatting shared by the reports: "p<0.001" / "p=0.042"; "+0.49%"; "+0.45..+0.53%".
std::string formatP(double p);
std::string signedPct(double v);
std::string percentInterval(double lo, double hi);
// Per-op times and rates read as speed (faster/slower); other metrics as higher or lower.
bool isSpeed(const MetricComparison& c);

// Splits `text` into lines of at most `width` columns, each after the first indented by `indent`.
std::vector<std::string> wrap(const std::string& text, std::size_t width, const std::string& indent);

}  // namespace nf::engine
