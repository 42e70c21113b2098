#pragma once
// The ratio of two independent means, mean(c) / mean(b), and Fieller's interval for it. Everything
// is in units of the baseline mean, so no result depends on the values' magnitude (1e-100 s,
// 1e12 instructions).

#include <limits>
#include <vector>

namespace nf::engine::stats {

// Two independent samples relative to the baseline mean: from values with ratioSummary(values),
// from published summaries (mean, standard deviation and n per side) with ratioSummary(numbers).
struct RatioSummary {
    double delta = std::numeric_limits<double>::quiet_NaN();  // mean(c) / mean(b) - 1
    double seB = 0;                                           // standard error of mean(b), over |mean(b)|
    double seC = 0;                                           // standard error of mean(c), over |mean(b)|
    double nB = 0;
    double nC = 0;
    // The degrees of freedom of seC^2 + R^2 seB^2 when they are not Welch-Satterthwaite's over two
    // sample variances: standard errors built from shared variance components (run to run plus
    // within a run). NaN: Welch-Satterthwaite.
    double df = std::numeric_limits<double>::quiet_NaN();
};

// The difference of the means is taken from deviations about the baseline mean, so two close means
// (1e12 + 3 against 1e12) keep their digits. delta is NaN when mean(b) is 0.
RatioSummary ratioSummary(const std::vector<double>& base, const std::vector<double>& cand);
RatioSummary ratioSummary(double meanB, double sdB, double nB, double meanC, double sdC, double nC);

// Welch-Satterthwaite degrees of freedom of mean(c) - R mean(b) at R = 1 + delta (`df` when set);
// NaN when neither side varies.
double fiellerDegreesOfFreedom(const RatioSummary& s);

struct RatioInterval {
    double low = std::numeric_limits<double>::quiet_NaN();  // of delta = R - 1; NaN when unbounded
    double high = std::numeric_limits<double>::quiet_NaN();
    double df = std::numeric_limits<double>::quiet_NaN();
    double t = std::numeric_limits<double>::quiet_NaN();  // the quantile used
    bool bounded = false;
};

// Fieller's interval for R = mean(c) / mean(b) at `level` (two-sided), as delta = R - 1: the R that
// the t test of mean(c) - R mean(b) = 0 does not reject, with the t quantile at
// fiellerDegreesOfFreedom (the normal one when neither side varies). Solved in the stable form
// (delta + g -+ t sqrt(seC^2 (1 - g) + R^2 seB^2)) / (1 - g), g = (t seB)^2, rather than as a
// quadratic whose discriminant cancels when the means' CV is tiny. Unbounded when mean(b) is not
// distinguishable from zero at this level (g >= 1).
RatioInterval fieller(const RatioSummary& s, double level);

// The interval of the mean of a quantity that cannot be negative (a rate, a count), taken on the
// log scale so it never reaches below zero: mean / f .. mean * f with f = exp(t se / mean), the
// Student t interval of ln(mean) by the delta method (se = sd / sqrt(n), t at n - 1 degrees of
// freedom). mean..mean when sd is 0; unbounded (NaN) when n < 2 or mean <= 0.
struct PositiveInterval {
    double low = std::numeric_limits<double>::quiet_NaN();
    double high = std::numeric_limits<double>::quiet_NaN();
};
PositiveInterval logScaleMeanInterval(double mean, double sd, double n, double level);

}  // namespace nf::engine::stats
