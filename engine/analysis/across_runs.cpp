#include "engine/analysis/across_runs.h"

#include <fmt/format.h>
#include <algorithm>
#include <cmath>
#include <limits>

#include "engine/stats/descriptive.h"
#include "engine/stats/hypothesis_tests.h"
#include "engine/stats/power.h"
#include "engine/stats/ratio.h"

namespace nf::engine {

namespace {

constexpr double kNaN = std::numeric_limits<double>::quiet_NaN();

std::vector<double> finiteValues(const std::vector<double>& xs)
{
    std::vector<double> out;
    std::copy_if(xs.begin(), xs.end(), std::back_inserter(out), [](double x) { return std::isfinite(x); });
    return out;
}

// The variance of a run's mean from its own repetitions, s^2 / m; 0 with fewer than 2.
double withinVarianceOfMean(const std::vector<double>& values)
{
    const auto v = finiteValues(values);
    if (v.size() < 2) {
        return 0;
    }
    const double s = stddev(v);
    return s * s / static_cast<double>(v.size());
}

std::size_t distinctBoots(const std::vector<RunValues>& runs)
{
    std::vector<std::string> boots;
    for (const auto& r : runs) {
        if (std::find(boots.begin(), boots.end(), r.boot) == boots.end()) {
            boots.push_back(r.boot);
        }
    }
    return boots.size();
}

// The lab pairs the runs name, in order of first appearance ("" for runs outside a lab).
std::vector<std::string> distinctPairs(const std::vector<RunValues>& runs)
{
    std::vector<std::string> pairs;
    for (const auto& r : runs) {
        if (std::find(pairs.begin(), pairs.end(), r.pair) == pairs.end()) {
            pairs.push_back(r.pair);
        }
    }
    return pairs;
}

// Said when the two sides were not measured on the same lab pairs (runs outside a lab count as one
// more): the pairs' own difference is in the comparison, and nothing in the runs separates it from
// the change, even when some pairs are shared (the others weigh on one side only).
std::optional<std::string> pairConfounding(const std::vector<RunValues>& base, const std::vector<RunValues>& cand)
{
    auto b = distinctPairs(base);
    auto c = distinctPairs(cand);
    if ((b.size() == 1 && b.front().empty()) && (c.size() == 1 && c.front().empty())) {
        return std::nullopt;  // neither side was measured in a lab
    }
    std::sort(b.begin(), b.end());
    std::sort(c.begin(), c.end());
    if (b == c) {
        return std::nullopt;
    }
    const auto names = [](const std::vector<std::string>& pairs) {
        std::string text;
        for (const auto& p : pairs) {
            text += (text.empty() ? "" : ", ") + (p.empty() ? std::string("outside the lab") : p);
        }
        return text;
    };
    return "the two sides were measured on different lab pairs (" + names(b) + " against " + names(c) +
           "): the difference holds the pairs' own, which these runs cannot separate from the change; measure "
           "both on the same pairs";
}

// One side's unit means (runs or boots) and their mean.
struct Side {
    std::vector<double> units;
    std::string unit;
    double mean = kNaN;
};

// An independent variance estimate and what it adds to seB^2 and seC^2 (relative to the baseline
// mean squared), with its degrees of freedom.
struct Term {
    double b = 0;
    double c = 0;
    double df = 1;
};

// Satterthwaite's degrees of freedom of seC^2 + R^2 seB^2 over independent terms.
double satterthwaite(const std::vector<Term>& terms, double ratio)
{
    double total = 0;
    double denominator = 0;
    for (const auto& t : terms) {
        const double v = t.c + ratio * ratio * t.b;
        total += v;
        denominator += v > 0 ? v * v / t.df : 0;
    }
    return denominator > 0 ? total * total / denominator : kNaN;
}

// Runs needed per side for the verdict's test (Welch's t on n run means per side, df 2 (n - 1))
// to detect `target` with the asked power, where one run's mean varies by perRun (both sides'
// variances summed): the noncentral t's power at noncentrality target / sqrt(perRun / n).
std::optional<double> runsNeeded(double perRun, double target, const CompareOptions& o)
{
    if (!(target > 0) || !(perRun > 0) || !std::isfinite(perRun)) {
        return std::nullopt;
    }
    for (long long count = 2; count <= 1000000; count = count < 64 ? count + 1 : count + count / 20) {
        const auto n = static_cast<double>(count);
        if (stats::tTestPower(target / std::sqrt(perRun / n), 2 * (n - 1), o.alpha) >= o.power) {
            return n;
        }
    }
    return std::nullopt;
}

std::vector<double> pooledValues(const std::vector<RunValues>& runs)
{
    std::vector<double> out;
    for (const auto& r : runs) {
        out.insert(out.end(), r.values.begin(), r.values.end());
    }
    return finiteValues(out);
}

// One side's unit means as a variance term: the variance of their mean, on that side.
Term unitTerm(const Side& side, double scale, bool isBase)
{
    const double k = static_cast<double>(side.units.size());
    const double sd = stddev(side.units) / scale;
    return isBase ? Term{sd * sd / k, 0, k - 1} : Term{0, sd * sd / k, k - 1};
}

// A side's one run: its repetitions' variance of their mean (the within-run share of a run mean's).
Term withinTerm(const std::vector<RunValues>& runs, double scale, bool isBase)
{
    const auto values = pooledValues(runs);
    const double w = withinVarianceOfMean(values) / (scale * scale);
    const double df = static_cast<double>(values.size()) - 1;
    return isBase ? Term{w, 0, df} : Term{0, w, df};
}

// The comparison of the two sides' means from independent variance terms: Fieller's interval of
// the ratio with Satterthwaite's degrees of freedom (at most `maxDf`), and Welch's t on the
// difference.
Comparison fromTerms(const Side& b, const Side& c, const std::vector<Term>& terms, const std::string& unit,
                     const CompareOptions& o, double maxDf = std::numeric_limits<double>::infinity())
{
    double seB2 = 0;
    double seC2 = 0;
    for (const auto& t : terms) {
        seB2 += t.b;
        seC2 += t.c;
    }
    const double scale = std::fabs(b.mean);
    Comparison r;
    r.design = Design::Independent;
    r.unit = unit;
    r.n = b.units.size();
    r.nCandidate = c.units.size();
    r.primaryTest = "Welch t on " + unit + " means (Satterthwaite df)";
    r.direction = c.mean > b.mean ? 1 : c.mean < b.mean ? -1 : 0;
    r.effectSizeName = "difference over the run-to-run SD";
    stats::RatioSummary s;
    s.nB = static_cast<double>(b.units.size());
    s.nC = static_cast<double>(c.units.size());
    s.delta = (c.mean - b.mean) / b.mean;
    s.seB = std::sqrt(seB2);
    s.seC = std::sqrt(seC2);
    s.df = std::min(satterthwaite(terms, 1 + s.delta), maxDf);
    r.interval = independentInterval(s, 1 - o.alpha);
    r.tost = independentInterval(s, 1 - 2 * o.alpha);
    r.interval.method = r.tost.method =
        "ratio of the " + unit + " means, Fieller interval; a " + unit +
        " mean's variance is the run-to-run plus the within-run variance (Satterthwaite df)";
    if (!r.interval.note.empty()) {
        r.warnings.push_back(r.interval.note);
    }
    const double df = std::min(satterthwaite(terms, 1), maxDf);
    const double se = std::sqrt(seB2 + seC2);
    const double diff = (c.mean - b.mean) / scale;
    r.p = r.pAdjusted = se > 0 && df > 0 ? stats::twoSidedT(diff / se, df) : kNaN;
    r.pWelch = r.p;
    const double perRun = seB2 * s.nB + seC2 * s.nC;  // the variance of one run's mean, both sides
    r.effectSize = perRun > 0 ? diff / std::sqrt(perRun / 2) : kNaN;
    r.mdePct = stats::tTestDetectableNoncentrality(df, o.alpha, o.power) * se * 100;
    r.targetPct = o.targetPct.value_or(std::fabs(r.interval.estimatePct));
    r.nNeeded = runsNeeded(perRun, r.targetPct / 100, o);
    return r;
}

// fromTerms with code layout as one more variance component: each build draws its own layout, so
// half of a two-build difference's layout variance is on each side, with the floor's degrees of
// freedom. The degrees of freedom are then at most the layout component's (as in Hsu's
// conservative rule for a sum of independent variance estimates), not Satterthwaite's alone:
// Satterthwaite weighs each component by its estimate, so a placebo that happened to land near the
// baseline (a small estimate with 1 degree of freedom) would lend the sum the noise terms' degrees
// of freedom exactly when the layout variance is most underestimated; in simulation that called
// identical code in two builds different 9% of the time at alpha 5%
// (AcrossRuns.APlaceboHoldsTheLayoutAaAtAlpha). More runs do not shrink the layout component
// (more rebuilds would): no number of runs is sized.
Comparison withLayoutTerm(const Side& b, const Side& c, std::vector<Term> terms, const LayoutFloor& layout,
                          const std::string& unit, const std::string& levels, const CompareOptions& o)
{
    const double v = layout.spreadCv * layout.spreadCv;
    const double df = std::max(layout.df, 1.0);
    terms.push_back({v / 2, v / 2, df});
    Comparison r = fromTerms(b, c, terms, unit, o, df);
    r.interval.method = r.tost.method =
        r.interval.method +
        fmt::format(
            "; plus code layout's variance between two builds ({:.2f}%, {:g} df, and at most as many in "
            "all)",
            layout.spreadCv * 100, layout.df);
    r.effectSizeName = "difference over the run-to-run and layout SD";
    r.nNeeded.reset();
    r.layoutSpreadPct = layout.spreadCv * 100;
    r.layoutsMeasured = layout.builds;
    r.layoutSource = layout.source;
    r.levels = levels;
    return r;
}

}  // namespace

std::vector<double> unitMeans(const std::vector<RunValues>& runs, std::string* unit)
{
    const auto pairs = distinctPairs(runs);
    if (pairs.size() >= 2) {  // runs outside a lab ("") are one more level of their own
        std::vector<double> pairMeans;
        for (const auto& pair : pairs) {
            std::vector<RunValues> onPair;
            std::copy_if(runs.begin(), runs.end(), std::back_inserter(onPair),
                         [&](const RunValues& r) { return r.pair == pair; });
            if (const auto units = unitMeans(onPair); !units.empty()) {
                pairMeans.push_back(mean(units));
            }
        }
        if (unit != nullptr) {
            *unit = "pair";
        }
        return pairMeans;
    }
    std::vector<std::string> boots;
    std::vector<std::vector<double>> perBoot;
    std::vector<double> runMeans;
    bool bootsKnown = true;
    for (const auto& r : runs) {
        const auto v = finiteValues(r.values);
        if (v.empty()) {
            continue;
        }
        runMeans.push_back(mean(v));
        bootsKnown = bootsKnown && !r.boot.empty();
        const auto it = std::find(boots.begin(), boots.end(), r.boot);
        if (it == boots.end()) {
            boots.push_back(r.boot);
            perBoot.push_back({runMeans.back()});
        } else {
            perBoot[static_cast<std::size_t>(it - boots.begin())].push_back(runMeans.back());
        }
    }
    const bool byBoot = bootsKnown && boots.size() >= 2 && boots.size() < runMeans.size();
    if (unit != nullptr) {
        *unit = byBoot ? "boot" : "run";
    }
    if (!byBoot) {
        return runMeans;
    }
    std::vector<double> bootMeans;
    bootMeans.reserve(perBoot.size());
    for (const auto& b : perBoot) {
        bootMeans.push_back(mean(b));
    }
    return bootMeans;
}

double betweenRunVariance(const std::vector<RunValues>& runs, double scale)
{
    std::vector<double> means;
    double within = 0;
    for (const auto& r : runs) {
        const auto v = finiteValues(r.values);
        if (v.empty()) {
            continue;
        }
        means.push_back(mean(v));
        within += withinVarianceOfMean(v);
    }
    if (means.size() < 2 || !(scale != 0)) {
        return kNaN;
    }
    const double s = stddev(means);
    return std::max(0.0, s * s - within / static_cast<double>(means.size())) / (scale * scale);
}

namespace {

Comparison compareUnits(const std::vector<RunValues>& base, const std::vector<RunValues>& cand,
                        const std::optional<RunNoiseFloor>& floor, const CompareOptions& o,
                        const std::optional<LayoutFloor>& layout)
{
    Side b;
    Side c;
    b.units = unitMeans(base, &b.unit);
    c.units = unitMeans(cand, &c.unit);
    const std::string unit = b.unit == "pair" || c.unit == "pair"   ? "pair"
                             : b.unit == "boot" || c.unit == "boot" ? "boot"
                                                                    : "run";
    const auto bootKnown = [](const RunValues& r) { return !r.boot.empty(); };
    const bool bootsKnown =
        std::all_of(base.begin(), base.end(), bootKnown) && std::all_of(cand.begin(), cand.end(), bootKnown);
    std::string levels = fmt::format(
        "{} against {} runs ({}), repetitions nested in runs", base.size(), cand.size(),
        bootsKnown ? fmt::format("{} against {} boots", distinctBoots(base), distinctBoots(cand)) : "boots unknown");
    if (unit == "boot") {
        levels += ", runs in boots";
    } else if (unit == "pair") {
        levels += fmt::format(", runs in lab pairs ({} against {} pairs)", distinctPairs(base).size(),
                              distinctPairs(cand).size());
    }
    const bool withLayout = layout.has_value() && !b.units.empty() && !c.units.empty();
    if (b.units.size() >= 2 && c.units.size() >= 2) {
        const double scale = std::fabs(mean(b.units));
        const double vb = betweenRunVariance(base, scale);
        const double vc = betweenRunVariance(cand, scale);
        const std::string source =
            unit == "pair"
                ? fmt::format("pair-to-pair variance estimated from the pair means (SD {:.2f}% and {:.2f}%)",
                              stddev(b.units) / scale * 100, stddev(c.units) / scale * 100)
                : fmt::format("run-to-run variance estimated from the runs (between-run CV {:.2f}% and {:.2f}%)",
                              std::sqrt(vb) * 100, std::sqrt(vc) * 100);
        if (withLayout) {
            b.mean = mean(b.units);
            c.mean = mean(c.units);
            return withLayoutTerm(b, c, {unitTerm(b, scale, true), unitTerm(c, scale, false)}, *layout, unit,
                                  levels + "; " + source, o);
        }
        Comparison r = compareIndependent(b.units, c.units, o);
        r.unit = unit;
        r.primaryTest = "Welch t on " + unit + " means";
        r.interval.method = r.tost.method = "ratio of the means of " + unit +
                                            " means, Fieller interval (Welch-Satterthwaite df): the run-to-run "
                                            "variance is in the spread of the " +
                                            unit + " means";
        r.levels = levels + "; " + source;
        return r;
    }
    if (b.units.empty() || c.units.empty()) {
        Comparison r = compareIndependent(pooledValues(base), pooledValues(cand), o);
        r.levels = levels;
        return r;
    }
    // A side with one run. Its mean's variance is that of a run mean: the other side's runs
    // estimate it directly (when that side has several), else the calibrated between-run variance
    // plus the run's own s^2 / m; whichever source has more degrees of freedom.
    const double scale = std::fabs(mean(b.units));
    b.mean = mean(b.units);
    c.mean = mean(c.units);
    const Side* several = b.units.size() >= 2 ? &b : c.units.size() >= 2 ? &c : nullptr;
    const double severalDf = several != nullptr ? static_cast<double>(several->units.size()) - 1 : 0;
    if (!(floor && floor->df > severalDf) && several == nullptr) {
        if (withLayout) {  // the runs' own noise as their means' variance: the run-to-run part is missing
            Comparison r = withLayoutTerm(b, c, {withinTerm(base, scale, true), withinTerm(cand, scale, false)},
                                          *layout, "run", levels + "; " + kNoRunCalibration, o);
            r.warnings.insert(r.warnings.begin(), kNoRunCalibration);
            return r;
        }
        Comparison r = compareIndependent(pooledValues(base), pooledValues(cand), o);
        r.warnings.insert(r.warnings.begin(), kNoRunCalibration);
        r.levels = levels + "; " + kNoRunCalibration;
        return r;
    }
    std::vector<Term> terms;  // independent variance estimates: (share of seB^2, of seC^2, df)
    std::string source;
    if (floor && floor->df > severalDf) {
        const double between = floor->betweenCv * floor->betweenCv;
        double onB = 0;
        double onC = 0;
        for (auto* side : {&b, &c}) {
            const bool isBase = side == &b;
            if (side->units.size() >= 2) {
                terms.push_back(unitTerm(*side, scale, isBase));
                continue;
            }
            terms.push_back(withinTerm(isBase ? base : cand, scale, isBase));
            (isBase ? onB : onC) = between;
        }
        terms.push_back({onB, onC, floor->df});
        source = fmt::format("run-to-run noise floor from this machine's calibration (between-run CV {:.2f}%, {})",
                             floor->betweenCv * 100, floor->source);
    } else {
        const double k = static_cast<double>(several->units.size());
        const double sd = stddev(several->units) / scale;
        const double perRun = sd * sd;
        terms.push_back(several == &b ? Term{perRun / k, perRun, k - 1} : Term{perRun, perRun / k, k - 1});
        source = fmt::format(
            "the one run's mean varies as the other side's {:.0f} run means do (SD {:.2f}%, run-to-run and "
            "within-run)",
            k, sd * 100);
    }
    if (withLayout) {
        return withLayoutTerm(b, c, std::move(terms), *layout, "run", levels + "; " + source, o);
    }
    Comparison r = fromTerms(b, c, terms, "run", o);
    r.levels = levels + "; " + source;
    return r;
}

}  // namespace

Comparison compareAcrossRuns(const std::vector<RunValues>& base, const std::vector<RunValues>& cand,
                             const std::optional<RunNoiseFloor>& floor, const CompareOptions& o,
                             const std::optional<LayoutFloor>& layout)
{
    Comparison r = compareUnits(base, cand, floor, o, layout);
    if (const auto confounded = pairConfounding(base, cand)) {
        // The pairs' difference and the change are one number: no verdict rests on it, and no
        // number of runs on the same pairs would make one.
        r.confounded = *confounded;
        r.verdict = decide(r, o, &r.verdictReason);
        r.nNeeded.reset();
        r.warnings.insert(r.warnings.begin(), *confounded);
    }
    return r;
}

std::optional<LayoutFloor> layoutFloor(const std::vector<RunValues>& base,
                                       const std::vector<std::vector<RunValues>>& rebuilds, const std::string& source)
{
    const auto baseUnits = unitMeans(base);
    if (baseUnits.empty()) {
        return std::nullopt;
    }
    std::vector<double> builds{mean(baseUnits)};
    for (const auto& rebuild : rebuilds) {
        if (const auto units = unitMeans(rebuild); !units.empty()) {
            builds.push_back(mean(units));
        }
    }
    const double scale = std::fabs(builds.front());
    if (builds.size() < 2 || !(scale > 0)) {
        return std::nullopt;
    }
    const double sd = stddev(builds) / scale;  // one build's layout SD, sigma
    return LayoutFloor{.spreadCv = std::sqrt(2 * sd * sd),
                       .df = static_cast<double>(builds.size()) - 1,
                       .builds = builds.size(),
                       .source = source};
}

}  // namespace nf::engine
