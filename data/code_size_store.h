#pragma once
// Code size per label in the store (schema migration 11, tables code_sizes, code_size_sections and
// code_size_rows): written by `noisefloor size --label` and `noisefloor import bloat-o-meter`, read
// by compare, series and the campaign report to print beside the label's performance.

#include <cstdint>
#include <optional>
#include <string>

#include "data/database.h"
#include "engine/model/code_size.h"

namespace nf::data {

// Stores `record` under record.label, replacing what that label had, all or nothing; its id.
// created_at is now (record.createdAt is not read).
Result<std::int64_t> storeCodeSize(Database& db, const engine::CodeSizeRecord& record);

// The code size stored under `label`, or nullopt when it has none (or the database was made before
// code sizes were stored). Campaign code: `auto size = NF_TRY(data::codeSizeFor(db, kernel.name));`
// then engine::codeSizeLine(*size, kernel.name) (engine/report/code_size_report.h) for its line.
Result<std::optional<engine::CodeSizeRecord>> codeSizeFor(Database& db, const std::string& label);

}  // namespace nf::data
