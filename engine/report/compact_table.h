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

// Short names for the names of one column, each within `limit` columns (code points) and telling
// its name apart from every other of `names`: a name that fits stays as it is; a longer one keeps
// its start and end around "..", cut where no other name has both ("rx_br..hes/pkt" and
// "rx_br..ses/pkt" for rx_branches/pkt and rx_branch-misses/pkt, never "rx_bra..es/pkt" for
// either); where no cut does, its start and its place in `names` ("rx_bra#2"). In the order of
// `names`, which must be distinct.
std::vector<std::string> abbreviate(const std::vector<std::string>& names, std::size_t limit);

// One candidate's comparisons against the baseline, the primary metric first.
struct Block {
    std::string candidate;
    std::string baseline;
    std::vector<const MetricComparison*> rows;
};

struct Tables {
    std::vector<std::vector<std::string>> blocks;                     // the lines of each block's table
    std::vector<std::pair<std::string, std::string>> renamed;         // a variant's short name and its full one
    std::vector<std::pair<std::string, std::string>> renamedMetrics;  // the same for a metric cut short
    bool partialLevel = false;                                        // an interval below the level asked for
    bool holmLevel = false;                                           // an interval wider for Holm's adjustment
};

// Every block laid out alike, within 72 columns: the names as they are where they fit; else metric
// names shortened ("_per_sec" to "/s", perf's own "cs", "migrations" and "faults"), then narrower
// gaps, then changes of 10% or more in whole percents, then long variant names cut by abbreviate()
// ("basel..build"), and last metric names cut the same way; the caller names each cut name in full
// once (`renamed`, `renamedMetrics`). A name never takes a line of its own. `hold`: the change's
// interval held to the ratio's range (heldChangeInterval).
Tables layOut(const Analysis& a, const std::vector<Block>& blocks, const std::string& primary, bool hold);

}  // namespace nf::engine::compact
