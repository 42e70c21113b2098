#include "engine/analysis/comparison.h"

#include <fmt/format.h>
#include <algorithm>
#include <boost/math/distributions/normal.hpp>
#include <boost/math/distributions/students_t.hpp>
#include <cmath>
#include <limits>

#include "engine/stats/descriptive.h"
#include "engine/stats/hypothesis_tests.h"
#include "engine/stats/ratio.h"
#include "engine/stats/robust.h"

namespace nf::engine {

namespace {

constexpr double kNaN = std::numeric_limits<double>::quiet_NaN();

double zQuantile(double p)
{
    return boost::math::quantile(boost::math::normal_distribution<double>(), p);
}

double tQuantile(double p, double df)
{
    return boost::math::quantile(boost::math::students_t_distribution<double>(df), p);
}

double pct(double logRatio)
{
    return std::expm1(logRatio) * 100;
}

std::string formatP(double p)
{
    return fmt::format("{:.3g}", p);
}

std::string levelPct(double level)
{
    return fmt::format("{:.4g}%", level * 100);
}

// Repetitions per variant needed so that (t_{1-alpha/2} + t_{power}) * SE <= target, SE the
// standard error of mean(c) - R mean(b) over |mean(b)| with n values each; sdC and sdB are the
// per-value standard deviations of the two terms in the same relative units.
std::optional<double> repetitionsNeeded(double sdC, double sdB, double target, const CompareOptions& o)
{
    const double h = std::hypot(sdC, sdB);
    if (!(target > 0) || !std::isfinite(h)) {
        return std::nullopt;
    }
    auto detects = [&](double n) {
        const double df = h == 0 ? n - 1 : stats::welchDegreesOfFreedom(sdC / h, n, sdB / h, n);
        return (tQuantile(1 - o.alpha / 2, df) + tQuantile(o.power, df)) * h / std::sqrt(n) <= target;
    };
    double hi = 2;
    while (!detects(hi)) {
        hi *= 2;
        if (hi > 1e12) {
            return std::nullopt;
        }
    }
    double lo = std::max(2.0, hi / 2);
    if (detects(lo)) {
        return lo;
    }
    while (hi - lo > 1) {
        const double mid = std::floor((lo + hi) / 2);
        (detects(mid) ? hi : lo) = mid;
    }
    return hi;
}

// The smallest n at which the exact signed-rank test can give p < alpha: its smallest two-sided p,
// all n signs alike, is 2 / 2^n. Counted in powers of two, so alpha = 2^-k is not off by one.
double signedRankMinimumN(double alpha)
{
    int n = 1;
    while (std::ldexp(2.0, -n) >= alpha && n < 1100) {
        ++n;
    }
    return n;
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

// The smallest effect detected with `power`, and n_needed for the target, both in units of the
// baseline mean: the standard error of mean(c) - R mean(b), and per value. `welchDf` <= 0: the
// pooled degrees of freedom.
void setIndependentPower(Comparison& c, const stats::RatioSummary& summary, double welchDf, const CompareOptions& o)
{
    const double ratio = 1 + summary.delta;
    const double df = welchDf > 0 ? welchDf : summary.nB + summary.nC - 2;
    const double seRel = std::hypot(summary.seC, std::fabs(ratio) * summary.seB);
    c.mdePct = (tQuantile(1 - o.alpha / 2, df) + tQuantile(o.power, df)) * seRel * 100;
    c.targetPct = o.targetPct.value_or(std::fabs(c.interval.estimatePct));
    c.nNeeded = repetitionsNeeded(summary.seC * std::sqrt(summary.nC),
                                  std::fabs(ratio) * summary.seB * std::sqrt(summary.nB), c.targetPct / 100, o);
}

}  // namespace

std::string_view toString(Verdict verdict)
{
    switch (verdict) {
        case Verdict::Different: return "different";
        case Verdict::Equivalent: return "equivalent";
        case Verdict::Inconclusive: return "inconclusive";
    }
    return "inconclusive";
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
    std::vector<double> sorted = d;
    std::sort(sorted.begin(), sorted.end());
    stats::WalshSelector selector(sorted);
    c.interval = pairedInterval(selector, 1 - o.alpha);
    c.tost = pairedInterval(selector, 1 - 2 * o.alpha);
    const auto wilcoxon = stats::wilcoxonSignedRankSorted(sorted);
    const auto t = stats::oneSampleT(d);
    c.pWilcoxon = wilcoxon.p;
    c.pPairedT = t.p;
    c.p = c.pAdjusted = wilcoxon.p;
    const double sd = stddev(d);
    c.effectSize = sd > 0 ? mean(d) / sd : kNaN;

    // The standard error the interval implies, with the normal quantile of the level it has.
    const double width = std::log1p(c.interval.ci.high / 100) - std::log1p(c.interval.ci.low / 100);
    const double seLog = width / (2 * zQuantile((1 + c.interval.level) / 2));
    const double mdeLog = (zQuantile(1 - o.alpha / 2) + zQuantile(o.power)) * seLog;
    c.mdePct = pct(mdeLog);
    c.targetPct = o.targetPct.value_or(std::fabs(c.interval.estimatePct));
    if (c.targetPct > 0 && mdeLog > 0) {
        const double needed =
            std::ceil(static_cast<double>(d.size()) * std::pow(mdeLog / std::log1p(c.targetPct / 100), 2));
        c.nNeeded = std::max(needed, signedRankMinimumN(o.alpha));
    }
    if (wilcoxon.minAttainableP >= o.alpha) {
        c.warnings.push_back(
            fmt::format("with {} pairs the signed-rank test cannot reach p < {} (its smallest p is {})", d.size(),
                        o.alpha, formatP(wilcoxon.minAttainableP)));
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
    setIndependentPower(c, summary, welch.df, o);
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
    c.warnings.emplace_back("summaries (n, mean, standard error) only: rank tests need the runs and were not run");
    if (!setIndependentIntervals(c, summary, o, "runs")) {
        return c;
    }
    c.interval.method += " (from summaries)";
    const auto welch = stats::welchTFromStats(cand.n, cand.mean, cand.stddev, b.n, b.mean, b.stddev);
    c.pWelch = welch.p;
    c.p = c.pAdjusted = welch.p;
    c.effectSize = hedgesG(cand.mean - b.mean, b.stddev, b.n, cand.stddev, cand.n);
    setIndependentPower(c, summary, welch.df, o);
    return c;
}

Verdict decide(const Comparison& c, const CompareOptions& o, std::string* reason)
{
    std::string why;
    const auto& ci = c.interval;
    const auto& tost = c.tost;
    const bool tested = !std::isnan(c.pAdjusted);
    Verdict verdict = Verdict::Inconclusive;
    const bool inside = tost.bounded() && tost.ci.low > -o.marginPct && tost.ci.high < o.marginPct;
    if (tested && c.pAdjusted < o.alpha && ci.bounded() && ci.reachesLevel() && (ci.ci.low > 0 || ci.ci.high < 0)) {
        verdict = Verdict::Different;
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

void adjustAndDecide(std::vector<Comparison*> family, const CompareOptions& o, bool holmCorrection)
{
    std::vector<double> ps;
    ps.reserve(family.size());
    for (const auto* c : family) {
        ps.push_back(c->p);
    }
    const auto adjusted = holmCorrection ? stats::holm(ps) : ps;
    for (std::size_t i = 0; i < family.size(); ++i) {
        auto& c = *family[i];
        c.pAdjusted = adjusted[i];
        c.withinMargin =
            c.tost.bounded() && c.tost.reachesLevel() && c.tost.ci.low > -o.marginPct && c.tost.ci.high < o.marginPct;
        c.verdict = decide(c, o, &c.verdictReason);
    }
}

}  // namespace nf::engine
