#pragma once
// Stores a run that is complete before it is stored (an import): all of it, or nothing, with the
// content hash of each of its blocks (data/import_blocks.h), so that content is stored once. The
// same numbers stored twice would count twice in every comparison and look like two measurements.

#include <cstdint>
#include <stop_token>
#include <string>
#include <vector>

#include "data/database.h"
#include "data/import_blocks.h"
#include "engine/model/profile.h"
#include "engine/model/run_data.h"

namespace nf::data {

// What an import does with blocks whose content is stored already (or given earlier in the same
// import): leaves them out, or stores them again (import --allow-duplicate).
enum class Duplicates { Skip, Store };

struct StoredImport {
    std::int64_t id = 0;               // the run stored; 0 when nothing was (every block is stored already)
    std::size_t repetitions = 0;       // the blocks it stores
    std::vector<CheckedBlock> blocks;  // every block of the import, in the order read
    // What the run's note says of the duplicates (duplicateBlocksText): "skipped 3 of 5 repetitions
    // already stored (run 3 'vanilla'): repetitions 1-3 of out.txt", or "stored again 3 of 5 ...";
    // "" when every block is new.
    std::string note;
    std::string refusal;  // when id is 0: everyBlockStoredText, "every repetition of out.txt is already stored (...)"
};

// Checks every block of the import against the database and the blocks before it, then writes the
// run through RunRecorder with the hashes of the blocks it keeps, marks it complete and returns it,
// all in one transaction: a failure, a stop requested through `stop` before the commit, or a crash
// leaves no trace of it, and no other import can store the same content in between. With Skip, the
// blocks stored already are left out and the rest renumbered 0..k-1 in their order, laid end to end
// from 0 (the run an import of only the new blocks would store); when none is left, nothing is
// stored and `refusal` says why. What was left out, or stored again, is a note of the run
// (environment.import.notes). `origins` names each block for those sentences; `profile`, when
// given, is stored with it (an import of perf script or perf report).
Result<StoredImport> storeImport(Database& db, const engine::RunStart& start,
                                 const std::vector<engine::RepetitionResult>& repetitions,
                                 const std::vector<engine::SummaryStat>& summaries,
                                 const engine::ProfileRecording* profile, Duplicates duplicates,
                                 const std::vector<BlockOrigin>& origins = {}, const std::stop_token& stop = {});

// storeImport of every block, duplicates too: the run's id.
Result<std::int64_t> storeFinishedRun(Database& db, const engine::RunStart& start,
                                      const std::vector<engine::RepetitionResult>& repetitions,
                                      const std::vector<engine::SummaryStat>& summaries = {},
                                      const std::stop_token& stop = {},
                                      const engine::ProfileRecording* profile = nullptr);

}  // namespace nf::data
