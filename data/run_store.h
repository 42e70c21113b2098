#pragma once
// Writes runs as they happen (RunRecorder) and reads them back (listRuns, loadRun).

#include <cstdint>
#include <map>
#include <nlohmann/json.hpp>
#include <optional>
#include <string>
#include <vector>

#include "data/database.h"
#include "engine/model/run_data.h"
#include "engine/model/run_record.h"

namespace nf::data {

// A RunObserver that stores the run: the runs row (status running) with spec, environment and
// host facts on runStarted, the variants, the quantities and the metric definitions; each
// repetition (its repetitions rows and its samples, one row each with its values as a blob) in one
// transaction when it ends; the final status and end time on runFinished. A run that stops without runFinished (crash,
// SIGKILL) stays 'running' with the pid that wrote it, and readers show it as aborted once that
// pid is gone.
class RunRecorder : public engine::RunObserver {
public:
    explicit RunRecorder(Database& db) : m_db(db) {}

    Result<void> runStarted(const engine::RunStart& start) override;
    Result<void> repetitionFinished(const engine::RepetitionResult& rep) override;
    // Stored with the run (run_warnings); one that cannot be stored makes finishError() say so.
    void warning(std::string_view text) override;
    void runFinished(engine::RunStatus status, std::string_view reason) override;
    // The summaries of repetitions already stored (an import of perf stat -r N).
    Result<void> summariesFinished(const std::vector<engine::SummaryStat>& summaries);
    // An until-decided run: each look, and the decision (data/decision_store.cpp).
    Result<void> decisionLook(const engine::DecisionLook& look) override;
    Result<void> decisionMade(const engine::DecisionRecord& record) override;
    // run --profile: each repetition's profile and how it was taken (data/profile_store.cpp).
    Result<void> profileMeasured(const engine::ProfileSummary& soFar,
                                 const engine::RepetitionProfile& profile) override;
    Result<void> profileFinished(const engine::ProfileSummary& summary) override;

    std::int64_t runId() const { return m_runId; }
    const std::optional<Error>& finishError() const { return m_finishError; }

private:
    Database& m_db;
    std::int64_t m_runId = 0;
    std::vector<std::int64_t> m_variantIds;
    std::vector<std::int64_t> m_quantityIds;
    std::optional<Error> m_finishError;
    int m_warnings = 0;
    std::optional<Error> m_warningError;
    std::map<std::string, std::int64_t> m_profileSymbols;  // name -> profile_symbols.id
};

// Newest first.
Result<std::vector<engine::RunRow>> listRuns(Database& db);
// The runs of one sweep in point order (a point run twice appears twice, oldest first).
Result<std::vector<engine::RunRow>> sweepRuns(Database& db, const std::string& sweepId);
// Sets section `key` of run `id`'s stored environment to `value`, replacing what was there: what a
// lab knows of a run measured in it (`noisefloor lava export`: the job, the device, the worker).
Result<void> setEnvironmentSection(Database& db, std::int64_t id, const std::string& key, const nlohmann::json& value);
// Fails with "no run 42 in runs.db" for an unknown id.
Result<engine::RunRecord> loadRun(Database& db, std::int64_t id);
// The sequential decision and looks of an until-decided run into run.decision (nothing for others).
Result<void> loadDecision(Database& db, engine::RunRecord& run);
// The profile of a run stored with --profile into run.data.profile (nothing for others).
Result<void> loadProfile(Database& db, engine::RunRecord& run);

}  // namespace nf::data
