#pragma once
// `noisefloor run --events jsonl`: the run as a stream of JSON objects, one a line on stdout, for
// front ends such as noisefloor-gui. The schema is in docs/events.md.

#include <cstdint>
#include <functional>
#include <nlohmann/json.hpp>
#include <ostream>
#include <string>
#include <vector>

#include "engine/model/run_data.h"
#include "engine/run/run_watch.h"

namespace nf::cli {

inline constexpr int kEventsSchemaVersion = 1;

// Forwards every call to `inner` (which records the run) and writes the matching event after it,
// flushing each line so a reader sees it at once.
class EventStream : public engine::RunObserver, public engine::WatchObserver {
public:
    EventStream(engine::RunObserver& inner, std::ostream& out, std::string dbPath);

    // Where the id the recorder gave the run comes from (0 before it started).
    void setRunId(std::function<std::int64_t()> runId) { m_runId = std::move(runId); }
    // Called once, from the thread that wrote, when a line cannot be written: the reader went
    // away (a closed pipe, a dropped ssh). The run must stop; nobody watches it any more.
    void setOnBroken(std::function<void()> onBroken) { m_onBroken = std::move(onBroken); }

    Result<void> runStarted(const engine::RunStart& start) override;
    Result<void> repetitionFinished(const engine::RepetitionResult& rep) override;
    void warning(std::string_view text) override;
    void progress(int done, int total, double secondsLeft) override;
    void runFinished(engine::RunStatus status, std::string_view reason) override;
    // Until decided: forwarded (no event of their own; the finished event's reason says why it stopped).
    Result<void> decisionLook(const engine::DecisionLook& look) override { return m_inner.decisionLook(look); }
    Result<void> decisionMade(const engine::DecisionRecord& record) override { return m_inner.decisionMade(record); }

    // While a repetition runs: "partial_samples" and "look" a few times a second.
    void samplesMeasured(int repetition, const std::vector<engine::Sample>& samples) override;  // not forwarded
    void watchLook(const engine::WatchLook& look) override;

    // An error that ends the command (also written when the run never started).
    void error(const std::string& message, int exitStatus);

private:
    void emit(const nlohmann::json& event);
    std::int64_t runId() const { return m_runId ? m_runId() : 0; }

    engine::RunObserver& m_inner;
    std::ostream& m_out;
    std::string m_dbPath;
    std::function<std::int64_t()> m_runId;
    std::function<void()> m_onBroken;
    bool m_broken = false;
    engine::RunLayout m_layout;
};

}  // namespace nf::cli
