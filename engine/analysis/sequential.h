#pragma once
// A verdict that may be looked at after every unit: a time-uniform confidence sequence on the mean
// per-unit log ratio ln(candidate / baseline). Its coverage holds at every look at once, so a run
// may stop as soon as it excludes 0 (different) or lies inside +-margin (equivalent) without the
// inflated error rates of re-testing a fixed-n interval at every look.
//
// The boundary is Robbins' normal mixture (Robbins 1970; Howard, Ramdas, McAuliffe, Sekhon 2021,
// "Time-uniform, nonparametric, nonasymptotic confidence sequences", the two-sided normal mixture):
// for S_t the sum of t centred values with variance sigma^2, P(exists t: |S_t| >= u(t)) <= alpha with
//     u(t) = sigma sqrt((t r^2 + 1) / r^2 * ln((t r^2 + 1) / alpha^2)),
// r the mixture's precision in units of sigma, chosen so that the sequence is tightest at a planned
// number of units t*. sigma is not known: it is the running standard deviation of the log ratios
// (Welford), which makes this the asymptotic confidence sequence of Waudby-Smith, Arbour, Sinha,
// Kennedy and Ramdas ("Time-uniform central limit theory and asymptotic confidence sequences",
// Annals of Statistics 2024). Its assumption: the units are independent with a finite variance
// (chunk pairs of a steady machine; drift cancels within a pair). With few units the plug-in
// variance is itself noisy, so no decision is taken before `warmupUnits` units. t* is fixed once,
// at the end of the warm-up, as the n a fixed design would need to detect an effect the size of
// the margin with 80% power at the warm-up's spread (or `plannedUnits` when set); it only moves
// where the sequence is tightest, and the error rates are checked by simulation with it
// (tests/engine/sequential_test.cpp).

#include <cstddef>
#include <limits>
#include <optional>
#include <string>

#include "engine/analysis/comparison.h"

namespace nf::engine {

struct SequentialOptions {
    double alpha = 0.05;           // P(the sequence ever misses the true mean) <= alpha
    double marginPct = 1.0;        // equivalence margin, +-%
    std::size_t warmupUnits = 30;  // no decision before this many units
    std::size_t plannedUnits = 0;  // where the sequence is tightest; 0 = chosen after the warm-up
};

// The method as stored with a run and named in its evidence report.
std::string sequentialMethod(const SequentialOptions& options);

// The mixture precision r (in units of sigma) that minimises the width at t = plannedUnits:
// r = sqrt((-2 ln alpha + ln(1 - 2 ln alpha)) / t), Waudby-Smith et al.'s closed-form choice.
double normalMixturePrecision(double plannedUnits, double alpha);

// Half-width of the sequence for the mean of t units with standard deviation sd (log units).
double normalMixtureHalfWidth(double t, double sd, double precision, double alpha);

// What one look sees.
struct SequentialLook {
    std::size_t units = 0;
    double elapsed = 0;  // seconds of measuring time at this look (set by the caller)
    double estimatePct = std::numeric_limits<double>::quiet_NaN();  // mean log ratio, as a percentage
    PercentInterval ci;                                             // the confidence sequence at this look
    double sdLog = std::numeric_limits<double>::quiet_NaN();        // running sd of the per-unit log ratios
    Verdict decision = Verdict::Inconclusive;
};

// The running state: add every unit's log ratio, look whenever wanted.
class ConfidenceSequence {
public:
    explicit ConfidenceSequence(SequentialOptions options);

    void add(double logRatio);  // a non-finite value is not counted
    std::size_t units() const { return m_n; }
    SequentialLook look() const;
    // Units still needed (beyond units()) until the sequence, as wide as the running sd makes it,
    // would exclude 0 or lie inside the margin around the current estimate; nullopt when neither can
    // happen (the estimate on the margin) or fewer than 2 units were seen.
    std::optional<double> unitsStillNeeded() const;
    const SequentialOptions& options() const { return m_options; }
    double plannedUnits() const { return m_planned; }  // t*: where the sequence is tightest

private:
    SequentialOptions m_options;
    double m_planned;
    double m_precision;
    std::size_t m_n = 0;
    double m_mean = 0;
    double m_m2 = 0;  // Welford's sum of squared deviations
};

}  // namespace nf::engine
