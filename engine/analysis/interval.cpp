#include "engine/analysis/interval.h"

#include <fmt/format.h>
#include <cmath>

namespace nf::engine {

namespace {

double pct(double logRatio)
{
    return std::expm1(logRatio) * 100;
}

std::string levelPct(double level)
{
    return fmt::format("{:.4g}%", level * 100);
}

}  // namespace

std::string_view toString(Design design)
{
    switch (design) {
        case Design::Paired: return "paired";
        case Design::Independent: return "independent";
        case Design::Layouts: return "placements";
        case Design::Setups: return "setups";
    }
    return "independent";
}

bool IntervalResult::bounded() const
{
    return std::isfinite(ci.low) && std::isfinite(ci.high);
}

bool IntervalResult::reachesLevel() const
{
    return level >= nominalLevel * (1 - 1e-12);
}

IntervalResult noInterval(Design design, double level, std::string note)
{
    IntervalResult r;
    r.design = design;
    r.nominalLevel = level;
    r.method = design == Design::Paired ? "Hodges-Lehmann estimate of the per-pair log ratio, signed-rank interval"
                                        : "ratio of means, Fieller interval (Welch-Satterthwaite df)";
    r.note = std::move(note);
    return r;
}

IntervalResult pairedInterval(stats::WalshSelector& logRatios, double level)
{
    IntervalResult r = noInterval(Design::Paired, level, "");
    if (logRatios.size() == 0) {
        r.note = "no pairs";
        return r;
    }
    const auto hl = stats::hodgesLehmannSorted(logRatios, level, true);
    r.estimatePct = pct(hl.estimate);
    r.ci = {pct(hl.low), pct(hl.high)};
    r.level = hl.confidence;
    if (!r.reachesLevel()) {
        r.note = fmt::format(
            "with {} pairs no signed-rank interval reaches {}: the widest one, from the smallest to the "
            "largest Walsh average, has {}",
            logRatios.size(), levelPct(level), levelPct(r.level));
    }
    return r;
}

IntervalResult independentInterval(const stats::RatioSummary& summary, double level)
{
    IntervalResult r = noInterval(Design::Independent, level, "");
    r.estimatePct = summary.delta * 100;
    const auto f = stats::fieller(summary, level);
    if (!f.bounded) {
        r.note = std::isfinite(summary.delta)
                     ? "the baseline mean is not distinguishable from zero: the interval is unbounded"
                     : "the baseline mean is zero: no ratio";
        return r;
    }
    r.ci = {f.low * 100, f.high * 100};
    r.level = level;
    return r;
}

}  // namespace nf::engine
