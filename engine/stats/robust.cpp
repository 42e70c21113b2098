#include "engine/stats/robust.h"

#include <algorithm>
#include <boost/math/distributions/normal.hpp>
#include <cmath>
#include <limits>
#include <numeric>

#include "engine/stats/descriptive.h"
#include "engine/stats/hypothesis_tests.h"

namespace nf::engine::stats {

namespace {

// Walsh averages (x_i + x_j) / 2, i <= j, that are <= t: two pointers over sorted x.
std::uint64_t countAtMost(const std::vector<double>& x, double t)
{
    std::uint64_t count = 0;
    std::size_t j = x.size();
    for (std::size_t i = 0; i < x.size(); ++i) {
        // largest j >= i with x_i + x_j <= 2t; j only moves left as i moves right
        while (j > i && x[i] + x[j - 1] > 2 * t) {
            --j;
        }
        if (j <= i) {
            break;
        }
        count += j - i;
    }
    return count;
}

// The largest Walsh average that is <= t.
double largestAtMost(const std::vector<double>& x, double t)
{
    double best = -std::numeric_limits<double>::infinity();
    std::size_t j = x.size();
    for (std::size_t i = 0; i < x.size(); ++i) {
        while (j > i && x[i] + x[j - 1] > 2 * t) {
            --j;
        }
        if (j <= i) {
            break;
        }
        best = std::max(best, (x[i] + x[j - 1]) / 2);
    }
    return best;
}

}  // namespace

double mad(const std::vector<double>& xs)
{
    if (xs.empty()) {
        return 0;
    }
    const double m = median(xs);
    std::vector<double> dev(xs.size());
    std::transform(xs.begin(), xs.end(), dev.begin(), [m](double x) { return std::fabs(x - m); });
    return median(std::move(dev));
}

std::vector<std::size_t> outliers(const std::vector<double>& xs, double threshold)
{
    std::vector<std::size_t> out;
    if (xs.size() < 3) {
        return out;
    }
    const double m = median(xs);
    double scale = mad(xs) / 0.6745;
    if (scale == 0) {
        double meanAbs = 0;
        for (double x : xs) {
            meanAbs += std::fabs(x - m);
        }
        scale = 1.253314 * meanAbs / static_cast<double>(xs.size());
    }
    if (scale == 0) {
        return out;
    }
    for (std::size_t i = 0; i < xs.size(); ++i) {
        if (std::fabs(xs[i] - m) / scale > threshold) {
            out.push_back(i);
        }
    }
    return out;
}

WalshSelector::WalshSelector(const std::vector<double>& sorted) : m_sorted(sorted) {}

std::uint64_t WalshSelector::count(double t)
{
    const std::uint64_t c = countAtMost(m_sorted, t);
    m_known.emplace_back(t, c);
    return c;
}

double WalshSelector::select(double k)
{
    const std::vector<double>& sorted = m_sorted;
    const auto target = static_cast<std::uint64_t>(k);
    double lo = sorted.front();
    double hi = sorted.back();
    std::uint64_t below = 0;
    std::uint64_t atHi = static_cast<std::uint64_t>(sorted.size()) * (sorted.size() + 1) / 2;
    bool haveLo = false;
    // Start from the tightest bracket the counts taken so far give.
    for (const auto& [t, c] : m_known) {
        if (c < target && (!haveLo || t > lo)) {
            lo = t;
            below = c;
            haveLo = true;
        } else if (c >= target && t < hi) {
            hi = t;
            atHi = c;
        }
    }
    if (!haveLo) {
        below = count(lo);  // averages <= the smallest value
        if (below >= target) {
            return lo;
        }
    }
    // Invariant: fewer than k averages are <= lo, at least k are <= hi. Narrow the bracket until it
    // holds few enough averages to list, then select among them. The steps solve count(t) = k by
    // the Illinois variant of regula falsi (superlinear on the smooth count of a large sample),
    // halving when it stalls.
    const std::uint64_t few = sorted.size() + 64;
    const auto goal = static_cast<double>(target);
    double fLo = static_cast<double>(below) - goal;  // < 0
    double fHi = static_cast<double>(atHi) - goal;   // >= 0
    int side = 0;
    for (int i = 0; i < 200 && atHi - below > few; ++i) {
        const std::uint64_t before = atHi - below;
        double t = (lo * fHi - hi * fLo) / (fHi - fLo);
        if (!(t > lo && t < hi) || i % 8 == 7) {
            t = lo + (hi - lo) / 2;  // every eighth step halves, whatever the interpolation says
        }
        if (t <= lo || t >= hi) {
            break;  // lo and hi are adjacent doubles
        }
        const std::uint64_t at = count(t);
        if (at >= target) {
            hi = t;
            atHi = at;
            fHi = static_cast<double>(at) - goal;
            fLo = side == 1 ? fLo / 2 : fLo;
            side = 1;
        } else {
            lo = t;
            below = at;
            fLo = static_cast<double>(at) - goal;
            fHi = side == -1 ? fHi / 2 : fHi;
            side = -1;
        }
        const bool tiny = hi - lo <= 1e-9 * std::max({std::fabs(lo), std::fabs(hi), 1e-300});
        if (atHi - below > few && (atHi - below == before || tiny)) {
            // A block of equal averages straddles rank k: if the largest average <= hi has fewer
            // than k below it, it is the answer; else continue below it.
            const double w = largestAtMost(sorted, hi);
            const double belowW = std::nextafter(w, -std::numeric_limits<double>::infinity());
            const std::uint64_t less = count(belowW);
            if (less < target) {
                return w;
            }
            hi = belowW;
            atHi = less;
            fHi = static_cast<double>(less) - goal;
        }
    }
    if (atHi - below > few) {
        return largestAtMost(sorted, hi);  // the bracket shrank to adjacent doubles: hi is the value
    }
    // The averages in (lo, hi]: for each i, the j >= i with lo < (x_i + x_j) / 2 <= hi.
    std::vector<double> inside;
    inside.reserve(static_cast<std::size_t>(atHi - below));
    const std::size_t n = sorted.size();
    std::size_t jLow = n;   // first j with x_i + x_j > 2 lo (moves left as i grows)
    std::size_t jHigh = n;  // first j with x_i + x_j > 2 hi
    for (std::size_t i = 0; i < n; ++i) {
        while (jLow > i && sorted[i] + sorted[jLow - 1] > 2 * lo) {
            --jLow;
        }
        while (jHigh > i && sorted[i] + sorted[jHigh - 1] > 2 * hi) {
            --jHigh;
        }
        for (std::size_t j = std::max(jLow, i); j < jHigh; ++j) {
            inside.push_back((sorted[i] + sorted[j]) / 2);
        }
    }
    const auto rank = static_cast<std::ptrdiff_t>(target - below - 1);
    std::nth_element(inside.begin(), inside.begin() + rank, inside.end());
    return inside[static_cast<std::size_t>(rank)];
}

double walshAverage(const std::vector<double>& sorted, double k)
{
    return WalshSelector(sorted).select(k);
}

LocationEstimate hodgesLehmann(const std::vector<double>& d, double confidence)
{
    std::vector<double> sorted = d;
    std::sort(sorted.begin(), sorted.end());
    WalshSelector selector(sorted);
    return hodgesLehmannSorted(selector, confidence, true);
}

LocationEstimate hodgesLehmannSorted(WalshSelector& selector, double confidence, bool withEstimate)
{
    LocationEstimate e;
    const std::size_t n = selector.size();
    if (n == 0) {
        e.estimate = e.low = e.high = std::numeric_limits<double>::quiet_NaN();
        return e;
    }
    const double total = static_cast<double>(n) * static_cast<double>(n + 1) / 2;
    const auto half = static_cast<std::uint64_t>(total) / 2;
    if (withEstimate) {
        e.estimate =
            static_cast<std::uint64_t>(total) % 2 == 1
                ? selector.select(static_cast<double>(half + 1))
                : (selector.select(static_cast<double>(half)) + selector.select(static_cast<double>(half + 1))) / 2;
    }

    const double alpha = 1 - confidence;
    double k = 1;
    if (n <= 50) {
        // largest k with P(V <= k - 1) <= alpha / 2
        auto cdf = signedRankPmf(n);
        std::partial_sum(cdf.begin(), cdf.end(), cdf.begin());
        std::size_t kk = 0;
        while (kk < cdf.size() && cdf[kk] <= alpha / 2) {
            ++kk;
        }
        // With kk = 0 no k reaches the level: k = 1 gives the widest interval, min..max of the
        // Walsh averages, whose coverage 1 - 2 P(V = 0) = 1 - 2^(1-n) is below the one asked for.
        k = std::max<double>(1, static_cast<double>(kk));
        e.confidence = 1 - 2 * cdf[static_cast<std::size_t>(k) - 1];
    } else {
        const double nn = static_cast<double>(n);
        const double z = boost::math::quantile(boost::math::normal_distribution<double>(), 1 - alpha / 2);
        k = std::max(1.0, std::floor(total / 2 - z * std::sqrt(nn * (nn + 1) * (2 * nn + 1) / 24)));
        e.confidence = confidence;
    }
    e.low = selector.select(k);
    e.high = selector.select(total + 1 - k);
    return e;
}

Correlation spearman(const std::vector<double>& x, const std::vector<double>& y)
{
    Correlation c;
    const std::size_t n = x.size();
    if (n < 3 || y.size() != n) {
        c.p = std::numeric_limits<double>::quiet_NaN();
        return c;
    }
    const auto rx = midranks(x);
    const auto ry = midranks(y);
    const double mx = mean(rx);
    const double my = mean(ry);
    double sxy = 0;
    double sxx = 0;
    double syy = 0;
    for (std::size_t i = 0; i < n; ++i) {
        sxy += (rx[i] - mx) * (ry[i] - my);
        sxx += (rx[i] - mx) * (rx[i] - mx);
        syy += (ry[i] - my) * (ry[i] - my);
    }
    if (sxx == 0 || syy == 0) {
        c.rho = std::numeric_limits<double>::quiet_NaN();
        c.p = std::numeric_limits<double>::quiet_NaN();
        return c;
    }
    c.rho = sxy / std::sqrt(sxx * syy);
    const double df = static_cast<double>(n - 2);
    if (std::fabs(c.rho) >= 1) {
        c.p = 0;
        return c;
    }
    const double t = c.rho * std::sqrt(df / ((1 - c.rho) * (1 + c.rho)));
    c.p = twoSidedT(t, df);
    return c;
}

}  // namespace nf::engine::stats
