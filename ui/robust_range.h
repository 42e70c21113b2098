#pragma once
// Axis limits for the bulk of a set of samples (no Qt: tested on its own): the quartiles widened by
// three interquartile ranges, never past the data. A value outside is an outlier a plot marks at
// the edge instead of stretching the axis for it.

#include <cmath>
#include <vector>

namespace nf::ui {

struct RobustRange {
    double low = NAN;  // NaN when there are no finite values
    double high = NAN;
    bool holds(double v) const { return v >= low && v <= high; }
};

// Non-finite values are ignored.
RobustRange robustRange(std::vector<double> values);

}  // namespace nf::ui
