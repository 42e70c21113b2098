#pragma once
// `noisefloor export RUN --format sqlite`: the run as a one-run database (app/cli/merge_command.cpp).

#include <cstdint>
#include <nlohmann/json.hpp>
#include <optional>
#include <string>
#include <utility>

#include "app/cli/signal_stop.h"
#include "data/database.h"

namespace nf::cli {

// Writes run `id` of `db` as a new database file `file` (which must not exist), or to stdout for
// "" or "-"; the exit status.
// A signal that arrived during the copy (`signals`) leaves nothing written. `section` (a name and
// an object) is set in the copy's environment: what a lab knows of the run (`lava export`).
int exportRunDatabase(data::Database& db, std::int64_t id, const std::string& file, const SignalStop& signals,
                      const std::optional<std::pair<std::string, nlohmann::json>>& section = std::nullopt);

}  // namespace nf::cli
