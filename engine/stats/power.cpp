#include "engine/stats/power.h"

#include <algorithm>
#include <boost/math/distributions/non_central_t.hpp>
#include <boost/math/distributions/normal.hpp>
#include <boost/math/distributions/students_t.hpp>
#include <boost/math/special_functions/gamma.hpp>
#include <cmath>
#include <limits>

#include "engine/stats/hypothesis_tests.h"

namespace nf::engine::stats {

namespace {

constexpr double kNaN = std::numeric_limits<double>::quiet_NaN();
constexpr double kMaxN = 1e12;
// Beyond this many degrees of freedom the t distributions are the normal one to a double's precision.
constexpr double kNormalDf = 1e7;

double normalCdf(double x)
{
    if (std::isinf(x)) {
        return x > 0 ? 1.0 : 0.0;
    }
    return boost::math::cdf(boost::math::normal_distribution<double>(), x);
}

double zQuantile(double p)
{
    return boost::math::quantile(boost::math::normal_distribution<double>(), p);
}

// P(|T| > c) for T noncentral t with `df` degrees of freedom and noncentrality `lambda` >= 0.
double twoSidedNoncentralT(double c, double df, double lambda)
{
    if (std::isinf(c)) {
        return 0;  // no statistic exceeds an infinite critical value
    }
    if (df > kNormalDf) {
        return normalCdf(lambda - c) + normalCdf(-lambda - c);
    }
    if (lambda > 1000) {
        // Boost's series stops working here (it rounds lambda^2 / 2 to an integer). T = (Z + lambda) /
        // sqrt(V / df) stays below c only where sqrt(V / df) exceeds lambda / c (Z is nothing beside
        // lambda): a chi-square tail.
        const double x = df * (lambda / c) * (lambda / c) / 2;
        return x < 1e300 ? 1 - boost::math::gamma_q(df / 2, x) : 1.0;
    }
    const boost::math::non_central_t_distribution<double> t(df, lambda);
    return boost::math::cdf(boost::math::complement(t, c)) + boost::math::cdf(t, -c);
}

}  // namespace

double tQuantile(double p, double df)
{
    // An alpha so small that 1 - alpha / 2 rounds to 1 (a Holm-adjusted level of a tiny p): the
    // quantile is infinite, not an overflow.
    if (p >= 1 || p <= 0) {
        return p >= 1 ? std::numeric_limits<double>::infinity() : -std::numeric_limits<double>::infinity();
    }
    if (df > kNormalDf) {
        return zQuantile(p);
    }
    return boost::math::quantile(boost::math::students_t_distribution<double>(df), p);
}

namespace {

// The smallest integer n in [lo, kMaxN] with ok(n), ok monotone from some n on; lo itself when it
// is; nullopt when none up to kMaxN.
template <class Ok>
std::optional<double> smallestN(double lo, Ok ok)
{
    if (ok(lo)) {
        return lo;
    }
    double below = lo;
    double hi = std::max(2 * lo, lo + 1);
    while (!ok(hi)) {
        below = hi;
        hi *= 2;
        if (hi > kMaxN) {
            return std::nullopt;
        }
    }
    while (hi - below > 1) {
        const double mid = std::floor((below + hi) / 2);
        (ok(mid) ? hi : below) = mid;
    }
    return hi;
}

// The lower boundary of the signed-rank test's rejection region on R+ for n values (the upper one
// is n(n+1)/2 minus it): with the exact null distribution `pmf` of R+ (up to 50 values), the
// largest c with 2 P(R+ <= c) < alpha, plus one half for the continuity correction, or -inf where
// no c is; with the normal approximation (above 50 values) mu0 - z sigma0.
double signedRankLowerBoundary(double n, double alpha, const std::vector<double>& pmf)
{
    if (n <= 50) {
        double cdf = 0;
        double boundary = -std::numeric_limits<double>::infinity();
        for (std::size_t c = 0; c < pmf.size(); ++c) {
            cdf += pmf[c];
            if (!(2 * cdf < alpha)) {
                break;
            }
            boundary = static_cast<double>(c) + 0.5;
        }
        return boundary;
    }
    const double mu0 = n * (n + 1) / 4;
    const double sigma0 = std::sqrt(n * (n + 1) * (2 * n + 1) / 24);
    return mu0 - zQuantile(1 - alpha / 2) * sigma0;
}

double signedRankLowerBoundary(double n, double alpha)
{
    return signedRankLowerBoundary(n, alpha,
                                   n <= 50 ? signedRankPmf(static_cast<std::size_t>(n)) : std::vector<double>{});
}

// The standard errors of the two means over their larger per-value standard deviation `scale`,
// so that nothing is squared in the values' own units (1e150 would overflow).
struct WelchScale {
    double scale = 0;
    double se = 0;  // of the difference, in units of `scale`
    double df = 0;
};

WelchScale welchScale(double sdA, double na, double sdB, double nb)
{
    WelchScale w;
    w.scale = std::max(sdA, sdB);
    if (!(w.scale > 0) || !std::isfinite(w.scale)) {
        return w;
    }
    const double a = sdA / w.scale / std::sqrt(na);
    const double b = sdB / w.scale / std::sqrt(nb);
    w.se = std::hypot(a, b);
    w.df = welchDegreesOfFreedom(a / w.se, na, b / w.se, nb);
    return w;
}

}  // namespace

double welchPower(double effect, double sdA, double na, double sdB, double nb, double alpha)
{
    const auto w = welchScale(sdA, na, sdB, nb);
    if (!(w.se > 0)) {
        return effect != 0 ? 1.0 : alpha;
    }
    const double lambda = std::fabs(effect) / w.scale / w.se;
    if (!std::isfinite(lambda)) {
        return 1;
    }
    return twoSidedNoncentralT(tQuantile(1 - alpha / 2, w.df), w.df, lambda);
}

double tTestPower(double lambda, double df, double alpha)
{
    if (!(df > 0) || std::isnan(lambda)) {
        return kNaN;
    }
    return twoSidedNoncentralT(tQuantile(1 - alpha / 2, df), df, std::fabs(lambda));
}

double tTestDetectableNoncentrality(double df, double alpha, double power)
{
    if (!(df > 0)) {
        return kNaN;
    }
    const double c = tQuantile(1 - alpha / 2, df);
    if (!std::isfinite(c)) {
        return std::numeric_limits<double>::infinity();  // no finite effect reaches such a level
    }
    // By bisection: power grows with the noncentrality.
    double lo = 0;
    double hi = c + zQuantile(power) + 1;
    while (twoSidedNoncentralT(c, df, hi) < power) {
        lo = hi;
        hi *= 2;
    }
    for (int i = 0; i < 200 && hi - lo > 1e-12 * hi; ++i) {
        const double mid = (lo + hi) / 2;
        (twoSidedNoncentralT(c, df, mid) < power ? lo : hi) = mid;
    }
    return hi;
}

double welchDetectable(double sdA, double na, double sdB, double nb, double alpha, double power)
{
    const auto w = welchScale(sdA, na, sdB, nb);
    if (!(w.se > 0)) {
        return std::isfinite(w.scale) ? 0.0 : kNaN;
    }
    return tTestDetectableNoncentrality(w.df, alpha, power) * w.se * w.scale;
}

std::optional<double> welchSampleSize(double effect, double sdA, double sdB, double alpha, double power)
{
    if (!(effect > 0) || !std::isfinite(sdA) || !std::isfinite(sdB)) {
        return std::nullopt;
    }
    return smallestN(2, [&](double n) { return welchPower(effect, sdA, n, sdB, n, alpha) >= power; });
}

SignedRankPower::SignedRankPower(const std::vector<double>& centred)
{
    constexpr std::size_t kKept = 2048;
    const std::size_t n = centred.size();
    if (n <= kKept) {
        m_x = centred;
        return;
    }
    m_x.reserve(kKept);
    for (std::size_t i = 0; i < kKept; ++i) {
        m_x.push_back(centred[(2 * i + 1) * n / (2 * kKept)]);
    }
}

SignedRankPower::Moments SignedRankPower::moments(double theta, double n) const
{
    // With X drawn from the shifted distribution and G(x) = P(x + X > 0) (a tie counting one half):
    // p1 = P(X > 0), p2 = E G(X), p3 = E[1(X > 0) G(X)], p4 = E G(X)^2. R+ counts the positive X_i
    // (mean p1) and the positive sums of two (mean p2); the covariances come from the pairs that
    // share a value.
    const auto k = static_cast<double>(m_x.size());
    if (m_x.empty()) {
        return {};
    }
    auto positive = [](double y) { return y > 0 ? 1.0 : y == 0 ? 0.5 : 0.0; };
    double p1 = 0;
    double p2 = 0;
    double p3 = 0;
    double p4 = 0;
    // G(x_i + theta) = P(X_j > -x_i - 2 theta): the threshold falls as i rises, so two pointers
    // (first value above it, first value not below it) walk down once.
    std::size_t above = m_x.size();
    std::size_t notBelow = m_x.size();
    for (std::size_t i = 0; i < m_x.size(); ++i) {
        const double t = -m_x[i] - 2 * theta;
        while (above > 0 && m_x[above - 1] > t) {
            --above;
        }
        while (notBelow > 0 && m_x[notBelow - 1] >= t) {
            --notBelow;
        }
        const double g = (static_cast<double>(m_x.size() - above) + 0.5 * static_cast<double>(above - notBelow)) / k;
        const double a = positive(m_x[i] + theta);
        p1 += a;
        p2 += g;
        p3 += a * g;
        p4 += g * g;
    }
    p1 /= k;
    p2 /= k;
    p3 /= k;
    p4 /= k;
    const double pairs = n * (n - 1) / 2;
    Moments m;
    m.mean = n * p1 + pairs * p2;
    m.variance = n * p1 * (1 - p1) + pairs * p2 * (1 - p2) + n * (n - 1) * (n - 2) * (p4 - p2 * p2) +
                 2 * n * (n - 1) * (p3 - p1 * p2);
    m.variance = std::max(0.0, m.variance);
    return m;
}

double SignedRankPower::power(double theta, double n, double alpha) const
{
    return powerAt(theta, n, signedRankLowerBoundary(n, alpha));
}

double SignedRankPower::powerAt(double theta, double n, double low) const
{
    if (!std::isfinite(low)) {
        return 0;
    }
    const double high = n * (n + 1) / 2 - low;
    const auto m = moments(theta, n);
    const double sd = std::sqrt(m.variance);
    if (!(sd > 0)) {
        return (m.mean < low ? 1.0 : 0.0) + (m.mean > high ? 1.0 : 0.0);
    }
    return normalCdf((low - m.mean) / sd) + normalCdf((m.mean - high) / sd);
}

double SignedRankPower::detectable(double n, int direction, double alpha, double power) const
{
    const double low = signedRankLowerBoundary(n, alpha);
    if (m_x.empty() || !std::isfinite(low)) {
        return kNaN;
    }
    // Past the widest value every value and sum has the shift's sign: R+ is at its extreme, beyond
    // the boundary, so the power there is 1.
    const double widest = std::max(std::fabs(m_x.front()), std::fabs(m_x.back()));
    if (widest == 0) {
        return 0;
    }
    const double sign = direction < 0 ? -1.0 : 1.0;
    double lo = 0;
    double hi = 2 * widest;
    if (powerAt(sign * lo, n, low) >= power) {
        return 0;
    }
    for (int i = 0; i < 200 && hi - lo > 1e-12 * hi; ++i) {
        const double mid = (lo + hi) / 2;
        (powerAt(sign * mid, n, low) < power ? lo : hi) = mid;
    }
    return hi;
}

std::optional<double> SignedRankPower::sampleSize(double theta, double alpha, double power) const
{
    if (m_x.empty() || theta == 0 || !std::isfinite(theta)) {
        return std::nullopt;
    }
    // Up to 50 values the exact critical values make the power step, not rise smoothly: the first n
    // that reaches it. The null distribution of n values from that of n - 1 (one more rank).
    std::vector<double> counts{1.0};
    for (std::size_t n = 1; n <= 50; ++n) {
        counts.resize(counts.size() + n, 0.0);
        for (std::size_t s = counts.size() - 1; s >= n; --s) {
            counts[s] += counts[s - n];
        }
        std::vector<double> pmf(counts);
        for (auto& p : pmf) {
            p = std::ldexp(p, -static_cast<int>(n));
        }
        const auto nn = static_cast<double>(n);
        if (powerAt(theta, nn, signedRankLowerBoundary(nn, alpha, pmf)) >= power) {
            return nn;
        }
    }
    return smallestN(51, [&](double n) { return this->power(theta, n, alpha) >= power; });
}

}  // namespace nf::engine::stats
