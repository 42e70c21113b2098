#pragma once
// The machine's run-to-run noise floors (schema migration 4): written by noisefloor calibrate
// --across-runs, read by cross-run comparisons.

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

// The newest floor of each metric for this workload and host; empty when none was calibrated.
Result<std::vector<StoredNoiseFloor>> latestNoiseFloors(Database& db, const std::string& workload,
                                                        const std::string& host);

// latestNoiseFloors as the cross-run comparison takes them: by metric name, each saying where it
// came from ("calibrated 2026-12-01T10:00:00Z from 6 runs in 2 boots under 'aa'").
Result<std::map<std::string, engine::RunNoiseFloor>> calibratedFloors(Database& db, const std::string& workload,
                                                                      const std::string& host);

}  // namespace nf::data
