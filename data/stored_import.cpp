#include "data/stored_import.h"

#include "data/run_store.h"

namespace nf::data {

Result<std::int64_t> storeFinishedRun(Database& db, const engine::RunStart& start,
                                      const std::vector<engine::RepetitionResult>& repetitions,
                                      const std::vector<engine::SummaryStat>& summaries, const std::stop_token& stop,
                                      const engine::ProfileRecording* profile)
{
    auto tx = NF_TRY(Transaction::begin(db));  // the recorder's own transactions become savepoints in it
    RunRecorder recorder(db);
    NF_TRY(recorder.runStarted(start));
    for (const auto& rep : repetitions) {
        NF_TRY(recorder.repetitionFinished(rep));
    }
    NF_TRY(recorder.summariesFinished(summaries));
    if (profile != nullptr) {
        for (const auto& rep : profile->repetitions) {
            NF_TRY(recorder.profileMeasured(profile->summary, rep));
        }
        NF_TRY(recorder.profileFinished(profile->summary));
    }
    recorder.runFinished(engine::RunStatus::Complete, "");
    if (recorder.finishError()) {
        return *recorder.finishError();
    }
    if (stop.stop_requested()) {
        return Error{"stopped before the run was committed; nothing was stored"};
    }
    NF_TRY(tx.commit());
    return recorder.runId();
}

}  // namespace nf::data
