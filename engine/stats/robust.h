#pragma once
// Robust estimators: the median absolute deviation, outliers by modified z-score, the
// Hodges-Lehmann estimate with its distribution-free interval, and Spearman's rank correlation.

#include <cstddef>
#include <cstdint>
#include <utility>
#include <vector>

namespace nf::engine::stats {

// Median absolute deviation from the median (not scaled).
double mad(const std::vector<double>& xs);

// Indices of values whose modified z-score 0.6745 * (x - median) / MAD exceeds `threshold` in
// magnitude (Iglewicz and Hoaglin, 1993; 3.5 by default). Where MAD is 0 the mean absolute
// deviation scaled by 1.2533 takes its place; where both are 0 nothing is an outlier.
std::vector<std::size_t> outliers(const std::vector<double>& xs, double threshold = 3.5);

struct LocationEstimate {
    double estimate = 0;  // Hodges-Lehmann: median of the Walsh averages (x_i + x_j) / 2, i <= j
    double low = 0;       // distribution-free interval from the signed-rank distribution
    double high = 0;
    double confidence = 0;  // the coverage the interval has: at least the one asked for, unless n
                            // is too small for any interval to reach it (then that of min..max)
};

// The one-sample Hodges-Lehmann estimate of d's centre and its `confidence` interval
// [W_(k), W_(N+1-k)] over the N sorted Walsh averages, with k from the exact signed-rank
// distribution for n <= 50 and its normal approximation above. When no k reaches `confidence`
// (n <= 5 at 95%, n <= 4 at 90%) the interval is min..max and `confidence` says what it has. Runs in O(n log n)
// memory-light selection, so it serves a million values.
LocationEstimate hodgesLehmann(const std::vector<double>& d, double confidence);

// Order statistics of the Walsh averages of one sorted sample. Remembers every count it takes,
// so a selection near an earlier one (the interval bounds around the estimate) starts from a tight
// bracket. `sorted` must outlive it.
class WalshSelector {
public:
    explicit WalshSelector(const std::vector<double>& sorted);
    double select(double k);  // the k-th smallest, 1-based
    std::size_t size() const { return m_sorted.size(); }

private:
    std::uint64_t count(double t);
    const std::vector<double>& m_sorted;
    std::vector<std::pair<double, std::uint64_t>> m_known;  // (t, averages <= t)
};

// The same over a sample already sorted; without `withEstimate` only the interval.
LocationEstimate hodgesLehmannSorted(WalshSelector& selector, double confidence, bool withEstimate);

// The k-th smallest (1-based) Walsh average of `sorted` (ascending).
double walshAverage(const std::vector<double>& sorted, double k);

struct Correlation {
    double rho = 0;
    double p = 1;  // two-sided, t approximation with n - 2 degrees of freedom (as SciPy)
};

// Spearman's rank correlation of x and y.
Correlation spearman(const std::vector<double>& x, const std::vector<double>& y);

}  // namespace nf::engine::stats
