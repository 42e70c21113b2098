// The sequential decision of an until-decided run (migration 5): written look by look as the run
// goes, read back with the run.

#include <cmath>
#include <optional>

#include "data/run_store.h"
#include "data/schema.h"

namespace nf::data {

namespace {

std::optional<double> finite(double v)
{
    return std::isfinite(v) ? std::optional<double>(v) : std::nullopt;
}

double orNaN(const std::optional<double>& v)
{
    return v.value_or(std::nan(""));
}

}  // namespace

Result<void> RunRecorder::decisionLook(const engine::DecisionLook& l)
{
    if (m_runId == 0) {
        return Error{"cannot store a look: the run was not stored"};
    }
    return m_db.run(
        "INSERT INTO decision_looks (run_id, look, repetitions, units, elapsed_s, estimate_pct, low_pct, high_pct, "
        "sd_log, decision) VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?)",
        m_runId, l.look, l.repetitions, static_cast<std::int64_t>(l.units), l.elapsed, finite(l.estimatePct),
        finite(l.lowPct), finite(l.highPct), finite(l.sdLog), l.decision);
}

Result<void> RunRecorder::decisionMade(const engine::DecisionRecord& r)
{
    if (m_runId == 0) {
        return Error{"cannot store the decision: the run was not stored"};
    }
    return m_db.run(
        "INSERT INTO decisions (run_id, method, metric, unit, alpha, margin_pct, max_time_s, decision, stop_reason, "
        "seconds_needed) VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?)",
        m_runId, r.method, r.metric, r.unit, r.alpha, r.marginPct, r.maxTime, r.decision, r.stopReason,
        r.secondsNeeded >= 0 ? std::optional<double>(r.secondsNeeded) : std::nullopt);
}

Result<void> loadDecision(Database& db, engine::RunRecord& run)
{
    if (NF_TRY(storedSchemaVersion(db)) < 5) {  // opened read-only before migration 5: no until-decided runs in it
        return {};
    }
    auto stmt = NF_TRY(
        db.prepare("SELECT method, metric, unit, alpha, margin_pct, max_time_s, decision, stop_reason, seconds_needed "
                   "FROM decisions WHERE run_id = ?"));
    if (!NF_TRY(stmt.bind(1, run.row.id).step())) {
        return {};
    }
    const Row row(stmt);
    engine::DecisionRecord r{.method = NF_TRY(row.get<std::string>("method")),
                             .metric = NF_TRY(row.get<std::string>("metric")),
                             .unit = NF_TRY(row.get<std::string>("unit")),
                             .alpha = NF_TRY(row.get<double>("alpha")),
                             .marginPct = NF_TRY(row.get<double>("margin_pct")),
                             .maxTime = NF_TRY(row.get<double>("max_time_s")),
                             .decision = NF_TRY(row.get<std::string>("decision")),
                             .stopReason = NF_TRY(row.get<std::string>("stop_reason")),
                             .secondsNeeded = NF_TRY(row.get<std::optional<double>>("seconds_needed")).value_or(-1),
                             .looks = {}};
    NF_TRY(db.forEachRow(
        "SELECT look, repetitions, units, elapsed_s, estimate_pct, low_pct, high_pct, sd_log, decision "
        "FROM decision_looks WHERE run_id = ? ORDER BY look",
        run.row.id, [&](const Row& look) -> Result<void> {
            r.looks.push_back({.look = NF_TRY(look.get<int>("look")),
                               .repetitions = NF_TRY(look.get<int>("repetitions")),
                               .units = static_cast<std::size_t>(NF_TRY(look.get<std::int64_t>("units"))),
                               .elapsed = NF_TRY(look.get<double>("elapsed_s")),
                               .estimatePct = orNaN(NF_TRY(look.get<std::optional<double>>("estimate_pct"))),
                               .lowPct = orNaN(NF_TRY(look.get<std::optional<double>>("low_pct"))),
                               .highPct = orNaN(NF_TRY(look.get<std::optional<double>>("high_pct"))),
                               .sdLog = orNaN(NF_TRY(look.get<std::optional<double>>("sd_log"))),
                               .decision = NF_TRY(look.get<std::string>("decision"))});
            return {};
        }));
    run.decision = std::move(r);
    return {};
}

}  // namespace nf::data
