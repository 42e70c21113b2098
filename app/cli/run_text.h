#pragma once
// The text a person reads about one stored run: what ran, where, with which counters, and the
// per-variant summary of every metric. `run` prints it when a run ends; `show` prints it later.

#include <cstdint>
#include <optional>
#include <ostream>
#include <string>
#include <vector>

#include "run_store.h"

namespace nf::cli {

// Counters that did not open, grouped by reason: "cycles, instructions (no hardware PMU ...)".
std::vector<std::string> missingCounters(const nlohmann::json& environment);

// A variant's hot code as recorded with the run (CallLoop::hotCode sized from the ELF symbol
// table): total bytes and the delta against the first variant that has a size.
struct CodeSize {
    std::string variant;
    std::optional<std::uint64_t> bytes;  // unset: not recorded, or `error`
    std::optional<std::int64_t> deltaBytes;
    nlohmann::json symbols;  // [{name, bytes}]
    std::string error;
};
std::vector<CodeSize> codeSizes(const data::StoredRun& run);

// What ran, where, with which counters and clock.
void printRunHeader(const data::StoredRun& run, std::ostream& out);
// The header, then the per-variant summary of every metric.
void printRunText(const data::StoredRun& run, const std::string& dbPath, std::ostream& out);

}  // namespace nf::cli
