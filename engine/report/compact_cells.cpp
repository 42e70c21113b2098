// The cells of the compact tables (the compact report's, the sweep's): values with an SI suffix,
// the standard deviation in % of the mean, the change with its interval, and the intervals a
// quantity that cannot be negative is shown with.

#include <fmt/format.h>
#include <algorithm>
#include <array>
#include <cmath>

#include "engine/report/evidence.h"
#include "engine/stats/ratio.h"

namespace nf::engine {

namespace {

const VariantStats* statsOf(const Analysis& a, const std::string& variant, const std::string& metric)
{
    const auto it = std::find_if(a.variants.begin(), a.variants.end(),
                                 [&](const VariantStats& v) { return v.variant == variant && v.metric == metric; });
    return it == a.variants.end() ? nullptr : &*it;
}

// "+0.3..+5.0" rather than "-0..+5": a value that rounds to zero gets the decimals its sign needs
// (up to three); one still zero at three is printed unsigned.
std::string signedCell(double v, int decimals)
{
    std::string text = fmt::format("{:+.{}f}", v, decimals);
    if (text.find_first_of("123456789") == std::string::npos) {
        text.erase(0, 1);
    }
    return text;
}

int decimalsForSign(double v, int decimals)
{
    while (decimals < 3 && v != 0 && std::fabs(v) < 0.5 * std::pow(10.0, -decimals)) {
        ++decimals;
    }
    return decimals;
}

std::string shortVerdict(const Comparison& r)
{
    switch (r.verdict) {
        case Verdict::Different: return "different";
        case Verdict::Negligible: return "negligible";
        case Verdict::Equivalent: return "equivalent";
        case Verdict::Invalid: return "invalid";
        case Verdict::Inconclusive: break;
    }
    return "~";
}

}  // namespace

// Four significant digits with an SI suffix: 581.2k, 1.235M, 12.35, 34.09m, 2.500u.
std::string compactValue(double v)
{
    if (!std::isfinite(v)) {
        return "-";
    }
    const double a = std::fabs(v);
    if (a == 0) {
        return "0";
    }
    static constexpr std::pair<double, const char*> kSuffixes[] = {{1e12, "T"}, {1e9, "G"},  {1e6, "M"},  {1e3, "k"},
                                                                   {1, ""},     {1e-3, "m"}, {1e-6, "u"}, {1e-9, "n"}};
    for (const auto& [scale, suffix] : kSuffixes) {
        if (a >= scale * 0.99995) {
            const double x = v / scale;
            const int digits = static_cast<int>(std::floor(std::log10(std::fabs(x) * 1.00005))) + 1;
            return fmt::format("{:.{}f}{}", x, std::clamp(4 - digits, 0, 3), suffix);
        }
    }
    return fmt::format("{:.3e}", v);
}

// The standard deviation in percent of the mean, two significant digits: 0.053, 2.1, 16, 150.
std::string compactSd(const Summary& s)
{
    if (s.n < 2 || !std::isfinite(s.cv)) {
        return "-";
    }
    const double pct = s.cv * 100;
    if (pct == 0) {
        return "0";
    }
    if (pct < 0.001) {
        return "<0.001";
    }
    return pct >= 10 ? fmt::format("{:.0f}", pct) : fmt::format("{:.2g}", pct);
}

PercentInterval heldChangeInterval(const Analysis& a, const MetricComparison& c, bool hold)
{
    PercentInterval ci = c.result.interval.ci;
    if (!hold) {
        return ci;
    }
    const auto* base = statsOf(a, c.baseline, c.metric);
    const auto* cand = statsOf(a, c.candidate, c.metric);
    const bool nonNegative = base != nullptr && cand != nullptr && base->summary.n > 0 && cand->summary.n > 0 &&
                             base->summary.min >= 0 && cand->summary.min >= 0;
    if (nonNegative && std::isfinite(ci.low) && std::isfinite(ci.high) && ci.low < -100) {
        ci.low = -100;
        ci.high = std::max(ci.high, -100.0);
    }
    return ci;
}

namespace {

// The change and its interval in percent, with the decimals one significant digit of the
// interval's width needs (at most three).
std::pair<std::string, std::string> changeCells(const IntervalResult& i, const PercentInterval& ci, bool coarse)
{
    if (!std::isfinite(i.estimatePct)) {
        return {"-", "-"};
    }
    if (!std::isfinite(ci.low) || !std::isfinite(ci.high)) {
        return {fmt::format("{:+.3g}", i.estimatePct), "unbounded"};
    }
    int decimals = 2;
    if (ci.high > ci.low) {
        decimals = std::clamp(-static_cast<int>(std::floor(std::log10((ci.high - ci.low) / 2))), 0, 3);
    }
    if (std::fabs(i.estimatePct) >= 1) {  // at most four significant digits: -99.73, +765
        decimals =
            std::min(decimals, std::max(0, 3 - static_cast<int>(std::floor(std::log10(std::fabs(i.estimatePct))))));
    }
    if (coarse && std::fabs(i.estimatePct) >= 10) {
        decimals = 0;
    }
    for (const double v : {i.estimatePct, ci.low, ci.high}) {
        decimals = decimalsForSign(v, decimals);
    }
    return {signedCell(i.estimatePct, decimals), signedCell(ci.low, decimals) + ".." + signedCell(ci.high, decimals)};
}

}  // namespace

std::array<std::string, 3> compactChange(const Analysis& a, const MetricComparison& c, bool hold, bool coarse)
{
    const auto& i = c.result.interval;
    auto [change, ci] = changeCells(i, heldChangeInterval(a, c, hold), coarse);
    if (i.bounded() && !i.reachesLevel()) {
        ci += "^";
    }
    if (i.bounded() && i.nominalLevel > 1 - a.options.compare.alpha + 1e-12) {
        ci += "h";  // wider: the level that matches its Holm-adjusted p
    }
    return {change, ci, shortVerdict(c.result)};
}

bool intervalOnLogScale(const VariantStats& v)
{
    return v.summary.n >= 2 && v.summary.min >= 0 && std::isfinite(v.summary.mean);
}

std::pair<double, double> textInterval(const VariantStats& v, double alpha)
{
    const auto& s = v.summary;
    if (intervalOnLogScale(v)) {
        if (s.mean == 0) {
            return {0.0, 0.0};
        }
        const auto r = stats::logScaleMeanInterval(s.mean, s.stddev, static_cast<double>(s.n), 1 - alpha);
        return {r.low, r.high};
    }
    return {v.ciLow, v.ciHigh};
}

}  // namespace nf::engine
