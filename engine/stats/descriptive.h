#pragma once
// Descriptive statistics as small pure functions over samples.

#include <cstddef>
#include <vector>

namespace nf::engine {

struct Summary {
    std::size_t n = 0;
    double mean = 0;
    double median = 0;
    double stddev = 0;  // sample standard deviation (n - 1); 0 when n < 2
    double cv = 0;      // stddev / |mean|; 0 when mean is 0
    double min = 0;
    double max = 0;
};

// Sums are compensated (Neumaier): the result is within a rounding or two of the exact sum of the
// doubles, whatever their order and magnitudes (a million counter values near 1e12 lose nothing).
double sum(const std::vector<double>& xs);
double mean(const std::vector<double>& xs);
// mean(xs) - pivot, summed as the deviations x - pivot: with a pivot near the values each deviation
// is exact, so the difference of two close means keeps its digits (1e12 + 3 against 1e12).
double meanDeviation(const std::vector<double>& xs, double pivot);
double median(std::vector<double> xs);
// Two passes; the squared deviations are scaled by a power of two first, so neither squares of tiny
// values (1e-160) underflow nor squares of huge ones overflow.
double stddev(const std::vector<double>& xs);
Summary summarize(const std::vector<double>& xs);

}  // namespace nf::engine
