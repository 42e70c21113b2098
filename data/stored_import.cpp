#include "stored_import.h"

#include "run_store.h"

namespace nf::data {

namespace {

void deleteRun(Database& db, std::int64_t id)
{
    if (auto stmt = db.prepare("DELETE FROM runs WHERE id = ?")) {
        stmt->bind(1, id);
        (void)stmt->run();
    }
}

}  // namespace

Result<std::int64_t> storeFinishedRun(Database& db, const engine::RunStart& start,
                                      const std::vector<engine::RepetitionResult>& repetitions)
{
    RunRecorder recorder(db);
    if (auto started = recorder.runStarted(start); !started) {
        return started.error();
    }
    for (const auto& rep : repetitions) {
        if (auto stored = recorder.repetitionFinished(rep); !stored) {
            deleteRun(db, recorder.runId());
            return stored.error();
        }
    }
    recorder.runFinished(engine::RunStatus::Complete, "");
    if (recorder.finishError()) {
        deleteRun(db, recorder.runId());
        return *recorder.finishError();
    }
    return recorder.runId();
}

}  // namespace nf::data
