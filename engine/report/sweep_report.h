#pragma once
// A sweep's comparisons side by side: for each point, every variant's value of one metric and
// each candidate's delta against the baseline with its interval and verdict.

#include <cstdint>
#include <nlohmann/json.hpp>
#include <ostream>
#include <string>
#include <vector>

#include "engine/analysis/analysis.h"

namespace nf::engine {

struct SweepPointResult {
    std::string value;  // the parameter's value at this point
    std::int64_t runId = 0;
    Analysis analysis;  // of this point's run
};

struct SweepReport {
    std::string id;
    std::string workload;
    std::string param;
    std::string metric;  // the metric tabulated (each point's analysis may hold more)
    std::vector<SweepPointResult> points;
    std::vector<std::string> missing;  // points that have no complete run, e.g. "100 (aborted)"
};

// One row per point and variant within 72 columns (mean, sd%, change with its interval, verdict);
// `verbose`: the table with p values and verdict directions.
void writeSweepText(const SweepReport& report, std::ostream& out, bool verbose = false);
nlohmann::json sweepJson(const SweepReport& report);
// One row per point and variant: point,value,run,variant,mean,ci_low,ci_high,delta_pct,...
void writeSweepCsv(const SweepReport& report, std::ostream& out);

}  // namespace nf::engine
