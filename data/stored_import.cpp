#include "data/stored_import.h"

#include "data/run_store.h"

namespace nf::data {

Result<std::int64_t> storeFinishedRun(Database& db, const engine::RunStart& start,
                                      const std::vector<engine::RepetitionResult>& repetitions,
                                      const std::vector<engine::SummaryStat>& summaries, const std::stop_token& stop)
{
    auto tx = Transaction::begin(db);  // the recorder's own transactions become savepoints in it
    if (!tx) {
        return tx.error();
    }
    RunRecorder recorder(db);
    if (auto started = recorder.runStarted(start); !started) {
        return started.error();
    }
    for (const auto& rep : repetitions) {
        if (auto stored = recorder.repetitionFinished(rep); !stored) {
            return stored.error();
        }
    }
    if (auto stored = recorder.summariesFinished(summaries); !stored) {
        return stored.error();
    }
    recorder.runFinished(engine::RunStatus::Complete, "");
    if (recorder.finishError()) {
        return *recorder.finishError();
    }
    if (stop.stop_requested()) {
        return Error{"stopped before the run was committed; nothing was stored"};
    }
    if (auto committed = tx->commit(); !committed) {
        return committed.error();
    }
    return recorder.runId();
}

}  // namespace nf::data
