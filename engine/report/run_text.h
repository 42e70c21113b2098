#pragma once
// The text a person reads about one stored run: what ran, where, with which counters, and the
// per-variant summary of every metric. `run` prints it when a run ends; `show` prints it later.

#include <cstdint>
#include <optional>
#include <ostream>
#include <string>
#include <vector>

#include "engine/model/run_record.h"

namespace nf::engine {

// A variant's hot code as recorded with the run (CallLoop::hotCode sized from the ELF symbol
// table): total bytes and the delta against the first variant that has a size.
struct CodeSize {
    std::string variant;
    std::optional<std::uint64_t> bytes;  // unset: not recorded, or `error`
    std::optional<std::int64_t> deltaBytes;
    nlohmann::json symbols;  // [{name, bytes}]
    std::string error;
};
std::vector<CodeSize> codeSizes(const RunRecord& run);

// What ran, where, with which counters and clock.
void printRunHeader(const RunRecord& run, std::ostream& out);
// The header, then the per-variant summary of every metric.
void printRunText(const RunRecord& run, const std::string& dbPath, std::ostream& out);

}  // namespace nf::engine
