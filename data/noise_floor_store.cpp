#include "data/noise_floor_store.h"

#include <fmt/format.h>

namespace nf::data {

Result<std::int64_t> storeNoiseFloor(Database& db, const StoredNoiseFloor& f)
{
    auto stmt = db.prepare(
        "INSERT INTO run_noise_floors (created_at, label, workload, host, metric, runs, boots, between_cv, "
        "within_cv, run_ids) VALUES (coalesce(nullif(?, ''), strftime('%Y-%m-%dT%H:%M:%SZ', 'now')), ?, ?, ?, ?, ?, "
        "?, ?, ?, ?)");
    if (!stmt) {
        return stmt.error();
    }
    stmt->bind(1, f.createdAt)
        .bind(2, f.label)
        .bind(3, f.workload)
        .bind(4, f.host)
        .bind(5, f.metric)
        .bind(6, f.runs)
        .bind(7, f.boots)
        .bind(8, f.betweenCv)
        .bind(9, f.withinCv)
        .bind(10, f.runIds);
    if (auto done = stmt->run(); !done) {
        return done.error();
    }
    return static_cast<std::int64_t>(sqlite3_last_insert_rowid(db.handle()));
}

Result<std::vector<StoredNoiseFloor>> latestNoiseFloors(Database& db, const std::string& workload,
                                                        const std::string& host)
{
    // A database opened read-only below schema 4 (made by an older release) has no floors yet.
    auto table = db.prepare("SELECT 1 FROM sqlite_master WHERE type = 'table' AND name = 'run_noise_floors'");
    if (!table) {
        return table.error();
    }
    auto present = table->step();
    if (!present) {
        return present.error();
    }
    if (!*present) {
        return std::vector<StoredNoiseFloor>{};
    }
    auto stmt = db.prepare(
        "SELECT id, created_at, label, workload, host, metric, runs, boots, between_cv, within_cv, run_ids "
        "FROM run_noise_floors f WHERE workload = ? AND host = ? AND id = (SELECT max(id) FROM run_noise_floors g "
        "WHERE g.workload = f.workload AND g.host = f.host AND g.metric = f.metric) ORDER BY metric");
    if (!stmt) {
        return stmt.error();
    }
    stmt->bind(1, workload).bind(2, host);
    std::vector<StoredNoiseFloor> out;
    for (;;) {
        auto row = stmt->step();
        if (!row) {
            return row.error();
        }
        if (!*row) {
            break;
        }
        out.push_back({.id = stmt->int64(0),
                       .createdAt = stmt->text(1),
                       .label = stmt->text(2),
                       .workload = stmt->text(3),
                       .host = stmt->text(4),
                       .metric = stmt->text(5),
                       .runs = static_cast<int>(stmt->int64(6)),
                       .boots = static_cast<int>(stmt->int64(7)),
                       .betweenCv = stmt->real(8),
                       .withinCv = stmt->real(9),
                       .runIds = stmt->text(10)});
    }
    return out;
}

Result<std::map<std::string, engine::RunNoiseFloor>> calibratedFloors(Database& db, const std::string& workload,
                                                                      const std::string& host)
{
    auto stored = latestNoiseFloors(db, workload, host);
    if (!stored) {
        return stored.error();
    }
    std::map<std::string, engine::RunNoiseFloor> floors;
    for (const auto& f : *stored) {
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
