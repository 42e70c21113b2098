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

double mean(const std::vector<double>& xs);
double median(std::vector<double> xs);
double stddev(const std::vector<double>& xs);
Summary summarize(const std::vector<double>& xs);

}  // namespace nf::engine
