#pragma once
// `noisefloor export RUN --format sqlite`: the run as a one-run database (app/cli/merge_command.cpp).

#include <cstdint>
#include <string>

#include "data/database.h"

namespace nf::cli {

// Writes run `id` of `db` as a new database file `file` (which must not exist), or to stdout for
// "" or "-"; the exit status.
int exportRunDatabase(data::Database& db, std::int64_t id, const std::string& file);

}  // namespace nf::cli
