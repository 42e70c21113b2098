#include "engine/stats/comparison.h"

#include <fmt/format.h>
#include <algorithm>
#include <boost/math/distributions/normal.hpp>
#include <boost/math/distributions/students_t.hpp>
#include <cmath>
#include <limits>

#include "engine/stats/descriptive.h"
#include "engine/stats/robust.h"

namespace nf::engine::stats {

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

struct Interval {
    double low = kNaN;
    double high = kNaN;
};

// Fieller's interval for mC / mB of two independent means, at `level`, with the Welch df of
// mC - R mB at the point estimate R.
Interval fieller(double mB, double vB, double nB, double mC, double vC, double nC, double level)
{
    const double r = mC / mB;
    const double df = (vC + r * r * vB) * (vC + r * r * vB) / (vC * vC / (nC - 1) + r * r * r * r * vB * vB / (nB - 1));
    const double t = std::isfinite(df) && df > 0 ? tQuantile((1 + level) / 2, df) : zQuantile((1 + level) / 2);
    const double a = mB * mB - t * t * vB;
    const double b = -2 * mB * mC;
    const double c = mC * mC - t * t * vC;
    const double disc = b * b - 4 * a * c;
    if (a <= 0 || disc < 0) {
        return {};  // the baseline mean is not distinguishable from zero: no bounded interval
    }
    const double r1 = (-b - std::sqrt(disc)) / (2 * a);
    const double r2 = (-b + std::sqrt(disc)) / (2 * a);
    return {(std::min(r1, r2) - 1) * 100, (std::max(r1, r2) - 1) * 100};
}

double welchDf(double a, double b, double n)
{
    // Welch-Satterthwaite df of two variances a/n and b/n with n values each.
    return a + b == 0 ? n - 1 : (n - 1) * (a + b) * (a + b) / (a * a + b * b);
}

// Repetitions per variant needed so that (t_{1-alpha/2} + t_{power}) * SE <= target.
std::optional<double> repetitionsNeeded(double a, double b, double mB, double target, const CompareOptions& o)
{
    if (!(target > 0) || mB == 0) {
        return std::nullopt;
    }
    auto detects = [&](double n) {
        const double df = welchDf(a, b, n);
        const double se = std::sqrt((a + b) / n) / std::fabs(mB);
        return (tQuantile(1 - o.alpha / 2, df) + tQuantile(o.power, df)) * se <= target;
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

}  // namespace

std::string_view toString(Design design)
{
    return design == Design::Paired ? "paired" : "independent";
}

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
    c.estimator = "Hodges-Lehmann estimate of the per-pair log ratio, signed-rank interval";
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
        c.deltaPct = c.ciLowPct = c.ciHighPct = c.tostLowPct = c.tostHighPct = c.mdePct = kNaN;
        c.warnings.push_back("fewer than 2 pairs: nothing to compare");
        return c;
    }
    std::vector<double> sorted = d;
    std::sort(sorted.begin(), sorted.end());
    WalshSelector selector(sorted);
    const auto hl = hodgesLehmannSorted(selector, 1 - o.alpha, true);
    const auto tost = hodgesLehmannSorted(selector, 1 - 2 * o.alpha, false);
    c.deltaPct = pct(hl.estimate);
    c.ciLowPct = pct(hl.low);
    c.ciHighPct = pct(hl.high);
    c.tostLowPct = pct(tost.low);
    c.tostHighPct = pct(tost.high);
    const auto wilcoxon = wilcoxonSignedRankSorted(sorted);
    const auto t = oneSampleT(d);
    c.pWilcoxon = wilcoxon.p;
    c.pPairedT = t.p;
    c.p = c.pAdjusted = wilcoxon.p;
    const double sd = stddev(d);
    c.effectSize = sd > 0 ? mean(d) / sd : kNaN;

    const double z = zQuantile(1 - o.alpha / 2);
    const double seLog = (hl.high - hl.low) / (2 * z);
    const double mdeLog = (z + zQuantile(o.power)) * seLog;
    c.mdePct = pct(mdeLog);
    c.targetPct = o.targetPct.value_or(std::fabs(c.deltaPct));
    if (c.targetPct > 0 && mdeLog > 0) {
        const double needed =
            std::ceil(static_cast<double>(d.size()) * std::pow(mdeLog / std::log1p(c.targetPct / 100), 2));
        const double minForAlpha = std::ceil(1 - std::log2(o.alpha));  // smallest n whose min p < alpha
        c.nNeeded = std::max(needed, minForAlpha);
    }
    if (wilcoxon.minAttainableP >= o.alpha) {
        c.warnings.push_back(
            fmt::format("with {} pairs the signed-rank test cannot reach p < {} (its smallest p is {})", d.size(),
                        o.alpha, formatP(wilcoxon.minAttainableP)));
    }
    return c;
}

Comparison compareIndependent(const std::vector<double>& base, const std::vector<double>& cand, const CompareOptions& o)
{
    Comparison c;
    c.design = Design::Independent;
    c.unit = "repetition";
    c.estimator = "ratio of means, Fieller interval (Welch-Satterthwaite df)";
    c.primaryTest = "Welch t";
    c.effectSizeName = "Hedges' g";
    c.n = base.size();
    c.nCandidate = cand.size();
    const double mB = mean(base);
    const double mC = mean(cand);
    c.deltaPct = base.empty() || cand.empty() || mB == 0 ? kNaN : (mC / mB - 1) * 100;
    if (base.size() < 2 || cand.size() < 2) {
        c.p = c.pAdjusted = kNaN;
        c.ciLowPct = c.ciHighPct = c.tostLowPct = c.tostHighPct = c.mdePct = kNaN;
        c.warnings.push_back("fewer than 2 repetitions per variant: no interval or test");
        return c;
    }
    const double nB = static_cast<double>(base.size());
    const double nC = static_cast<double>(cand.size());
    const double sB = stddev(base);
    const double sC = stddev(cand);
    const double vB = sB * sB / nB;
    const double vC = sC * sC / nC;
    const auto ci = fieller(mB, vB, nB, mC, vC, nC, 1 - o.alpha);
    const auto tost = fieller(mB, vB, nB, mC, vC, nC, 1 - 2 * o.alpha);
    c.ciLowPct = ci.low;
    c.ciHighPct = ci.high;
    c.tostLowPct = tost.low;
    c.tostHighPct = tost.high;
    if (std::isnan(ci.low)) {
        c.warnings.push_back("the baseline mean is not distinguishable from zero: the interval is unbounded");
    }
    const auto welch = welchT(cand, base);
    const auto mwu = mannWhitneyU(cand, base);
    c.pWelch = welch.p;
    c.pMwu = mwu.p;
    c.p = c.pAdjusted = welch.p;
    const double pooled = std::sqrt(((nB - 1) * sB * sB + (nC - 1) * sC * sC) / (nB + nC - 2));
    c.effectSize = pooled > 0 ? (mC - mB) / pooled * (1 - 3 / (4 * (nB + nC) - 9)) : kNaN;

    const double r = mC / mB;
    const double df = welch.df > 0 ? welch.df : nB + nC - 2;
    const double seRel = std::sqrt(vC + r * r * vB) / std::fabs(mB);
    c.mdePct = (tQuantile(1 - o.alpha / 2, df) + tQuantile(o.power, df)) * seRel * 100;
    c.targetPct = o.targetPct.value_or(std::fabs(c.deltaPct));
    c.nNeeded = repetitionsNeeded(sC * sC, r * r * sB * sB, mB, c.targetPct / 100, o);
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

Verdict decide(const Comparison& c, const CompareOptions& o)
{
    if (std::isnan(c.pAdjusted)) {
        return Verdict::Inconclusive;
    }
    if (c.pAdjusted < o.alpha && (c.ciLowPct > 0 || c.ciHighPct < 0)) {
        return Verdict::Different;
    }
    if (c.tostLowPct > -o.marginPct && c.tostHighPct < o.marginPct) {
        return Verdict::Equivalent;
    }
    return Verdict::Inconclusive;
}

void adjustAndDecide(std::vector<Comparison*> family, const CompareOptions& o, bool holmCorrection)
{
    std::vector<double> ps;
    ps.reserve(family.size());
    for (const auto* c : family) {
        ps.push_back(c->p);
    }
    const auto adjusted = holmCorrection ? holm(ps) : ps;
    for (std::size_t i = 0; i < family.size(); ++i) {
        auto& c = *family[i];
        c.pAdjusted = adjusted[i];
        c.withinMargin = c.tostLowPct > -o.marginPct && c.tostHighPct < o.marginPct;
        c.verdict = decide(c, o);
    }
}

// ---- From summary statistics (perf stat -r summaries: n, mean, standard error) ----

Comparison compareSummaries(const SummaryStats& b, const SummaryStats& cand, const CompareOptions& o)
{
    Comparison c;
    c.design = Design::Independent;
    c.unit = "run";
    c.estimator = "ratio of means from summaries, Fieller interval (Welch-Satterthwaite df)";
    c.primaryTest = "Welch t (from summaries)";
    c.effectSizeName = "Hedges' g";
    c.n = static_cast<std::size_t>(b.n);
    c.nCandidate = static_cast<std::size_t>(cand.n);
    const double mB = b.mean;
    const double mC = cand.mean;
    c.deltaPct = b.n < 1 || cand.n < 1 || mB == 0 ? kNaN : (mC / mB - 1) * 100;
    c.warnings.emplace_back("summaries (n, mean, standard error) only: rank tests need the runs and were not run");
    if (b.n < 2 || cand.n < 2) {
        c.p = c.pAdjusted = kNaN;
        c.ciLowPct = c.ciHighPct = c.tostLowPct = c.tostHighPct = c.mdePct = kNaN;
        c.warnings.emplace_back("fewer than 2 runs per variant: no interval or test");
        return c;
    }
    const double vB = b.stddev * b.stddev / b.n;
    const double vC = cand.stddev * cand.stddev / cand.n;
    const auto ci = fieller(mB, vB, b.n, mC, vC, cand.n, 1 - o.alpha);
    const auto tost = fieller(mB, vB, b.n, mC, vC, cand.n, 1 - 2 * o.alpha);
    c.ciLowPct = ci.low;
    c.ciHighPct = ci.high;
    c.tostLowPct = tost.low;
    c.tostHighPct = tost.high;
    if (std::isnan(ci.low)) {
        c.warnings.emplace_back("the baseline mean is not distinguishable from zero: the interval is unbounded");
    }
    const auto welch = welchTFromStats(cand.n, mC, cand.stddev, b.n, mB, b.stddev);
    c.pWelch = welch.p;
    c.p = c.pAdjusted = welch.p;
    const double pooled =
        std::sqrt(((b.n - 1) * b.stddev * b.stddev + (cand.n - 1) * cand.stddev * cand.stddev) / (b.n + cand.n - 2));
    c.effectSize = pooled > 0 ? (mC - mB) / pooled * (1 - 3 / (4 * (b.n + cand.n) - 9)) : kNaN;
    const double r = mC / mB;
    const double df = welch.df > 0 ? welch.df : b.n + cand.n - 2;
    const double seRel = std::sqrt(vC + r * r * vB) / std::fabs(mB);
    c.mdePct = (tQuantile(1 - o.alpha / 2, df) + tQuantile(o.power, df)) * seRel * 100;
    c.targetPct = o.targetPct.value_or(std::fabs(c.deltaPct));
    c.nNeeded = repetitionsNeeded(cand.stddev * cand.stddev, r * r * b.stddev * b.stddev, mB, c.targetPct / 100, o);
    return c;
}

}  // namespace nf::engine::stats
