#include "engine/analysis/cell_interval.h"

#include <algorithm>
#include <boost/math/distributions/students_t.hpp>
#include <cmath>
#include <stdexcept>
#include <utility>

#include "engine/stats/descriptive.h"
#include "engine/stats/hypothesis_tests.h"
#include "engine/stats/power.h"

namespace nf::engine {

namespace {

// Student's t interval of the mean log ratio over the cells, as a percent change.
IntervalResult cellInterval(Design design, const std::string& method, double centre, double se, double df, double level)
{
    IntervalResult r;
    r.design = design;
    r.level = r.nominalLevel = level;
    r.estimatePct = std::expm1(centre) * 100;
    r.method = method;
    if (!(se >= 0) || !std::isfinite(se)) {
        r.note = "the cells' spread is not finite";
        return r;
    }
    // A Holm-adjusted level can be 1 - 1e-300 (a tiny p in a group whose p is larger): its tail
    // rounds to 0 and the quantile to infinity, an unbounded interval, not an overflow.
    const double tail = (1 - level) / 2;
    if (!(tail > 0)) {
        r.note = "the level leaves no tail: unbounded";
        return r;
    }
    double t = 0;
    try {
        t = boost::math::quantile(boost::math::complement(boost::math::students_t(df), tail));
    } catch (const std::overflow_error&) {
        r.note = "the level leaves no tail: unbounded";
        return r;
    }
    r.ci.low = std::expm1(centre - t * se) * 100;
    r.ci.high = std::expm1(centre + t * se) * 100;
    return r;
}

}  // namespace

std::size_t cellFloor(std::vector<double> pairsPerCell)
{
    return pairsPerCell.empty() ? 0 : static_cast<std::size_t>(median(std::move(pairsPerCell)) / 5);
}

double intervalOverCells(const std::vector<double>& cellLogRatios, Design design, const std::string& method,
                         const CompareOptions& o, Comparison& c)
{
    const auto k = static_cast<double>(cellLogRatios.size());
    const double centre = mean(cellLogRatios);
    const double sd = stddev(cellLogRatios);
    const double se = sd / std::sqrt(k);
    c.interval = cellInterval(design, method, centre, se, k - 1, 1 - o.alpha);
    c.tost = cellInterval(design, method, centre, se, k - 1, 1 - 2 * o.alpha);
    const auto t = stats::oneSampleT(cellLogRatios);
    c.pPairedT = t.p;
    c.p = c.pAdjusted = t.p;
    c.direction = centre > 0 ? 1 : centre < 0 ? -1 : 0;
    c.effectSize = sd > 0 ? centre / sd : std::nan("");
    // What the cells can detect: the t test's noncentrality at `power`, times the standard error;
    // more data means more cells, not more pairs in each.
    c.mdePct = std::expm1(stats::tTestDetectableNoncentrality(k - 1, o.alpha, o.power) * se) * 100;
    c.targetPct = o.targetPct.value_or(std::fabs(c.interval.estimatePct));
    if (c.targetPct > 0 && sd > 0) {
        const double effect = std::log1p(c.targetPct / 100);
        for (long count = 2; count <= 1000000; count = std::max(count + 1, count * 21 / 20)) {
            const auto n = static_cast<double>(count);
            if (stats::tTestPower(effect / (sd / std::sqrt(n)), n - 1, o.alpha) >= o.power) {
                c.nNeeded = n;
                break;
            }
        }
    }
    return sd;
}

}  // namespace nf::engine
