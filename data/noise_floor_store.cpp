#include "data/noise_floor_store.h"

#include <fmt/format.h>

namespace nf::data {

Result<std::int64_t> storeNoiseFloor(Database& db, const StoredNoiseFloor& f)
{
    NF_TRY(db.run(
        "INSERT INTO run_noise_floors (created_at, label, workload, host, metric, runs, boots, between_cv, "
        "within_cv, run_ids) VALUES (coalesce(nullif(?, ''), strftime('%Y-%m-%dT%H:%M:%SZ', 'now')), ?, ?, ?, ?, ?, "
        "?, ?, ?, ?)",
        f.createdAt, f.label, f.workload, f.host, f.metric, f.runs, f.boots, f.betweenCv, f.withinCv, f.runIds));
    return db.lastInsertId();
}

namespace {

// The newest row of each metric for this workload and host: of the layout floors, or of the
// run-to-run ones.
Result<std::vector<StoredNoiseFloor>> latestRows(Database& db, const std::string& workload, const std::string& host,
                                                 bool layout)
{
    // A database opened read-only below schema 4 (made by an older release) has no floors yet.
    auto table = NF_TRY(
        db.queryOne<std::int64_t>("SELECT 1 FROM sqlite_master WHERE type = 'table' AND name = 'run_noise_floors'"));
    std::vector<StoredNoiseFloor> out;
    if (!table) {
        return out;
    }
    const std::string prefix = kLayoutMetricPrefix;
    NF_TRY(db.forEachRow(
        "SELECT id, created_at, label, workload, host, metric, runs, boots, between_cv, within_cv, run_ids "
        "FROM run_noise_floors f WHERE workload = ? AND host = ? AND (substr(metric, 1, length(?)) = ?) = ? "
        "AND id = (SELECT max(id) FROM run_noise_floors g WHERE g.workload = f.workload AND g.host = f.host AND "
        "g.metric = f.metric) ORDER BY metric",
        workload, host, prefix, prefix, layout ? 1 : 0, [&](const Row& row) -> Result<void> {
            out.push_back({.id = NF_TRY(row.get<std::int64_t>("id")),
                           .createdAt = NF_TRY(row.get<std::string>("created_at")),
                           .label = NF_TRY(row.get<std::string>("label")),
                           .workload = NF_TRY(row.get<std::string>("workload")),
                           .host = NF_TRY(row.get<std::string>("host")),
                           .metric = NF_TRY(row.get<std::string>("metric")),
                           .runs = NF_TRY(row.get<int>("runs")),
                           .boots = NF_TRY(row.get<int>("boots")),
                           .betweenCv = NF_TRY(row.get<double>("between_cv")),
                           .withinCv = NF_TRY(row.get<double>("within_cv")),
                           .runIds = NF_TRY(row.get<std::string>("run_ids"))});
            return {};
        }));
    return out;
}

}  // namespace

Result<std::vector<StoredNoiseFloor>> latestNoiseFloors(Database& db, const std::string& workload,
                                                        const std::string& host)
{
    return latestRows(db, workload, host, false);
}

Result<std::int64_t> storeLayoutFloor(Database& db, const LayoutFloorRecord& f)
{
    return storeNoiseFloor(db, {.id = 0,
                                .createdAt = {},
                                .label = f.baseline + " against its rebuild " + f.placebo,
                                .workload = f.workload,
                                .host = f.host,
                                .metric = std::string(kLayoutMetricPrefix) + f.metric,
                                .runs = f.runs,
                                .boots = f.boots,
                                .betweenCv = f.spreadCv,
                                .withinCv = 0,
                                .runIds = f.runIds});
}

Result<std::map<std::string, engine::LayoutFloor>> calibratedLayoutFloors(Database& db, const std::string& workload,
                                                                          const std::string& host)
{
    std::map<std::string, engine::LayoutFloor> floors;
    const std::string prefix = kLayoutMetricPrefix;
    for (const auto& f : NF_TRY(latestRows(db, workload, host, true))) {
        floors[f.metric.substr(prefix.size())] = {.spreadCv = f.betweenCv,
                                                  .df = 1,
                                                  .builds = 2,
                                                  .source = fmt::format("calibrated {}: {}", f.createdAt, f.label)};
    }
    return floors;
}

Result<std::map<std::string, engine::RunNoiseFloor>> calibratedFloors(Database& db, const std::string& workload,
                                                                      const std::string& host)
{
    std::map<std::string, engine::RunNoiseFloor> floors;
    for (const auto& f : NF_TRY(latestNoiseFloors(db, workload, host))) {
        floors[f.metric] = {.betweenCv = f.betweenCv,
                            .df = f.runs - 1.0,
                            .runs = static_cast<std::size_t>(f.runs),
                            .boots = static_cast<std::size_t>(f.boots),
                            .source = fmt::format("calibrated {} from {} runs in {} boots under '{}'", f.createdAt,
                                                  f.runs, f.boots, f.label)};
    }
    return floors;
}

}  // namespace nf::data
