#pragma once
// The text a person reads about one stored run: what ran, where, with which counters, and the
// per-variant summary of every metric. `run` prints it when a run ends; `show` prints it later.

#include <ostream>
#include <string>
#include <vector>

#include "run_store.h"

namespace nf::cli {

// Counters that did not open, grouped by reason: "cycles, instructions (no hardware PMU ...)".
std::vector<std::string> missingCounters(const nlohmann::json& environment);

// What ran, where, with which counters and clock.
void printRunHeader(const data::StoredRun& run, std::ostream& out);
// The header, then the per-variant summary of every metric.
void printRunText(const data::StoredRun& run, const std::string& dbPath, std::ostream& out);

}  // namespace nf::cli
