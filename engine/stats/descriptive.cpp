#include "engine/stats/descriptive.h"

#include <algorithm>
#include <cmath>

namespace nf::engine {

namespace {

// Neumaier's variant of Kahan summation: the rounding error of every addition is kept in `carry`,
// also when the next value is larger than the running sum.
class CompensatedSum {
public:
    void add(double x)
    {
        const double t = m_sum + x;
        m_carry += std::fabs(m_sum) >= std::fabs(x) ? (m_sum - t) + x : (x - t) + m_sum;
        m_sum = t;
    }
    double value() const { return m_sum + m_carry; }

private:
    double m_sum = 0;
    double m_carry = 0;
};

}  // namespace

double sum(const std::vector<double>& xs)
{
    CompensatedSum s;
    for (double x : xs) {
        s.add(x);
    }
    return s.value();
}

double mean(const std::vector<double>& xs)
{
    if (xs.empty()) {
        return 0;
    }
    return sum(xs) / static_cast<double>(xs.size());
}

double meanDeviation(const std::vector<double>& xs, double pivot)
{
    if (xs.empty()) {
        return 0;
    }
    CompensatedSum s;
    for (double x : xs) {
        s.add(x - pivot);
    }
    return s.value() / static_cast<double>(xs.size());
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
    double largest = 0;
    for (double x : xs) {
        largest = std::max(largest, std::fabs(x - m));
    }
    if (largest == 0 || !std::isfinite(largest)) {
        return largest;
    }
    const int e = std::ilogb(largest);  // scaling by 2^-e is exact
    CompensatedSum ss;
    for (double x : xs) {
        const double d = std::ldexp(x - m, -e);
        ss.add(d * d);
    }
    return std::ldexp(std::sqrt(ss.value() / static_cast<double>(xs.size() - 1)), e);
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
