#pragma once
// Stores a run that is complete before it is stored (an import): all of it, or nothing.

#include <cstdint>
#include <vector>

#include "database.h"
#include "run_data.h"

namespace nf::data {

// Writes the run through RunRecorder, marks it complete and returns its id. On any failure the
// partly written run is deleted again, so a failed import leaves no trace.
Result<std::int64_t> storeFinishedRun(Database& db, const engine::RunStart& start,
                                      const std::vector<engine::RepetitionResult>& repetitions);

}  // namespace nf::data
