#pragma once
// samples.checksum: a 64-bit checksum (xxHash's XXH3) of what a sample row says, so that bytes changed in a database
// file after it was written (a damaged disk, a copy cut short, a hand edit) are found where the
// file's own structure is still sound and SQLite's integrity check passes. It covers the row's
// index, pair, start, duration and value blob, not its repetition id (renumbered by every copy).
// Written with every row from schema 6 on; rows of older files got theirs when upgraded.

#include <sqlite3.h>

#include <cstdint>
#include <optional>
#include <span>

#include "base/result.h"
#include "engine/model/run_data.h"

namespace nf::data {

// The checksum of one samples row; `pair` empty for NULL.
std::int64_t sampleChecksum(std::int64_t index, std::optional<std::int64_t> pair, double start, double duration,
                            std::span<const unsigned char> values);

// The same for a sample as the engine holds it (pair -1: NULL) with its encoded value blob.
inline std::int64_t sampleChecksum(const engine::Sample& sample, std::span<const unsigned char> values)
{
    return sampleChecksum(sample.index, sample.pair >= 0 ? std::optional<std::int64_t>(sample.pair) : std::nullopt,
                          sample.start, sample.duration, values);
}

// Makes the SQL function nf_sample_checksum(idx, pair, start_s, duration_s, vals) on this connection,
// for the migration that fills the column and for checks over an attached database.
Result<void> registerSampleChecksum(sqlite3* db);

}  // namespace nf::data
