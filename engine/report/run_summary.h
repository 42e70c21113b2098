#pragma once
// Per-variant summaries of a run's metrics, as text and JSON.

#include <nlohmann/json.hpp>
#include <ostream>

#include "engine/model/run_data.h"
#include "engine/stats/descriptive.h"

namespace nf::engine {

struct MetricSummary {
    MetricSpec metric;
    std::vector<Summary> perVariant;  // over repetition values (ratio of totals per repetition)
};

std::vector<MetricSummary> summarizeRun(const RunData& data);

// A table: metric, unit, variant, n, mean, median, stddev, CV. n counts repetitions.
void writeSummaryText(const RunData& data, std::ostream& out);
nlohmann::json summaryJson(const RunData& data);

}  // namespace nf::engine
