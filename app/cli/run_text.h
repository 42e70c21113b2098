#pragma once
// The text a person reads about one stored run: what ran, where, with which counters, and the
// per-variant summary of every metric. `run` prints it when a run ends; `show` prints it later.

#include <ostream>
#include <string>

#include "run_store.h"

namespace nf::cli {

void printRunText(const data::StoredRun& run, const std::string& dbPath, std::ostream& out);

}  // namespace nf::cli
