#pragma once
// The tables of the compact report: one line per metric of one candidate against the baseline,
// fitted into 72 columns (compact_table.cpp). Internal to engine/report.

#include <string>
#include <utility>
#include <vector>

#include "engine/analysis/analysis.h"

namespace nf::engine::compact {

inline constexpr std::size_t kWidth = 72;

// One line: cut at a word before the width, marked with "...".
std::string oneLine(const std::string& text);

// One candidate's comparisons against the baseline, the primary metric first.
struct Block {
    std::string candidate;
    std::string baseline;
    std::vector<const MetricComparison*> rows;
};

struct Tables {
    std::vector<std::vector<std::string>> blocks;              // the lines of each block's table
    std::vector<std::pair<std::string, std::string>> renamed;  // a variant's short name and its full one
    bool partialLevel = false;                                 // an interval below the level asked for
    bool holmLevel = false;                                    // an interval wider for Holm's adjustment
};

// Every block laid out alike, within 72 columns: the names as they are where they fit; else metric
// names shortened ("_per_sec" to "/s", perf's own "cs", "migrations" and "faults"), then narrower
// gaps, then changes of 10% or more in whole percents, then long variant names elided in the middle ("basel..build",
// named in full once by the caller), and last metric names elided in the middle too. A name never takes a line of its
// own. `hold`: the change's interval held to the ratio's range (heldChangeInterval).
Tables layOut(const Analysis& a, const std::vector<Block>& blocks, const std::string& primary, bool hold);

}  // namespace nf::engine::compact
