#pragma once
// A sweep's comparisons side by side: for each point, every variant's value of one metric and
// each candidate's delta against the baseline with its interval and verdict.

#include <cstdint>
#include <functional>
#include <nlohmann/json.hpp>
#include <ostream>
#include <string>
#include <vector>

#include "engine/analysis/analysis.h"
#include "engine/model/run_record.h"

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
    CompareOptions compare;            // the alpha and margin every point was compared with
    std::string simulated;             // simulatedCountersNote of a point measured with the simulated PMU
    int planned = 0;                   // the points the sweep was planned with (0: not recorded)
};

// Reads one stored run by id (data::loadRun).
using LoadRun = std::function<Result<RunRecord>(std::int64_t id)>;

// Every point of a sweep compared, as `noisefloor compare --sweep` and the desktop app's Explore
// tab show it: `rows` are the sweep's runs in point order (data::sweepRuns); each complete one is
// loaded and its variants compared on one metric (`metrics`' first, else the workload's primary
// metric) with `options`. A point without a complete run is listed in `missing`. Fails on the
// first run that cannot be loaded (the loader's error) or analysed (the analysis's).
Result<SweepReport> compareSweep(const std::string& id, const std::vector<RunRow>& rows, const LoadRun& load,
                                 const std::vector<std::string>& metrics, const AnalysisOptions& options);

// One row per point and variant within 72 columns (mean, sd%, change with its interval, verdict);
// `verbose`: the table with p values and verdict directions.
void writeSweepText(const SweepReport& report, std::ostream& out, bool verbose = false);
// Per point and variant: mean and 95% CI; per candidate the primary comparison's delta, its
// 1 - alpha interval (ci_*_pct) and 1 - 2 alpha interval (tost_*_pct), verdict and design; the
// margin and alpha at the top.
nlohmann::json sweepJson(const SweepReport& report);
// One row per point and variant: point,value,run,variant,mean,ci_low,ci_high,delta_pct,...
void writeSweepCsv(const SweepReport& report, std::ostream& out);

}  // namespace nf::engine
