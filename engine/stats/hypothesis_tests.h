#pragma once
// Two-sided hypothesis tests as pure functions over samples. Each agrees with SciPy 1.10
// (ttest_ind(equal_var=False), ttest_1samp, mannwhitneyu, wilcoxon) to 1e-6; see
// docs/statistics.md for the exact conventions.

#include <cstddef>
#include <vector>

namespace nf::engine::stats {

struct TestResult {
    double statistic = 0;       // t, U1 (MWU) or T = min(R+, R-) (Wilcoxon)
    double df = 0;              // degrees of freedom (t tests), 0 otherwise
    double p = 1;               // two-sided
    bool exact = false;         // exact null distribution rather than a normal approximation
    double minAttainableP = 0;  // the smallest p this test can give at this n (rank tests)
};

// Two-sided p of Student's t statistic `t` with `df` degrees of freedom.
double twoSidedT(double t, double df);

// Welch-Satterthwaite degrees of freedom of a sum of two variances wa^2 and wb^2 estimated from na
// and nb values; only the ratio of wa and wb matters, so they may be given in any common unit.
double welchDegreesOfFreedom(double wa, double na, double wb, double nb);

// Welch's unequal-variance t test of mean(x) == mean(y). Needs n >= 2 in each.
TestResult welchT(const std::vector<double>& x, const std::vector<double>& y);
// The same test from summary statistics (n, mean, sample standard deviation of each side), as
// scipy.stats.ttest_ind_from_stats(equal_var=False): for summaries whose values were not kept.
TestResult welchTFromStats(double nx, double mx, double sx, double ny, double my, double sy);

// One-sample t test of mean(d) == 0. Needs n >= 2.
TestResult oneSampleT(const std::vector<double>& d);

// Mann-Whitney U of x against y (statistic: U of x). Exact null distribution when there are no
// ties and both samples have at most 50 values; otherwise the normal approximation with tie and
// continuity correction.
TestResult mannWhitneyU(const std::vector<double>& x, const std::vector<double>& y);

// Wilcoxon signed-rank test of d's location == 0; zeros are dropped (zero_method "wilcox").
// Exact when at most 50 non-zero values and no ties in |d|; otherwise the normal approximation
// with tie correction and no continuity correction (SciPy 1.10's), held at or above the smallest p
// the exact distribution of the n non-zero values can give, 2 / 2^n.
TestResult wilcoxonSignedRank(const std::vector<double>& d);
// The same over d already sorted ascending: ranks |d| by merging the two signs, without a sort.
TestResult wilcoxonSignedRankSorted(const std::vector<double>& sortedD);

// Null distribution of the signed-rank statistic R+ for n values without ties: P(R+ = s) for
// s = 0..n(n+1)/2.
std::vector<double> signedRankPmf(std::size_t n);

// Holm's step-down adjustment of a family of p-values (same order as given); NaN (no test) stays
// NaN and is not counted in the family.
std::vector<double> holm(const std::vector<double>& p);

// Benjamini and Hochberg's step-up adjustment (the false discovery rate's q-values) of a family of
// p-values (same order as given): min over j >= i of p(j) m / j in ascending order, capped at 1;
// NaN stays NaN and is not counted in the family.
std::vector<double> benjaminiHochberg(const std::vector<double>& p);

// Midranks (1-based) of xs, and the tie term sum(t^3 - t) over groups of equal values.
std::vector<double> midranks(const std::vector<double>& xs, double* tieTerm = nullptr);

}  // namespace nf::engine::stats
