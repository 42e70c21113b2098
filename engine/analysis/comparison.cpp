#include "engine/analysis/comparison.h"

#include <fmt/format.h>
#include <algorithm>
#include <cmath>
#include <limits>

#include "engine/stats/descriptive.h"
#include "engine/stats/hypothesis_tests.h"
#include "engine/stats/power.h"
#include "engine/stats/ratio.h"
#include "engine/stats/robust.h"

namespace nf::engine {

namespace {

constexpr double kNaN = std::numeric_limits<double>::quiet_NaN();

std::string formatP(double p)
{
    return fmt::format("{:.3g}", p);
}

std::string levelPct(double level)
{
    return fmt::format("{:.4g}%", level * 100);
}

int sign(double x)
{
    return x > 0 ? 1 : x < 0 ? -1 : 0;
}

// Hedges' g with the pooled standard deviation computed on values scaled by the larger one.
double hedgesG(double diff, double sB, double nB, double sC, double nC)
{
    const double s = std::max(sB, sC);
    if (!(s > 0) || !std::isfinite(s)) {
        return kNaN;
    }
    const double b = sB / s;
    const double c = sC / s;
    const double pooled = s * std::sqrt(((nB - 1) * b * b + (nC - 1) * c * c) / (nB + nC - 2));
    return diff / pooled * (1 - 3 / (4 * (nB + nC) - 9));
}

// The independent design's two intervals from `summary`, with the interval's note as a warning.
// With fewer than 2 values (`units`) on a side there are none: false, with the reason warned.
bool setIndependentIntervals(Comparison& c, const stats::RatioSummary& summary, const CompareOptions& o,
                             const std::string& units)
{
    if (summary.nB < 2 || summary.nC < 2) {
        c.p = c.pAdjusted = kNaN;
        const std::string why = "fewer than 2 " + units + " per variant: no interval or test";
        c.interval = noInterval(Design::Independent, 1 - o.alpha, why);
        c.interval.estimatePct = summary.delta * 100;
        c.tost = noInterval(Design::Independent, 1 - 2 * o.alpha, why);
        c.mdePct = kNaN;
        c.warnings.push_back(why);
        return false;
    }
    c.interval = independentInterval(summary, 1 - o.alpha);
    c.tost = independentInterval(summary, 1 - 2 * o.alpha);
    if (!c.interval.note.empty()) {
        c.warnings.push_back(c.interval.note);
    }
    return true;
}

// How much data, from Welch's test of mean(c) - mean(b) (the test the verdict rests on) with the
// standard deviations observed, in units of |mean(b)|: the smallest difference detected with
// `power` at these n, and the equal n per variant that detects the target. Nothing here depends on
// the ratio of the means.
void setIndependentPower(Comparison& c, const stats::RatioSummary& summary, const CompareOptions& o)
{
    c.targetPct = o.targetPct.value_or(std::fabs(c.interval.estimatePct));
    if (!std::isfinite(summary.delta)) {
        c.mdePct = kNaN;
        return;
    }
    const double sdB = summary.seB * std::sqrt(summary.nB);
    const double sdC = summary.seC * std::sqrt(summary.nC);
    c.mdePct = stats::welchDetectable(sdC, summary.nC, sdB, summary.nB, o.alpha, o.power) * 100;
    c.nNeeded = stats::welchSampleSize(c.targetPct / 100, sdC, sdB, o.alpha, o.power);
}

// How much data, from the signed-rank test (the test the verdict rests on) at a shift of the
// distribution the pairs showed, centred on its Hodges-Lehmann estimate: the smallest change
// detected with `power` in either direction at this n, and the pairs that detect the target in the
// direction of the estimate. Valid at any shift and for any shape (two modes, one wild pair),
// where the interval's width alone is not.
void setPairedPower(Comparison& c, const std::vector<double>& sorted, const CompareOptions& o)
{
    const double centre = std::log1p(c.interval.estimatePct / 100);
    std::vector<double> centred(sorted.size());
    std::transform(sorted.begin(), sorted.end(), centred.begin(), [&](double d) { return d - centre; });
    const stats::SignedRankPower power(centred);
    // The test drops equal pairs: its n, and so what it can detect here, is the unequal ones.
    const auto n = static_cast<double>(std::count_if(sorted.begin(), sorted.end(), [](double d) { return d != 0; }));
    const double up = power.detectable(n, +1, o.alpha, o.power);
    const double down = power.detectable(n, -1, o.alpha, o.power);
    c.mdePct = std::isnan(up) || std::isnan(down) ? kNaN : std::max(std::expm1(up), -std::expm1(-down)) * 100;
    c.targetPct = o.targetPct.value_or(std::fabs(c.interval.estimatePct));
    const bool lower = c.interval.estimatePct < 0 && c.targetPct < 100;
    if (c.targetPct > 0) {
        c.nNeeded = power.sampleSize(std::log1p((lower ? -c.targetPct : c.targetPct) / 100), o.alpha, o.power);
    }
}

}  // namespace

std::string_view toString(Verdict verdict)
{
    switch (verdict) {
        case Verdict::Different: return "different";
        case Verdict::Negligible: return "negligible";
        case Verdict::Equivalent: return "equivalent";
        case Verdict::Inconclusive: return "inconclusive";
        case Verdict::Invalid: return "invalid";
    }
    return "inconclusive";
}

bool foundDifference(Verdict verdict)
{
    return verdict == Verdict::Different || verdict == Verdict::Negligible;
}

Comparison comparePaired(const std::vector<double>& base, const std::vector<double>& cand, const CompareOptions& o)
{
    Comparison c;
    c.design = Design::Paired;
    c.unit = "chunk pair";
    c.primaryTest = "Wilcoxon signed-rank";
    c.effectSizeName = "Cohen's d_z of the log ratios";
    std::vector<double> d;
    d.reserve(base.size());
    for (std::size_t i = 0; i < std::min(base.size(), cand.size()); ++i) {
        if (base[i] > 0 && cand[i] > 0 && std::isfinite(base[i]) && std::isfinite(cand[i])) {
            d.push_back(std::log(cand[i] / base[i]));
        }
    }
    if (d.size() < base.size()) {
        c.warnings.push_back(fmt::format("{} of {} pairs skipped: a value was zero, negative or not finite",
                                         base.size() - d.size(), base.size()));
    }
    c.n = c.nCandidate = d.size();
    if (d.size() < 2) {
        c.p = c.pAdjusted = kNaN;
        c.interval = noInterval(Design::Paired, 1 - o.alpha, "fewer than 2 pairs: nothing to compare");
        c.tost = noInterval(Design::Paired, 1 - 2 * o.alpha, c.interval.note);
        c.mdePct = kNaN;
        c.warnings.push_back(c.interval.note);
        return c;
    }
    // The statistics of the differences in pair order first; then they are sorted in place (a
    // million pairs are 8 MB a copy).
    const auto t = stats::oneSampleT(d);
    const double sd = stddev(d);
    c.effectSize = sd > 0 ? mean(d) / sd : kNaN;
    std::vector<double>& sorted = d;
    std::sort(sorted.begin(), sorted.end());
    stats::WalshSelector selector(sorted);
    c.interval = pairedInterval(selector, 1 - o.alpha);
    c.tost = pairedInterval(selector, 1 - 2 * o.alpha);
    const auto wilcoxon = stats::wilcoxonSignedRankSorted(sorted);
    c.direction = sign(c.interval.estimatePct);
    c.pWilcoxon = wilcoxon.p;
    c.pPairedT = t.p;
    c.p = c.pAdjusted = wilcoxon.p;

    setPairedPower(c, sorted, o);
    if (wilcoxon.minAttainableP >= o.alpha) {
        // Equal pairs are dropped by the test: it is their number that sets the smallest p.
        const auto unequal =
            static_cast<std::size_t>(std::count_if(d.begin(), d.end(), [](double x) { return x != 0; }));
        c.warnings.push_back(
            fmt::format("with {} pairs{} the signed-rank test cannot reach p < {} (its smallest p is {})", d.size(),
                        unequal < d.size() ? fmt::format(" ({} unequal)", unequal) : "", o.alpha,
                        formatP(wilcoxon.minAttainableP)));
    }
    if (!c.interval.reachesLevel()) {
        c.warnings.push_back(c.interval.note +
                             (c.tost.reachesLevel()
                                  ? ""
                                  : fmt::format(" (and {} for the equivalence test, {} asked)", levelPct(c.tost.level),
                                                levelPct(c.tost.nominalLevel))));
    }
    return c;
}

Comparison compareIndependent(const std::vector<double>& base, const std::vector<double>& cand, const CompareOptions& o)
{
    Comparison c;
    c.design = Design::Independent;
    c.unit = "repetition";
    c.primaryTest = "Welch t";
    c.effectSizeName = "Hedges' g";
    c.n = base.size();
    c.nCandidate = cand.size();
    const auto summary = stats::ratioSummary(base, cand);
    if (!base.empty()) {
        const double pivot = mean(base);
        c.direction = sign(meanDeviation(cand, pivot) - meanDeviation(base, pivot));
    }
    if (!setIndependentIntervals(c, summary, o, "repetitions")) {
        return c;
    }
    const auto welch = stats::welchT(cand, base);
    const auto mwu = stats::mannWhitneyU(cand, base);
    c.pWelch = welch.p;
    c.pMwu = mwu.p;
    c.p = c.pAdjusted = welch.p;
    const double nB = summary.nB;
    const double nC = summary.nC;
    const double pivot = mean(base);
    c.effectSize = hedgesG(meanDeviation(cand, pivot) - meanDeviation(base, pivot), stddev(base), nB, stddev(cand), nC);
    setIndependentPower(c, summary, o);
    if (mwu.minAttainableP >= o.alpha) {
        c.warnings.push_back(
            fmt::format("with {} and {} repetitions Mann-Whitney U cannot reach p < {} "
                        "(its smallest p is {})",
                        base.size(), cand.size(), o.alpha, formatP(mwu.minAttainableP)));
    }
    if (base.size() < 3 || cand.size() < 3) {
        c.warnings.push_back("fewer than 3 repetitions per variant: the spread is barely estimated");
    }
    return c;
}

// ---- From summary statistics (perf stat -r summaries: n, mean, standard deviation) ----

Comparison compareSummaries(const SummaryStats& b, const SummaryStats& cand, const CompareOptions& o)
{
    Comparison c;
    c.design = Design::Independent;
    c.unit = "run";
    c.primaryTest = "Welch t (from summaries)";
    c.effectSizeName = "Hedges' g";
    c.n = static_cast<std::size_t>(b.n);
    c.nCandidate = static_cast<std::size_t>(cand.n);
    const auto summary = stats::ratioSummary(b.mean, b.stddev, b.n, cand.mean, cand.stddev, cand.n);
    c.direction = sign(cand.mean - b.mean);
    c.warnings.emplace_back("summaries (n, mean, standard error) only: rank tests need the runs and were not run");
    if (!setIndependentIntervals(c, summary, o, "runs")) {
        return c;
    }
    c.interval.method += " (from summaries)";
    const auto welch = stats::welchTFromStats(cand.n, cand.mean, cand.stddev, b.n, b.mean, b.stddev);
    c.pWelch = welch.p;
    c.p = c.pAdjusted = welch.p;
    c.effectSize = hedgesG(cand.mean - b.mean, b.stddev, b.n, cand.stddev, cand.n);
    setIndependentPower(c, summary, o);
    return c;
}

Verdict decide(const Comparison& c, const CompareOptions& o, std::string* reason)
{
    if (!c.confounded.empty()) {
        if (reason != nullptr) {
            *reason = c.confounded;
        }
        return Verdict::Inconclusive;
    }
    std::string why;
    const auto& ci = c.interval;
    const auto& tost = c.tost;
    const bool tested = !std::isnan(c.pAdjusted);
    Verdict verdict = Verdict::Inconclusive;
    const bool inside = tost.bounded() && tost.ci.low > -o.marginPct && tost.ci.high < o.marginPct;
    const bool excludesZero = ci.bounded() && ci.reachesLevel() && (ci.ci.low > 0 || ci.ci.high < 0);
    if (tested && c.pAdjusted < o.alpha && excludesZero) {
        const bool small = ci.ci.low > -o.marginPct && ci.ci.high < o.marginPct;
        verdict = small ? Verdict::Negligible : Verdict::Different;
    } else if (excludesZero && tested) {
        // The test and its interval part only at the boundary (a rank test's p beside the
        // Hodges-Lehmann interval): neither a difference nor equivalence is claimed.
        why = fmt::format("the {} interval excludes 0 but the test's p ({}) is not below {:g}", levelPct(ci.level),
                          formatP(c.pAdjusted), o.alpha);
    } else if (inside && tost.reachesLevel()) {
        verdict = Verdict::Equivalent;
    } else if (inside) {
        why = fmt::format(
            "n too small to show equivalence at this alpha: the interval lies inside +-{:g}%, but with {} {}s "
            "it covers {}, not the {} equivalence needs",
            o.marginPct, c.n, c.unit, levelPct(tost.level), levelPct(tost.nominalLevel));
    } else if (!ci.bounded() || !tost.bounded()) {
        // An unbounded interval: the 1 - alpha one cannot show a difference, the 1 - 2 alpha one
        // cannot show equivalence.
        why = !ci.bounded() && !ci.note.empty() ? ci.note : tost.note.empty() ? ci.note : tost.note;
    } else if (!tested) {
        why = fmt::format(
            "no test is possible (neither variant's values vary) and the difference, {:+.2f}%, lies outside "
            "the +-{:g}% margin",
            ci.estimatePct, o.marginPct);
    }
    if (reason != nullptr) {
        *reason = why;
    }
    return verdict;
}

void decideAdjusted(Comparison& c, double pAdjusted, const CompareOptions& o)
{
    c.pAdjusted = pAdjusted;
    c.withinMargin =
        c.tost.bounded() && c.tost.reachesLevel() && c.tost.ci.low > -o.marginPct && c.tost.ci.high < o.marginPct;
    c.verdict = decide(c, o, &c.verdictReason);
}

}  // namespace nf::engine
