#include "engine/analysis/boot_sequence.h"

#include <cmath>
#include <numbers>

#include "engine/stats/descriptive.h"
#include "engine/stats/power.h"

namespace nf::engine {
namespace {

double pct(double logRatio)
{
    return std::expm1(logRatio) * 100;
}

double halfWidth(std::size_t pairs, double sd, double alpha)
{
    const double n = static_cast<double>(pairs);
    return stats::tQuantile(1 - bootLookAlpha(pairs, alpha) / 2, n - 1) * sd / std::sqrt(n);
}

Verdict decide(const PercentInterval& ci, double marginPct)
{
    const bool inside = ci.low > -marginPct && ci.high < marginPct;
    if (ci.low > 0 || ci.high < 0) {
        return inside ? Verdict::Negligible : Verdict::Different;
    }
    return inside ? Verdict::Equivalent : Verdict::Inconclusive;
}

std::optional<std::size_t> stillNeeded(std::size_t pairs, double mean, double sd, double alpha, double marginPct)
{
    const double m = marginPct / 100;
    const double toMargin = m < 1 ? std::min(std::log1p(m) - mean, mean - std::log1p(-m)) : 0;
    const double gap = std::max(std::fabs(mean), toMargin);
    if (!(gap > 0) || !(sd >= 0)) {
        return std::nullopt;
    }
    // The half-width shrinks with n (the t quantile at alpha_k grows like sqrt(ln n)): doubling,
    // then bisection.
    const auto decides = [&](std::size_t n) { return halfWidth(n, sd, alpha) < gap; };
    std::size_t hi = std::max<std::size_t>(pairs, 2);
    while (!decides(hi)) {
        hi *= 2;
        if (hi > (std::size_t{1} << 24)) {
            return std::nullopt;
        }
    }
    std::size_t lo = hi / 2;
    while (hi - lo > 1) {
        const std::size_t mid = lo + (hi - lo) / 2;
        (decides(mid) ? hi : lo) = mid;
    }
    return hi > pairs ? hi - pairs : 0;
}

}  // namespace

double bootLookAlpha(std::size_t pairs, double alpha)
{
    const double k = pairs < 2 ? 1.0 : static_cast<double>(pairs - 1);
    return 6 * alpha / (std::numbers::pi * std::numbers::pi * k * k);
}

BootLook lookAcrossBoots(const std::vector<double>& pairLogRatios, double alpha, double marginPct)
{
    std::vector<double> x;
    for (double v : pairLogRatios) {
        if (std::isfinite(v)) {
            x.push_back(v);
        }
    }
    BootLook look;
    look.pairs = x.size();
    if (x.empty()) {
        return look;
    }
    const double m = mean(x);
    look.estimatePct = pct(m);
    if (x.size() < 2) {
        return look;
    }
    look.sdLog = stddev(x);
    look.alphaLook = bootLookAlpha(x.size(), alpha);
    const double half = halfWidth(x.size(), look.sdLog, alpha);
    look.ci = {pct(m - half), pct(m + half)};
    look.decision = decide(look.ci, marginPct);
    if (look.decision == Verdict::Inconclusive) {
        look.pairsStillNeeded = stillNeeded(x.size(), m, look.sdLog, alpha, marginPct);
    }
    return look;
}

}  // namespace nf::engine
