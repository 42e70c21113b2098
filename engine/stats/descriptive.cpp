#include "engine/stats/descriptive.h"

#include <algorithm>
#include <cmath>
#include <numeric>

namespace nf::engine {

double mean(const std::vector<double>& xs)
{
    if (xs.empty()) {
        return 0;
    }
    return std::accumulate(xs.begin(), xs.end(), 0.0) / static_cast<double>(xs.size());
}

double median(std::vector<double> xs)
{
    if (xs.empty()) {
        return 0;
    }
    const auto mid = xs.size() / 2;
    std::nth_element(xs.begin(), xs.begin() + static_cast<std::ptrdiff_t>(mid), xs.end());
    const double upper = xs[mid];
    if (xs.size() % 2 == 1) {
        return upper;
    }
    const double lower = *std::max_element(xs.begin(), xs.begin() + static_cast<std::ptrdiff_t>(mid));
    return (lower + upper) / 2;
}

double stddev(const std::vector<double>& xs)
{
    if (xs.size() < 2) {
        return 0;
    }
    const double m = mean(xs);
    double ss = 0;
    for (double x : xs) {
        ss += (x - m) * (x - m);
    }
    return std::sqrt(ss / static_cast<double>(xs.size() - 1));
}

Summary summarize(const std::vector<double>& xs)
{
    Summary s;
    s.n = xs.size();
    if (xs.empty()) {
        return s;
    }
    s.mean = mean(xs);
    s.median = median(xs);
    s.stddev = stddev(xs);
    s.cv = s.mean != 0 ? s.stddev / std::fabs(s.mean) : 0;
    const auto [lo, hi] = std::minmax_element(xs.begin(), xs.end());
    s.min = *lo;
    s.max = *hi;
    return s;
}

}  // namespace nf::engine
