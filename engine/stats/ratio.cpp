#include "engine/stats/ratio.h"

#include <boost/math/distributions/normal.hpp>
#include <boost/math/distributions/students_t.hpp>
#include <cmath>

#include "engine/stats/descriptive.h"
#include "engine/stats/hypothesis_tests.h"

namespace nf::engine::stats {

RatioSummary ratioSummary(const std::vector<double>& base, const std::vector<double>& cand)
{
    RatioSummary s;
    s.nB = static_cast<double>(base.size());
    s.nC = static_cast<double>(cand.size());
    if (base.empty() || cand.empty()) {
        return s;
    }
    const double pivot = mean(base);
    const double offsetB = meanDeviation(base, pivot);  // mean(base) - pivot, below one rounding
    const double mB = pivot + offsetB;
    if (mB == 0 || !std::isfinite(mB)) {
        return s;
    }
    s.delta = (meanDeviation(cand, pivot) - offsetB) / mB;
    s.seB = stddev(base) / std::sqrt(s.nB) / std::fabs(mB);
    s.seC = stddev(cand) / std::sqrt(s.nC) / std::fabs(mB);
    return s;
}

RatioSummary ratioSummary(double meanB, double sdB, double nB, double meanC, double sdC, double nC)
{
    RatioSummary s;
    s.nB = nB;
    s.nC = nC;
    if (meanB == 0 || !std::isfinite(meanB)) {
        return s;
    }
    s.delta = (meanC - meanB) / meanB;
    s.seB = sdB / std::sqrt(nB) / std::fabs(meanB);
    s.seC = sdC / std::sqrt(nC) / std::fabs(meanB);
    return s;
}

double fiellerDegreesOfFreedom(const RatioSummary& s)
{
    const double rSeB = std::fabs(1 + s.delta) * s.seB;
    const double h = std::hypot(s.seC, rSeB);
    if (!(h > 0) || !std::isfinite(h)) {
        return std::numeric_limits<double>::quiet_NaN();
    }
    if (std::isfinite(s.df)) {
        return s.df;
    }
    return welchDegreesOfFreedom(s.seC / h, s.nC, rSeB / h, s.nB);
}

RatioInterval fieller(const RatioSummary& s, double level)
{
    RatioInterval r;
    if (!std::isfinite(s.delta)) {
        return r;
    }
    const double q = (1 + level) / 2;
    r.df = fiellerDegreesOfFreedom(s);
    r.t = std::isfinite(r.df) && r.df > 0 ? boost::math::quantile(boost::math::students_t_distribution<double>(r.df), q)
                                          : boost::math::quantile(boost::math::normal_distribution<double>(), q);
    const double ratio = 1 + s.delta;
    const double tSeB = r.t * s.seB;
    const double g = tSeB * tSeB;
    if (!(g < 1)) {
        return r;  // mean(b) is within t standard errors of zero: the set of R is not an interval
    }
    const double half = r.t * std::hypot(s.seC * std::sqrt(1 - g), std::fabs(ratio) * s.seB);
    r.low = (s.delta + g - half) / (1 - g);
    r.high = (s.delta + g + half) / (1 - g);
    r.bounded = std::isfinite(r.low) && std::isfinite(r.high);
    return r;
}

PositiveInterval logScaleMeanInterval(double mean, double sd, double n, double level)
{
    PositiveInterval r;
    if (!(n >= 2) || !(mean > 0) || !std::isfinite(mean) || !(sd >= 0)) {
        return r;
    }
    const double t = boost::math::quantile(boost::math::students_t_distribution<double>(n - 1), (1 + level) / 2);
    const double f = std::exp(t * sd / std::sqrt(n) / mean);
    r.low = mean / f;
    r.high = mean * f;
    return r;
}

}  // namespace nf::engine::stats
