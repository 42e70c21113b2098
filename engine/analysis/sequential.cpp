#include "engine/analysis/sequential.h"

#include <fmt/format.h>
#include <algorithm>
#include <boost/math/distributions/normal.hpp>
#include <cmath>

namespace nf::engine {

namespace {

double pct(double logRatio)
{
    return std::expm1(logRatio) * 100;
}

}  // namespace

std::string sequentialMethod(const SequentialOptions& o)
{
    return fmt::format(
        "confidence sequence (normal mixture, running variance; Howard et al. 2021, Waudby-Smith et al. 2024) "
        "on the mean per-unit log ratio, {:g}% time-uniform, {}, no decision before {} units",
        (1 - o.alpha) * 100,
        o.plannedUnits > 0 ? fmt::format("tightest at {} units", o.plannedUnits)
                           : std::string("tightest where the warm-up's spread detects the margin"),
        o.warmupUnits);
}

double normalMixturePrecision(double plannedUnits, double alpha)
{
    const double l = -2 * std::log(alpha);
    return std::sqrt((l + std::log1p(l)) / plannedUnits);
}

double normalMixtureHalfWidth(double t, double sd, double precision, double alpha)
{
    const double r2 = precision * precision;
    const double v = t * r2 + 1;
    return sd * std::sqrt(v / (t * t * r2) * (std::log(v) - 2 * std::log(alpha)));
}

ConfidenceSequence::ConfidenceSequence(SequentialOptions options)
    : m_options(options),
      m_planned(static_cast<double>(std::max<std::size_t>(
          1, options.plannedUnits > 0 ? options.plannedUnits : std::max<std::size_t>(2, options.warmupUnits)))),
      m_precision(normalMixturePrecision(m_planned, options.alpha))
{
}

void ConfidenceSequence::add(double x)
{
    if (!std::isfinite(x)) {
        return;
    }
    ++m_n;
    const double delta = x - m_mean;
    m_mean += delta / static_cast<double>(m_n);
    m_m2 += delta * (x - m_mean);
    if (m_options.plannedUnits == 0 && m_n == std::max<std::size_t>(2, m_options.warmupUnits)) {
        // t* once, from the warm-up: the fixed design's n for an effect of the margin at 80% power.
        const boost::math::normal_distribution<double> z;
        const double sd = std::sqrt(m_m2 / (static_cast<double>(m_n) - 1));
        const double effect = std::log1p(std::min(m_options.marginPct, 99.0) / 100);
        const double n = std::pow(
            (boost::math::quantile(z, 1 - m_options.alpha / 2) + boost::math::quantile(z, 0.8)) * sd / effect, 2);
        m_planned = std::clamp(std::isfinite(n) ? n : 1e9, static_cast<double>(m_n), 1e9);
        m_precision = normalMixturePrecision(m_planned, m_options.alpha);
    }
}

SequentialLook ConfidenceSequence::look() const
{
    SequentialLook l;
    l.units = m_n;
    if (m_n == 0) {
        return l;
    }
    l.estimatePct = pct(m_mean);
    if (m_n < 2) {
        return l;
    }
    const double t = static_cast<double>(m_n);
    l.sdLog = std::sqrt(m_m2 / (t - 1));
    const double half = normalMixtureHalfWidth(t, l.sdLog, m_precision, m_options.alpha);
    l.ci = {pct(m_mean - half), pct(m_mean + half)};
    if (m_n < m_options.warmupUnits) {
        return l;
    }
    const bool inside = l.ci.low > -m_options.marginPct && l.ci.high < m_options.marginPct;
    if (l.ci.low > 0 || l.ci.high < 0) {
        l.decision = inside ? Verdict::Negligible : Verdict::Different;
    } else if (l.ci.low > -m_options.marginPct && l.ci.high < m_options.marginPct) {
        l.decision = Verdict::Equivalent;
    }
    return l;
}

std::optional<double> ConfidenceSequence::unitsStillNeeded() const
{
    if (m_n < 2) {
        return std::nullopt;
    }
    const double sd = std::sqrt(m_m2 / (static_cast<double>(m_n) - 1));
    // The half-width (log units) that decides at the current estimate: below |mean| it excludes 0;
    // below the distance to the nearer margin (in log units) it lies inside the margin.
    const double toZero = std::fabs(m_mean);
    const double m = m_options.marginPct / 100;
    const double toMargin = m < 1 ? std::min(std::log1p(m) - m_mean, m_mean - std::log1p(-m)) : 0;
    const double gap = std::max(toZero, toMargin);
    if (!(gap > 0)) {
        return std::nullopt;
    }
    if (!(sd > 0)) {
        return static_cast<double>(m_n < m_options.warmupUnits ? m_options.warmupUnits - m_n : 0);
    }
    const auto decides = [&](double t) { return normalMixtureHalfWidth(t, sd, m_precision, m_options.alpha) < gap; };
    double hi = std::max(2.0, static_cast<double>(m_n));
    while (!decides(hi)) {
        hi *= 2;
        if (hi > 1e15) {
            return std::nullopt;
        }
    }
    double lo = hi / 2;
    while (hi - lo > 1) {
        const double mid = std::floor((lo + hi) / 2);
        (decides(mid) ? hi : lo) = mid;
    }
    const double needed = std::max(hi, static_cast<double>(m_options.warmupUnits));
    return std::max(0.0, needed - static_cast<double>(m_n));
}

}  // namespace nf::engine
