#pragma once
// Stores a run that is complete before it is stored (an import): all of it, or nothing.

#include <cstdint>
#include <stop_token>
#include <vector>

#include "data/database.h"
#include "engine/model/profile.h"
#include "engine/model/run_data.h"

namespace nf::data {

// Writes the run through RunRecorder, marks it complete and returns its id, all in one
// transaction: a failure, a stop requested through `stop` before the commit, or a crash leaves no
// trace of it. `profile`, when given, is stored with it (an import of perf script or perf report).
Result<std::int64_t> storeFinishedRun(Database& db, const engine::RunStart& start,
                                      const std::vector<engine::RepetitionResult>& repetitions,
                                      const std::vector<engine::SummaryStat>& summaries = {},
                                      const std::stop_token& stop = {},
                                      const engine::ProfileRecording* profile = nullptr);

}  // namespace nf::data
