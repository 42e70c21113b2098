#include "engine/analysis/layout_factor.h"

#include <fmt/format.h>
#include <algorithm>
#include <cmath>
#include <limits>
#include <map>
#include <utility>

#include "engine/analysis/cell_interval.h"

namespace nf::engine {

namespace {

constexpr double kNaN = std::numeric_limits<double>::quiet_NaN();

struct Cell {
    double sum = 0;
    std::size_t pairs = 0;
};

// The cells with a pair: (baseline placement, candidate placement) -> their pairs' log ratios.
std::map<std::pair<int, int>, Cell> cellsOf(const std::vector<double>& base, const std::vector<double>& cand,
                                            const std::vector<int>& baseLayout, const std::vector<int>& candLayout)
{
    std::map<std::pair<int, int>, Cell> cells;
    const std::size_t n = std::min({base.size(), cand.size(), baseLayout.size(), candLayout.size()});
    for (std::size_t i = 0; i < n; ++i) {
        const bool usable = base[i] > 0 && cand[i] > 0 && std::isfinite(base[i]) && std::isfinite(cand[i]) &&
                            baseLayout[i] >= 0 && candLayout[i] >= 0;
        if (usable) {
            Cell& cell = cells[{baseLayout[i], candLayout[i]}];
            cell.sum += std::log(cand[i] / base[i]);
            ++cell.pairs;
        }
    }
    return cells;
}

// The pairs of each cell, for cellFloor.
std::vector<double> pairCounts(const std::map<std::pair<int, int>, Cell>& cells)
{
    std::vector<double> counts;
    counts.reserve(cells.size());
    for (const auto& [key, cell] : cells) {
        counts.push_back(static_cast<double>(cell.pairs));
    }
    return counts;
}

}  // namespace

Comparison compareAcrossLayouts(const std::vector<double>& base, const std::vector<double>& cand,
                                const std::vector<int>& baseLayout, const std::vector<int>& candLayout, int planned,
                                const CompareOptions& o)
{
    Comparison c;
    c.design = Design::Layouts;
    c.unit = "placement cell";
    c.primaryTest = "t over placement cells";
    c.effectSizeName = "Cohen's d of the cells' log ratios";
    c.layoutsPlanned = static_cast<std::size_t>(std::max(planned, 0));
    const auto cells = cellsOf(base, cand, baseLayout, candLayout);
    const std::size_t floor = cellFloor(pairCounts(cells));
    std::vector<double> means;
    std::size_t pairs = 0;
    std::vector<std::string> thin;
    for (const auto& [key, cell] : cells) {
        const double m = cell.sum / static_cast<double>(cell.pairs);
        const bool leftOut = cell.pairs < floor;
        c.layoutCells.push_back({key.first, key.second, cell.pairs, std::expm1(m) * 100, leftOut});
        if (leftOut) {
            thin.push_back(fmt::format("{}/{} ({} pairs)", key.first, key.second, cell.pairs));
            continue;
        }
        means.push_back(m);
        pairs += cell.pairs;
    }
    if (!thin.empty()) {
        c.warnings.push_back(
            fmt::format("placement cells {} (baseline/candidate placement) left out: fewer than {} "
                        "pairs (a fifth of the median cell's), too few to stand for a placement",
                        fmt::join(thin, ", "), floor));
    }
    c.n = c.nCandidate = means.size();
    c.layoutsMeasured = means.size();
    if (means.size() < 2) {
        c.p = c.pAdjusted = kNaN;
        const std::string why =
            means.empty() ? "no pair with a recorded placement"
                          : "one placement cell measured: the spread between placements needs two (more repetitions)";
        c.interval = noInterval(Design::Layouts, 1 - o.alpha, why);
        c.tost = noInterval(Design::Layouts, 1 - 2 * o.alpha, why);
        if (!means.empty()) {
            c.interval.estimatePct = c.tost.estimatePct = std::expm1(means.front()) * 100;
        }
        c.mdePct = kNaN;
        c.warnings.push_back(why);
        return c;
    }
    const double sd = intervalOverCells(means, Design::Layouts,
                                        "mean of the placement cells' mean log ratios, Student t over the cells", o, c);
    c.layoutSpreadPct = std::expm1(sd) * 100;
    c.levels = fmt::format("{} placement cells of {} pairs{}", means.size(), pairs,
                           c.layoutsMeasured < c.layoutsPlanned
                               ? fmt::format(" (incomplete: {} of {} placements)", c.layoutsMeasured, c.layoutsPlanned)
                               : "");
    if (c.layoutsMeasured < c.layoutsPlanned) {
        c.warnings.push_back(
            fmt::format("incomplete layout design: {} of {} placements measured (give --reps {} or "
                        "more to measure each)",
                        c.layoutsMeasured, c.layoutsPlanned, c.layoutsPlanned));
    }
    return c;
}

}  // namespace nf::engine
