#pragma once
// The content of imported blocks, so that an import knows what is stored already. A block is one
// repetition of an import as the run stores it: one run of the tool, one file or one slice of a
// recording (for perf stat -r, one summary). Its content hash is XXH3-128 (xxHash) over a canonical
// serialisation of what the block stores: the import's workload ("import:perf-stat", the format),
// the quantity names, each sample's duration and values bit for bit, the summaries' quantity, n,
// mean and standard error, and for a profile its event and the repetition's samples per chunk,
// symbol and stack. Nothing that names the content enters it: not the file name, label, variant,
// host or kernel, so the same content under another file name or label is the same content.
// A sample's start is left out: importedRun lays samples end to end, so within a block the
// durations say it, and from the import's start it depends on the blocks read before this one.
//
// The hashing is here, beside the table that keeps the hashes (import_blocks, migration 11), rather
// than in engine/import: the importers stay pure text-to-table functions, and a block's content is
// what the store writes (the RunStart, repetitions, summaries and profile it is handed), which data/
// sees for every import whatever tool it came from.

#include <cstdint>
#include <string>
#include <vector>

#include "data/database.h"
#include "engine/model/profile.h"
#include "engine/model/run_data.h"

namespace nf::data {

// A run that stores a block's content already: its id, label and the repetition holding it.
struct StoredBlock {
    std::int64_t run = 0;
    std::string label;
    int repetition = 0;
};

// One block of an import, checked against the database and against the blocks before it.
struct CheckedBlock {
    std::string hash;                   // 32 hex digits
    std::vector<StoredBlock> storedIn;  // the runs holding the same content, oldest first
    int earlier = -1;                   // an earlier block of this import with the same content, else -1

    bool duplicate() const { return !storedIn.empty() || earlier >= 0; }
};

// A block as the person importing it names it: the file it was read from and its place there
// (1-based), for the sentences below.
struct BlockOrigin {
    std::string file;
    int position = 0;
};

// The content hash of each repetition of `repetitions` (in their order), with the summaries and
// the profile stored with it. `start` gives the workload and the quantities.
std::vector<std::string> importBlockHashes(const engine::RunStart& start,
                                           const std::vector<engine::RepetitionResult>& repetitions,
                                           const std::vector<engine::SummaryStat>& summaries,
                                           const engine::ProfileRecording* profile);

// Where each hash is stored already (runs imported before this table existed have no hashes, and
// are not found), and which block of the same list had it first.
Result<std::vector<CheckedBlock>> checkImportBlocks(Database& db, const std::vector<std::string>& hashes);

// Stores `hashes` (importBlockHashes of `repetitions`) as the blocks of run `run`.
Result<void> writeImportBlocks(Database& db, std::int64_t run, const std::vector<engine::RepetitionResult>& repetitions,
                               const std::vector<std::string>& hashes);

// The duplicates among `blocks`, origins[i] naming block i (the import's own places when empty),
// as repetitions or, with `summaries`, as summaries: "3 of 5 repetitions already stored (run 3
// 'vanilla'): repetitions 1-3 of out.txt", "2 of 4 repetitions given earlier in this import:
// repetitions 1-2 of b.txt"; "" when there are none.
std::string duplicateBlocksText(const std::vector<CheckedBlock>& blocks, const std::vector<BlockOrigin>& origins,
                                bool summaries);

// When every block is stored already: "every repetition of out.txt is already stored (run 3
// 'vanilla')".
std::string everyBlockStoredText(const std::vector<CheckedBlock>& blocks, const std::vector<BlockOrigin>& origins,
                                 bool summaries);

}  // namespace nf::data
