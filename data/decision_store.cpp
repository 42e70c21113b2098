// The sequential decision of an until-decided run (migration 5): written look by look as the run
// goes, read back with the run.

#include <cmath>
#include <exception>
#include <optional>

#include "data/run_store.h"
#include "data/schema.h"

namespace nf::data {

namespace {

std::optional<double> finite(double v)
{
    return std::isfinite(v) ? std::optional<double>(v) : std::nullopt;
}

double orNaN(const Statement& stmt, int column)
{
    return stmt.isNull(column) ? std::nan("") : stmt.real(column);
}

}  // namespace

Result<void> RunRecorder::decisionLook(const engine::DecisionLook& l)
try {
    if (m_runId == 0) {
        return Error{"cannot store a look: the run was not stored"};
    }
    auto stmt = m_db.prepare(
        "INSERT INTO decision_looks (run_id, look, repetitions, units, elapsed_s, estimate_pct, low_pct, high_pct, "
        "sd_log, decision) VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?)");
    if (!stmt) {
        return stmt.error();
    }
    stmt->bind(1, m_runId)
        .bind(2, l.look)
        .bind(3, l.repetitions)
        .bind(4, static_cast<std::int64_t>(l.units))
        .bind(5, l.elapsed)
        .bind(6, finite(l.estimatePct))
        .bind(7, finite(l.lowPct))
        .bind(8, finite(l.highPct))
        .bind(9, finite(l.sdLog))
        .bind(10, l.decision);
    return stmt->run();
} catch (const std::exception& e) {
    return Error{std::string("cannot store a look: ") + e.what()};
}

Result<void> RunRecorder::decisionMade(const engine::DecisionRecord& r)
try {
    if (m_runId == 0) {
        return Error{"cannot store the decision: the run was not stored"};
    }
    auto stmt = m_db.prepare(
        "INSERT INTO decisions (run_id, method, metric, unit, alpha, margin_pct, max_time_s, decision, stop_reason, "
        "seconds_needed) VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?)");
    if (!stmt) {
        return stmt.error();
    }
    stmt->bind(1, m_runId)
        .bind(2, r.method)
        .bind(3, r.metric)
        .bind(4, r.unit)
        .bind(5, r.alpha)
        .bind(6, r.marginPct)
        .bind(7, r.maxTime)
        .bind(8, r.decision)
        .bind(9, r.stopReason)
        .bind(10, r.secondsNeeded >= 0 ? std::optional<double>(r.secondsNeeded) : std::nullopt);
    return stmt->run();
} catch (const std::exception& e) {
    return Error{std::string("cannot store the decision: ") + e.what()};
}

Result<void> loadDecision(Database& db, engine::RunRecord& run)
{
    auto version = storedSchemaVersion(db);
    if (!version) {
        return version.error();
    }
    if (*version < 5) {  // opened read-only before migration 5: no until-decided runs in it
        return {};
    }
    auto stmt = db.prepare(
        "SELECT method, metric, unit, alpha, margin_pct, max_time_s, decision, stop_reason, seconds_needed "
        "FROM decisions WHERE run_id = ?");
    if (!stmt) {
        return stmt.error();
    }
    stmt->bind(1, run.row.id);
    auto row = stmt->step();
    if (!row) {
        return row.error();
    }
    if (!*row) {
        return {};
    }
    engine::DecisionRecord r{.method = stmt->text(0),
                             .metric = stmt->text(1),
                             .unit = stmt->text(2),
                             .alpha = stmt->real(3),
                             .marginPct = stmt->real(4),
                             .maxTime = stmt->real(5),
                             .decision = stmt->text(6),
                             .stopReason = stmt->text(7),
                             .secondsNeeded = stmt->isNull(8) ? -1 : stmt->real(8),
                             .looks = {}};
    auto looks = db.prepare(
        "SELECT look, repetitions, units, elapsed_s, estimate_pct, low_pct, high_pct, sd_log, decision "
        "FROM decision_looks WHERE run_id = ? ORDER BY look");
    if (!looks) {
        return looks.error();
    }
    looks->bind(1, run.row.id);
    for (;;) {
        auto next = looks->step();
        if (!next) {
            return next.error();
        }
        if (!*next) {
            break;
        }
        r.looks.push_back({.look = static_cast<int>(looks->int64(0)),
                           .repetitions = static_cast<int>(looks->int64(1)),
                           .units = static_cast<std::size_t>(looks->int64(2)),
                           .elapsed = looks->real(3),
                           .estimatePct = orNaN(*looks, 4),
                           .lowPct = orNaN(*looks, 5),
                           .highPct = orNaN(*looks, 6),
                           .sdLog = orNaN(*looks, 7),
                           .decision = looks->text(8)});
    }
    run.decision = std::move(r);
    return {};
}

}  // namespace nf::data
