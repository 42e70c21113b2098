#pragma once
// `noisefloor export RUN --format sqlite`: the run as a one-run database (app/cli/merge_command.cpp).

#include <cstdint>
#include <string>

#include "app/cli/signal_stop.h"
#include "data/database.h"

namespace nf::cli {

// Writes run `id` of `db` as a new database file `file` (which must not exist), or to stdout for
// "" or "-"; the exit status.
// A signal that arrived during the copy (`signals`) leaves nothing written.
int exportRunDatabase(data::Database& db, std::int64_t id, const std::string& file, const SignalStop& signals);

}  // namespace nf::cli
