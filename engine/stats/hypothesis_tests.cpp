#include "engine/stats/hypothesis_tests.h"

#include <algorithm>
#include <boost/math/distributions/normal.hpp>
#include <boost/math/distributions/students_t.hpp>
#include <cmath>
#include <limits>
#include <numeric>

#include "engine/stats/descriptive.h"

namespace nf::engine::stats {

namespace {

constexpr double kNaN = std::numeric_limits<double>::quiet_NaN();

double normalSf(double z)
{
    if (std::isinf(z)) {
        return z > 0 ? 0.0 : 1.0;
    }
    return boost::math::cdf(boost::math::complement(boost::math::normal_distribution<double>(), z));
}

// P(U = u) for u = 0..n1*n2 under the null, with no ties (f(m, n, k) recursion).
std::vector<double> mannWhitneyPmf(std::size_t n1, std::size_t n2)
{
    // f[j][u]: arrangements of i x's and j y's with U = u, built up over i.
    const std::size_t maxU = n1 * n2;
    std::vector<std::vector<double>> prev(n2 + 1, std::vector<double>(maxU + 1, 0.0));
    for (std::size_t j = 0; j <= n2; ++j) {
        prev[j][0] = 1;  // i = 0: U is always 0
    }
    for (std::size_t i = 1; i <= n1; ++i) {
        std::vector<std::vector<double>> cur(n2 + 1, std::vector<double>(maxU + 1, 0.0));
        cur[0][0] = 1;
        for (std::size_t j = 1; j <= n2; ++j) {
            for (std::size_t u = 0; u <= i * j; ++u) {
                // the largest value is an x (it beats all j y's) or a y
                cur[j][u] = (u >= j ? prev[j][u - j] : 0.0) + cur[j - 1][u];
            }
        }
        prev = std::move(cur);
    }
    std::vector<double> pmf = prev[n2];
    const double total = std::accumulate(pmf.begin(), pmf.end(), 0.0);
    for (auto& p : pmf) {
        p /= total;
    }
    return pmf;
}

}  // namespace

double twoSidedT(double t, double df)
{
    if (!std::isfinite(t)) {
        return std::isnan(t) ? kNaN : 0.0;
    }
    const boost::math::students_t_distribution<double> dist(df);
    return std::min(1.0, 2 * boost::math::cdf(boost::math::complement(dist, std::fabs(t))));
}

double welchDegreesOfFreedom(double wa, double na, double wb, double nb)
{
    // (a + b)^2 / (a^2 / (na - 1) + b^2 / (nb - 1)) for variances a, b, divided through by (a + b)^2
    const double a = wa * wa;
    const double b = wb * wb;
    const double sumSq = a + b;
    const double fa = a / sumSq;
    const double fb = b / sumSq;
    return 1 / (fa * fa / (na - 1) + fb * fb / (nb - 1));
}

std::vector<double> signedRankPmf(std::size_t n)
{
    const std::size_t maxSum = n * (n + 1) / 2;
    std::vector<double> counts(maxSum + 1, 0.0);
    counts[0] = 1;
    for (std::size_t k = 1; k <= n; ++k) {
        for (std::size_t s = maxSum; s >= k; --s) {
            counts[s] += counts[s - k];
        }
    }
    const double total = std::ldexp(1.0, static_cast<int>(n));
    for (auto& c : counts) {
        c /= total;
    }
    return counts;
}

std::vector<double> midranks(const std::vector<double>& xs, double* tieTerm)
{
    std::vector<std::size_t> order(xs.size());
    std::iota(order.begin(), order.end(), 0);
    std::sort(order.begin(), order.end(), [&](std::size_t a, std::size_t b) { return xs[a] < xs[b]; });
    std::vector<double> ranks(xs.size());
    double ties = 0;
    for (std::size_t i = 0; i < order.size();) {
        std::size_t j = i;
        while (j + 1 < order.size() && xs[order[j + 1]] == xs[order[i]]) {
            ++j;
        }
        const double rank = (static_cast<double>(i) + static_cast<double>(j)) / 2 + 1;
        for (std::size_t k = i; k <= j; ++k) {
            ranks[order[k]] = rank;
        }
        const auto t = static_cast<double>(j - i + 1);
        ties += t * t * t - t;
        i = j + 1;
    }
    if (tieTerm != nullptr) {
        *tieTerm = ties;
    }
    return ranks;
}

TestResult welchT(const std::vector<double>& x, const std::vector<double>& y)
{
    TestResult r;
    if (x.size() < 2 || y.size() < 2) {
        r.p = kNaN;
        return r;
    }
    // Scale-free: nothing is squared in the values' own units (1e-100 s would underflow), and the
    // difference of the means is taken from deviations about one pivot, so close means keep their
    // digits.
    const double nx = static_cast<double>(x.size());
    const double ny = static_cast<double>(y.size());
    const double ex = stddev(x) / std::sqrt(nx);  // standard errors of the means
    const double ey = stddev(y) / std::sqrt(ny);
    const double se = std::hypot(ex, ey);
    const double pivot = mean(y);
    r.statistic = (meanDeviation(x, pivot) - meanDeviation(y, pivot)) / se;
    r.df = se > 0 ? welchDegreesOfFreedom(ex / se, nx, ey / se, ny) : 0;
    r.p = se > 0 ? twoSidedT(r.statistic, r.df) : kNaN;
    return r;
}

TestResult welchTFromStats(double nx, double mx, double sx, double ny, double my, double sy)
{
    TestResult r;
    if (nx < 2 || ny < 2) {
        r.p = kNaN;
        return r;
    }
    const double vx = sx * sx / nx;
    const double vy = sy * sy / ny;
    const double se = std::sqrt(vx + vy);
    r.statistic = (mx - my) / se;
    r.df = (vx + vy) * (vx + vy) / (vx * vx / (nx - 1) + vy * vy / (ny - 1));
    r.p = se > 0 ? twoSidedT(r.statistic, r.df) : kNaN;
    return r;
}

TestResult oneSampleT(const std::vector<double>& d)
{
    TestResult r;
    if (d.size() < 2) {
        r.p = kNaN;
        return r;
    }
    const double se = stddev(d) / std::sqrt(static_cast<double>(d.size()));
    r.statistic = mean(d) / se;
    r.df = static_cast<double>(d.size() - 1);
    r.p = se > 0 ? twoSidedT(r.statistic, r.df) : kNaN;
    return r;
}

TestResult mannWhitneyU(const std::vector<double>& x, const std::vector<double>& y)
{
    TestResult r;
    const std::size_t n1 = x.size();
    const std::size_t n2 = y.size();
    if (n1 == 0 || n2 == 0) {
        r.p = kNaN;
        return r;
    }
    std::vector<double> xy = x;
    xy.insert(xy.end(), y.begin(), y.end());
    double tieTerm = 0;
    const auto ranks = midranks(xy, &tieTerm);
    const double r1 = std::accumulate(ranks.begin(), ranks.begin() + static_cast<std::ptrdiff_t>(n1), 0.0);
    const double u1 = r1 - static_cast<double>(n1 * (n1 + 1)) / 2;
    const double u2 = static_cast<double>(n1 * n2) - u1;
    const double u = std::max(u1, u2);
    r.statistic = u1;
    const auto pmf = n1 <= 50 && n2 <= 50 ? mannWhitneyPmf(n1, n2) : std::vector<double>{};
    if (!pmf.empty()) {
        r.minAttainableP = std::min(1.0, 2 * pmf.back());
    }
    if (tieTerm == 0 && !pmf.empty()) {
        r.exact = true;
        double sf = 0;
        for (auto k = static_cast<std::size_t>(u); k < pmf.size(); ++k) {
            sf += pmf[k];
        }
        r.p = std::min(1.0, 2 * sf);
        return r;
    }
    const double n = static_cast<double>(n1 + n2);
    const double mu = static_cast<double>(n1 * n2) / 2;
    const double s = std::sqrt(static_cast<double>(n1 * n2) / 12 * ((n + 1) - tieTerm / (n * (n - 1))));
    r.p = s > 0 ? std::min(1.0, 2 * normalSf((u - mu - 0.5) / s)) : 1.0;
    return r;
}

TestResult wilcoxonSignedRank(const std::vector<double>& d)
{
    std::vector<double> sorted = d;
    std::sort(sorted.begin(), sorted.end());
    return wilcoxonSignedRankSorted(sorted);
}

TestResult wilcoxonSignedRankSorted(const std::vector<double>& sorted)
{
    TestResult r;
    // Negative values ascending by magnitude are the negative prefix read backwards; positive
    // values ascending by magnitude follow the zeros. Merging the two ranks |d| without sorting.
    const auto firstZeroOrPositive = std::lower_bound(sorted.begin(), sorted.end(), 0.0);
    const auto firstPositive = std::upper_bound(firstZeroOrPositive, sorted.end(), 0.0);
    const auto negatives = static_cast<std::size_t>(firstZeroOrPositive - sorted.begin());
    const auto zeros = static_cast<std::size_t>(firstPositive - firstZeroOrPositive);
    const std::size_t n = sorted.size() - zeros;
    if (n == 0) {
        r.p = kNaN;
        return r;
    }
    std::size_t neg = negatives;  // next negative magnitude: sorted[neg - 1]
    auto pos = static_cast<std::size_t>(firstPositive - sorted.begin());
    double rPlus = 0;
    double tieTerm = 0;
    std::size_t rank = 0;  // ranks given so far
    while (neg > 0 || pos < sorted.size()) {
        const double m = std::min(neg > 0 ? -sorted[neg - 1] : std::numeric_limits<double>::infinity(),
                                  pos < sorted.size() ? sorted[pos] : std::numeric_limits<double>::infinity());
        std::size_t tiedNeg = 0;
        std::size_t tiedPos = 0;
        while (neg > 0 && -sorted[neg - 1] == m) {
            --neg;
            ++tiedNeg;
        }
        while (pos < sorted.size() && sorted[pos] == m) {
            ++pos;
            ++tiedPos;
        }
        const auto t = static_cast<double>(tiedNeg + tiedPos);
        const double midrank = static_cast<double>(rank) + (t + 1) / 2;
        rPlus += midrank * static_cast<double>(tiedPos);
        tieTerm += t * t * t - t;
        rank += tiedNeg + tiedPos;
    }
    const double total = static_cast<double>(n * (n + 1)) / 2;
    r.statistic = std::min(rPlus, total - rPlus);
    r.minAttainableP = n <= 1000 ? std::min(1.0, std::ldexp(2.0, -static_cast<int>(n))) : 0.0;
    if (n <= 50 && tieTerm == 0 && zeros == 0) {
        r.exact = true;
        const auto pmf = signedRankPmf(n);
        const auto k = static_cast<std::size_t>(rPlus);
        if (2 * k == pmf.size() - 1) {
            r.p = 1.0;
            return r;
        }
        const double less = std::accumulate(pmf.begin(), pmf.begin() + static_cast<std::ptrdiff_t>(k) + 1, 0.0);
        const double greater = std::accumulate(pmf.begin() + static_cast<std::ptrdiff_t>(k), pmf.end(), 0.0);
        r.p = std::min(1.0, 2 * std::min(less, greater));
        return r;
    }
    const double nn = static_cast<double>(n);
    const double mn = nn * (nn + 1) / 4;
    const double se = std::sqrt((nn * (nn + 1) * (2 * nn + 1) - tieTerm / 2) / 24);
    r.p = se > 0 ? std::min(1.0, 2 * normalSf(std::fabs((r.statistic - mn) / se))) : 1.0;
    // No arrangement of n signs gives a p below 2 / 2^n (all alike), whatever the ties and zeros; the
    // normal approximation can (6 alike and a zero: 0.0277 against 2 / 64 = 0.03125), so it is held
    // there.
    r.p = std::max(r.p, r.minAttainableP);
    return r;
}

namespace {

// The positions of p's values in ascending order, without the NaNs: a hypothesis without a p-value
// (no test possible, e.g. constant zero) is not in the family; NaNs are not counted in m (and `<`
// alone is no strict weak ordering with NaNs, which scrambled the ranks).
std::vector<std::size_t> ascendingTested(const std::vector<double>& p)
{
    std::vector<std::size_t> order;
    for (std::size_t i = 0; i < p.size(); ++i) {
        if (!std::isnan(p[i])) {
            order.push_back(i);
        }
    }
    std::sort(order.begin(), order.end(), [&](std::size_t a, std::size_t b) { return p[a] < p[b]; });
    return order;
}

}  // namespace

std::vector<double> holm(const std::vector<double>& p)
{
    const auto order = ascendingTested(p);
    std::vector<double> adjusted(p);
    double running = 0;
    const auto m = static_cast<double>(order.size());
    for (std::size_t i = 0; i < order.size(); ++i) {
        running = std::max(running, std::min(1.0, (m - static_cast<double>(i)) * p[order[i]]));
        adjusted[order[i]] = running;
    }
    return adjusted;
}

std::vector<double> benjaminiHochberg(const std::vector<double>& p)
{
    const auto order = ascendingTested(p);
    std::vector<double> adjusted(p);
    double running = 1;
    const auto m = static_cast<double>(order.size());
    for (std::size_t i = order.size(); i-- > 0;) {
        running = std::min(running, p[order[i]] * m / static_cast<double>(i + 1));
        adjusted[order[i]] = running;
    }
    return adjusted;
}

}  // namespace nf::engine::stats
