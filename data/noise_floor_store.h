#pragma once
// The machine's run-to-run noise floors (schema migration 4): written by noisefloor calibrate
// --across-runs, read by cross-run comparisons. Code layout floors (calibrate --layout) share the
// table, told apart by their metric: "layout:" and the metric's name (kLayoutMetricPrefix).

#include <cstdint>
#include <map>
#include <string>
#include <vector>

#include "data/database.h"
#include "engine/model/noise_floor.h"

namespace nf::data {

struct StoredNoiseFloor {
    std::int64_t id = 0;
    std::string createdAt;  // ISO 8601 UTC
    std::string label;
    std::string workload;
    std::string host;
    std::string metric;
    int runs = 0;
    int boots = 0;
    double betweenCv = 0;  // run-to-run SD of run means beyond the within-run noise, over the mean
    double withinCv = 0;   // SD of one repetition inside a run, over the mean
    std::string runIds;    // "12,13,15"
};

// Stores one floor (createdAt is set to now when empty); its id.
Result<std::int64_t> storeNoiseFloor(Database& db, const StoredNoiseFloor& floor);

// The newest run-to-run floor of each metric for this workload and host; empty when none was
// calibrated.
Result<std::vector<StoredNoiseFloor>> latestNoiseFloors(Database& db, const std::string& workload,
                                                        const std::string& host);

// A code layout floor (calibrate --layout) in run_noise_floors: metric is kLayoutMetricPrefix and
// the metric's name (a metric no run has, so a release that knows no layout floors passes it by);
// label "BASELINE against its rebuild PLACEBO"; runs, boots and run_ids those of both labels;
// between_cv the layout spread (engine::LayoutFloor::spreadCv); within_cv 0 (not measured). Its
// degrees of freedom are 1: one placebo per calibration.
inline constexpr const char* kLayoutMetricPrefix = "layout:";
struct LayoutFloorRecord {
    std::string baseline;
    std::string placebo;
    std::string workload;
    std::string host;
    std::string metric;
    int runs = 0;
    int boots = 0;
    double spreadCv = 0;
    std::string runIds;
};
Result<std::int64_t> storeLayoutFloor(Database& db, const LayoutFloorRecord& floor);

// The newest layout floor of each metric for this workload and host, by metric name (without the
// prefix), each saying where it came from ("calibrated 2026-12-05T18:00:00Z: vanilla against its
// rebuild vanilla-rebuilt"); empty when none was calibrated.
Result<std::map<std::string, engine::LayoutFloor>> calibratedLayoutFloors(Database& db, const std::string& workload,
                                                                          const std::string& host);

// latestNoiseFloors as the cross-run comparison takes them: by metric name, each saying where it
// came from ("calibrated 2026-12-01T10:00:00Z from 6 runs in 2 boots under 'aa'").
Result<std::map<std::string, engine::RunNoiseFloor>> calibratedFloors(Database& db, const std::string& workload,
                                                                      const std::string& host);

}  // namespace nf::data
