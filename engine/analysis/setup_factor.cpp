#include "engine/analysis/setup_factor.h"

#include <fmt/format.h>
#include <algorithm>
#include <cmath>
#include <limits>
#include <map>
#include <string>
#include <utility>

#include "engine/analysis/cell_interval.h"
#include "engine/stats/descriptive.h"

namespace nf::engine {

namespace {

// The log ratios of each setup's usable pairs.
std::map<int, std::vector<double>> setupsOf(const std::vector<double>& base, const std::vector<double>& cand,
                                            const std::vector<int>& setups)
{
    std::map<int, std::vector<double>> cells;
    const std::size_t n = std::min({base.size(), cand.size(), setups.size()});
    for (std::size_t i = 0; i < n; ++i) {
        if (base[i] > 0 && cand[i] > 0 && std::isfinite(base[i]) && std::isfinite(cand[i]) && setups[i] >= 0) {
            cells[setups[i]].push_back(std::log(cand[i] / base[i]));
        }
    }
    return cells;
}

// The pairs of each setup, for cellFloor.
std::vector<double> pairCounts(const std::map<int, std::vector<double>>& cells)
{
    std::vector<double> counts;
    counts.reserve(cells.size());
    for (const auto& [setup, ratios] : cells) {
        counts.push_back(static_cast<double>(ratios.size()));
    }
    return counts;
}

}  // namespace

Comparison compareAcrossSetups(const std::vector<double>& base, const std::vector<double>& cand,
                               const std::vector<int>& setups, const CompareOptions& o)
{
    Comparison c;
    c.design = Design::Setups;
    c.unit = "setup";
    c.primaryTest = "t over setups";
    c.effectSizeName = "Cohen's d of the setups' log ratios";
    const auto cells = setupsOf(base, cand, setups);
    const std::size_t floor = cellFloor(pairCounts(cells));
    std::vector<double> medians;
    std::size_t pairs = 0;
    std::vector<std::string> thin;
    for (const auto& [setup, ratios] : cells) {
        const double m = median(ratios);
        const bool leftOut = ratios.size() < floor;
        c.setupCells.push_back({setup + 1, ratios.size(), std::expm1(m) * 100, leftOut});
        if (leftOut) {
            thin.push_back(fmt::format("{} ({} pairs)", setup + 1, ratios.size()));
            continue;
        }
        medians.push_back(m);
        pairs += ratios.size();
    }
    if (!thin.empty()) {
        c.warnings.push_back(
            fmt::format("setups {} left out: fewer than {} pairs (a fifth of the median setup's), too "
                        "few to stand for a setup",
                        fmt::join(thin, ", "), floor));
    }
    c.n = c.nCandidate = medians.size();
    if (medians.size() < 2) {
        c.p = c.pAdjusted = std::numeric_limits<double>::quiet_NaN();
        const std::string why = medians.empty() ? "no pair with a recorded setup"
                                                : "one setup measured: the spread between setups needs two (a "
                                                  "repetition with at least as many chunk rounds as variants, or more "
                                                  "repetitions)";
        c.interval = noInterval(Design::Setups, 1 - o.alpha, why);
        c.tost = noInterval(Design::Setups, 1 - 2 * o.alpha, why);
        if (!medians.empty()) {
            c.interval.estimatePct = c.tost.estimatePct = std::expm1(medians.front()) * 100;
        }
        c.mdePct = std::numeric_limits<double>::quiet_NaN();
        c.warnings.push_back(why);
        return c;
    }
    const double sd = intervalOverCells(medians, Design::Setups,
                                        "mean of the setups' median log ratios, Student t over the setups", o, c);
    c.setupSpreadPct = std::expm1(sd) * 100;
    c.levels = fmt::format("{} setups of {} pairs", medians.size(), pairs);
    return c;
}

}  // namespace nf::engine
