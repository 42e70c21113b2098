#pragma once
// One multiplicity rule for the metrics of one comparison (one candidate against the baseline, in
// one design). The primary metric is the question asked: it is tested at alpha, unadjusted. The
// other metrics are Holm-adjusted among themselves, where metrics that are one quantity in other
// units (bytes/s and pps at a fixed frame size, ns and ticks per op, a rate and its reciprocal)
// count as one hypothesis. Each adjusted metric is then shown at the level at which its interval
// excludes 0 exactly when its adjusted p is below alpha, 1 - alpha p / p_adjusted (1 - alpha / k
// for the smallest of k), so that a shown interval and its verdict never disagree.

#include <cstddef>
#include <functional>
#include <vector>

#include "engine/analysis/comparison.h"

namespace nf::engine {

struct FamilyMember {
    Comparison* result = nullptr;
    std::size_t metric = 0;  // its index among the analysis's metrics
};

// The comparison of `metric` in `design` again (same data) with other options: a wider level.
using CompareAgain = std::function<Comparison(std::size_t metric, Design design, const CompareOptions& options)>;

// Whether two metrics are one quantity: metric -> per variant -> values, in the same order.
using SameQuantity = std::function<bool(std::size_t a, std::size_t b)>;

// Adjusts and decides every member. `holm` false: every metric at alpha, as asked (--no-holm).
void decideFamily(const std::vector<FamilyMember>& family, std::size_t primaryMetric, const CompareOptions& options,
                  bool holm, const SameQuantity& same, const CompareAgain& again);

// Two metrics' values (per variant, in one order) are one quantity: their ratio, or their
// product (a rate and its reciprocal), is the same constant for every value (to 1e-9).
bool oneQuantity(const std::vector<std::vector<double>>& a, const std::vector<std::vector<double>>& b);

}  // namespace nf::engine
