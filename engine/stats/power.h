#pragma once
// The power of the two tests a verdict rests on, and from it the smallest effect a design detects
// and the sample size that detects a given one. Welch's t under its own model (normal values with
// the standard deviations observed): the noncentral t. The signed-rank test at a finite shift of the
// distribution a pilot showed: the mean and variance of its statistic under that shift (Lehmann,
// Nonparametrics, 1975, section 4.2), with the exact null distribution's critical values up to 50
// values. Neither assumes the ratio of the means is near 1. docs/statistics.md, "How much data".

#include <optional>
#include <vector>

namespace nf::engine::stats {

// Welch's two-sided test at `alpha` of two normal samples of na and nb values with standard
// deviations sdA and sdB whose means differ by `effect` (in the same unit): the probability that
// p < alpha, from the noncentral t at the Welch-Satterthwaite degrees of freedom.
double welchPower(double effect, double sdA, double na, double sdB, double nb, double alpha);

// The smallest |effect| Welch's test detects with `power` at these n; 0 when neither side varies.
double welchDetectable(double sdA, double na, double sdB, double nb, double alpha, double power);

// The smallest equal n per side (at least 2) at which Welch's test detects `effect` with `power`;
// nullopt when the effect is not positive or more than 1e12 values would be needed.
std::optional<double> welchSampleSize(double effect, double sdA, double sdB, double alpha, double power);

// A two-sided t test at `alpha` whose statistic has `df` degrees of freedom and noncentrality
// `lambda` (the true difference over its standard error): the probability that p < alpha.
double tTestPower(double lambda, double df, double alpha);

// The p quantile of Student's t with `df` degrees of freedom (the normal's past 1e7).
double tQuantile(double p, double df);

// The noncentrality at which that test has `power`: the smallest detectable difference is this
// times the difference's standard error.
double tTestDetectableNoncentrality(double df, double alpha, double power);

// The signed-rank test of n values drawn from a distribution shifted by theta: the distribution is
// given by a sample of it centred where the test sees no difference (a pilot's values less their
// Hodges-Lehmann estimate). Up to 2048 evenly spaced order statistics of the sample are kept, so a
// million pilot values cost what 2048 do.
class SignedRankPower {
public:
    // `centred`: sorted ascending.
    explicit SignedRankPower(const std::vector<double>& centred);

    // Mean and variance of R+ = #{i <= j : x_i + x_j > 0} (the sum of the positive ranks; a zero
    // sum counts one half) over n values drawn from the shifted distribution.
    struct Moments {
        double mean = 0;
        double variance = 0;
    };
    Moments moments(double theta, double n) const;

    // P(p < alpha): exact critical values of the null distribution up to 50 values (with a
    // continuity correction), the normal approximation above; 0 where no outcome reaches alpha.
    double power(double theta, double n, double alpha) const;

    // The smallest |theta| in `direction` (+1 or -1) detected with `power` at n; NaN when n is too
    // small for the test to reach alpha at all.
    double detectable(double n, int direction, double alpha, double power) const;

    // The smallest n at which a shift theta is detected with `power`; nullopt beyond 1e12 or when
    // no n can (theta 0).
    std::optional<double> sampleSize(double theta, double alpha, double power) const;

private:
    double powerAt(double theta, double n, double lowerBoundary) const;

    std::vector<double> m_x;
};

}  // namespace nf::engine::stats
