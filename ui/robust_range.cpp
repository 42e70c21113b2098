#include "ui/robust_range.h"

#include <algorithm>

namespace nf::ui {

namespace {

double at(std::vector<double>& sorted, double q)
{
    const auto i = static_cast<std::ptrdiff_t>(std::floor(q * static_cast<double>(sorted.size() - 1)));
    std::nth_element(sorted.begin(), sorted.begin() + i, sorted.end());
    return sorted[static_cast<std::size_t>(i)];
}

}  // namespace

RobustRange robustRange(std::vector<double> values)
{
    values.erase(std::remove_if(values.begin(), values.end(), [](double v) { return !std::isfinite(v); }),
                 values.end());
    if (values.empty()) {
        return {};
    }
    const auto [lo, hi] = std::minmax_element(values.begin(), values.end());
    const double min = *lo;
    const double max = *hi;
    const double q1 = at(values, 0.25);
    const double q3 = at(values, 0.75);
    const double iqr = q3 - q1;
    return {std::max(min, q1 - 3 * iqr), std::min(max, q3 + 3 * iqr)};
}

}  // namespace nf::ui
