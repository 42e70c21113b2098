#include "engine/analysis/series.h"

#include <fmt/format.h>
#include <algorithm>
#include <boost/math/distributions/students_t.hpp>
#include <cmath>
#include <limits>
#include <numeric>
#include <optional>
#include <random>

#include "engine/analysis/across_runs.h"
#include "engine/analysis/series_blocked.h"
#include "engine/stats/hypothesis_tests.h"

namespace nf::engine {
namespace {

constexpr double kNaN = std::numeric_limits<double>::quiet_NaN();

constexpr const char* kPersistence =
    "A change is a level that stays: a step alone between two changes, on the same side of both "
    "neighbours, is named as standing apart and the search made again without it (at alpha / (1 + the "
    "steps taken out)); a change right after the first step or at the last is reported as that step "
    "differing from the rest, not as a change.";

// E[the largest of n chi-square(1) values] = integral of 1 - F(x)^n, F(x) = erf(sqrt(x / 2)),
// taken over u = sqrt(x) by the midpoint rule (the integrand is below 1e-30 past u = 12).
double expectedLargestChiSquare1(std::size_t n)
{
    const double h = 1e-3;
    double sum = 0;
    for (int i = 0; i < 12000; ++i) {
        const double u = (i + 0.5) * h;
        sum += 2 * u * (1 - std::pow(std::erf(u / std::sqrt(2.0)), static_cast<double>(n))) * h;
    }
    return sum;
}

// The mean of the n - 1 smallest of n squared differences, times this, estimates their variance.
double trimmedConstant(std::size_t n)
{
    return n < 3 ? 1.0 : (static_cast<double>(n) - 1) / (static_cast<double>(n) - expectedLargestChiSquare1(n));
}

double betweenOfSteps(const std::vector<double>& means, const std::vector<double>& within, double constant,
                      bool trim = true)
{
    if (means.size() < 2) {
        return 0;
    }
    std::vector<double> squares;
    for (std::size_t k = 1; k < means.size(); ++k) {
        squares.push_back((means[k] - means[k - 1]) * (means[k] - means[k - 1]));
    }
    std::sort(squares.begin(), squares.end());
    if (trim && squares.size() >= 3) {
        squares.pop_back();  // the largest: where a step changes, if one does
    }
    return std::max(0.0, constant * mean(squares) / 2 - mean(within));
}

// Welch's |t| from sums; 0 when undefined, infinite when both sides are constant but differ.
double welchAbsT(double n1, double s1, double q1, double n2, double s2, double q2)
{
    if (n1 < 2 || n2 < 2) {
        return 0;
    }
    const double m1 = s1 / n1;
    const double m2 = s2 / n2;
    const double v1 = std::max(0.0, (q1 - n1 * m1 * m1) / (n1 - 1));
    const double v2 = std::max(0.0, (q2 - n2 * m2 * m2) / (n2 - 1));
    const double se = std::sqrt(v1 / n1 + v2 / n2);
    const double diff = std::fabs(m2 - m1);
    if (se == 0) {
        return diff == 0 ? 0 : std::numeric_limits<double>::infinity();
    }
    return diff / se;
}

StepStats stepStats(const SeriesStep& step, double alpha)
{
    StepStats s;
    s.name = step.name;
    s.summary = summarize(step.values);
    s.ciLow = s.ciHigh = kNaN;
    if (step.values.size() >= 2) {
        const boost::math::students_t_distribution<double> t(static_cast<double>(step.values.size() - 1));
        const double half = boost::math::quantile(t, 1 - alpha / 2) * s.summary.stddev /
                            std::sqrt(static_cast<double>(step.values.size()));
        s.ciLow = s.summary.mean - half;
        s.ciHigh = s.summary.mean + half;
    }
    s.deltaPrevPct = kNaN;
    s.pPrev = kNaN;
    return s;
}

// Separate runs: each step's mean, s^2 / m and the between-run variance they imply.
struct RunLevel {
    std::vector<double> means;
    std::vector<double> within;
    std::vector<double> reps;
    double between = 0;
    double scale = 1;     // |mean of the step means|
    double constant = 1;  // trimmedConstant of the adjacent differences
};

double withinOfMean(const std::vector<double>& values)
{
    if (values.size() < 2) {
        return 0;
    }
    const double sd = stddev(values);
    return sd * sd / static_cast<double>(values.size());
}

RunLevel runLevel(const std::vector<SeriesStep>& steps)
{
    RunLevel r;
    for (const auto& s : steps) {
        r.means.push_back(mean(s.values));
        r.within.push_back(withinOfMean(s.values));
        r.reps.push_back(static_cast<double>(s.values.size()));
    }
    r.constant = trimmedConstant(steps.size() - 1);
    r.between = betweenOfSteps(r.means, r.within, r.constant);
    r.scale = std::fabs(mean(r.means));
    return r;
}

// The degrees of freedom of the between-run estimate: one per adjacent difference but the first.
double betweenDf(std::size_t steps)
{
    return std::max(1.0, static_cast<double>(steps) - 2);
}

// The split of step means [begin, end) with the largest |M2 - M1| / sqrt(V1 + V2), each side's
// V the sum of (between + w_k) over its steps, over its count squared. The between-run variance
// of a split is estimated from every adjacent difference of the series but the one the split
// falls on (a change there would inflate it): the mean of their squares, halved, less the mean w.
BestSplit bestSplitOfMeans(const std::vector<double>& means, const std::vector<double>& within, std::size_t begin,
                           std::size_t end)
{
    double sumSquares = 0;
    for (std::size_t k = 1; k < means.size(); ++k) {
        sumSquares += (means[k] - means[k - 1]) * (means[k] - means[k - 1]);
    }
    const double others = static_cast<double>(means.size()) - 2;
    const double meanWithin = mean(within);
    BestSplit best;
    for (std::size_t j = begin + 1; j < end; ++j) {
        const double dj = means[j] - means[j - 1];
        const double between = std::max(0.0, (sumSquares - dj * dj) / others / 2 - meanWithin);
        double s1 = 0;
        double v1 = 0;
        double s2 = 0;
        double v2 = 0;
        for (std::size_t k = begin; k < end; ++k) {
            (k < j ? s1 : s2) += means[k];
            (k < j ? v1 : v2) += between + within[k];
        }
        const double n1 = static_cast<double>(j - begin);
        const double n2 = static_cast<double>(end - j);
        const double se = std::sqrt(v1 / (n1 * n1) + v2 / (n2 * n2));
        const double diff = std::fabs(s2 / n2 - s1 / n1);
        const double t = se > 0 ? diff / se : (diff == 0 ? 0 : std::numeric_limits<double>::infinity());
        if (t > best.statistic) {
            best = {j - begin, t};
        }
    }
    return best;
}

// The share of series simulated without a change (step means from the normal with the estimated
// run-to-run and within-run variances, each step's s^2 / m redrawn from its chi-square), with the
// between-run variance estimated again in each, whose best split over [begin, end) is at least
// `observed`: the estimate's own noise and the choice of the split are part of the test.
// One series of step means simulated without a change or a disturbed run: each step's mean from
// the normal with `between` plus its within-run variance, its s^2 / m redrawn from its chi-square.
struct NullSeries {
    std::vector<double> means;
    std::vector<double> within;

    NullSeries(const RunLevel& rl, double between) : m_rl(rl), m_between(between)
    {
        means.resize(rl.means.size());
        within.resize(rl.means.size());
    }
    void draw(std::mt19937_64& rng)
    {
        for (std::size_t k = 0; k < means.size(); ++k) {
            means[k] = std::sqrt(m_between + m_rl.within[k]) * m_z(rng);
            const double df = m_rl.reps[k] - 1;
            within[k] = df >= 1 ? m_rl.within[k] * std::chi_squared_distribution<double>(df)(rng) / df : 0;
        }
    }

private:
    const RunLevel& m_rl;
    double m_between;
    std::normal_distribution<double> m_z{0.0, 1.0};
};

double simulatedP(const RunLevel& rl, std::size_t begin, std::size_t end, double observed, int draws,
                  std::mt19937_64& rng)
{
    NullSeries series(rl, rl.between);
    int atLeast = 0;
    for (int i = 0; i < draws; ++i) {
        series.draw(rng);
        if (bestSplitOfMeans(series.means, series.within, begin, end).statistic >= observed * (1 - 1e-12)) {
            ++atLeast;
        }
    }
    return (1.0 + atLeast) / (1.0 + draws);
}

// Each step against the previous as two runs: their difference's variance is twice the
// between-run variance plus both within-run parts (Satterthwaite df).
void compareAdjacentRuns(const RunLevel& rl, std::vector<StepStats>& out)
{
    std::vector<double> p;
    const double dfB = betweenDf(rl.means.size());
    for (std::size_t k = 1; k < rl.means.size(); ++k) {
        const double before = rl.means[k - 1];
        out[k].deltaPrevPct = before != 0 ? (rl.means[k] / before - 1) * 100 : kNaN;
        const double a = 2 * rl.between;
        const double w = rl.within[k - 1] + rl.within[k];
        const double v = a + w;
        const double dfW = std::max(1.0, std::min(rl.reps[k - 1], rl.reps[k]) - 1);
        const double den = (a > 0 ? a * a / dfB : 0) + (w > 0 ? w * w / (2 * dfW) : 0);
        const double diff = rl.means[k] - before;
        p.push_back(v > 0 && den > 0 ? stats::twoSidedT(diff / std::sqrt(v), v * v / den) : 1.0);
    }
    const auto adjusted = stats::holm(p);
    for (std::size_t k = 1; k < rl.means.size(); ++k) {
        out[k].pPrev = adjusted[k - 1];
    }
}

// Separate runs: each step's interval holds the run-to-run variance too (Satterthwaite df).
void widenStepIntervals(const RunLevel& rl, double alpha, std::vector<StepStats>& out)
{
    const double dfB = betweenDf(rl.means.size());
    for (std::size_t k = 0; k < out.size(); ++k) {
        const double v = rl.between + rl.within[k];
        const double dfW = rl.reps[k] - 1;
        const double den = (rl.between > 0 ? rl.between * rl.between / dfB : 0) +
                           (rl.within[k] > 0 && dfW >= 1 ? rl.within[k] * rl.within[k] / dfW : 0);
        if (!(v > 0) || !(den > 0)) {
            continue;
        }
        const boost::math::students_t_distribution<double> t(v * v / den);
        const double half = boost::math::quantile(t, 1 - alpha / 2) * std::sqrt(v);
        out[k].ciLow = rl.means[k] - half;
        out[k].ciHigh = rl.means[k] + half;
    }
}

void compareAdjacent(const std::vector<SeriesStep>& steps, std::vector<StepStats>& out)
{
    std::vector<double> p;
    std::vector<std::size_t> at;
    for (std::size_t k = 1; k < steps.size(); ++k) {
        const double before = out[k - 1].summary.mean;
        out[k].deltaPrevPct = before != 0 ? (out[k].summary.mean / before - 1) * 100 : kNaN;
        if (steps[k - 1].values.size() >= 2 && steps[k].values.size() >= 2) {
            const double pk = stats::welchT(steps[k - 1].values, steps[k].values).p;
            p.push_back(std::isnan(pk) ? 1.0 : pk);
            at.push_back(k);
        }
    }
    const auto adjusted = stats::holm(p);
    for (std::size_t i = 0; i < at.size(); ++i) {
        out[at[i]].pPrev = adjusted[i];
    }
}

// Separate runs: how far step k stands from both neighbours on the same side: the nearer one's
// distance over the standard error of a difference of two runs. 0 for the first and last step, and
// where the neighbours lie on either side of it (a change passes through k).
double aloneStatistic(const std::vector<double>& means, const std::vector<double>& within, double between,
                      std::size_t k)
{
    if (k == 0 || k + 1 >= means.size()) {
        return 0;
    }
    const double left = means[k] - means[k - 1];
    const double right = means[k] - means[k + 1];
    if (left * right <= 0) {
        return 0;
    }
    const bool leftNearer = std::fabs(left) <= std::fabs(right);
    const double d = std::min(std::fabs(left), std::fabs(right));
    const double v = 2 * between + within[k] + within[leftNearer ? k - 1 : k + 1];
    return v > 0 ? d / std::sqrt(v) : (d > 0 ? std::numeric_limits<double>::infinity() : 0);
}

struct Alone {
    std::size_t step = 0;
    double statistic = 0;
    double between = 0;  // the between-run variance estimated without the step
};

// The step standing farthest apart, each judged against the between-run variance estimated without
// it (one disturbed run inflates both differences beside it). `constant`: trimmedConstant of the
// n - 2 adjacent differences left.
Alone mostAlone(const std::vector<double>& means, const std::vector<double>& within, double constant)
{
    Alone best;
    std::vector<double> m;
    std::vector<double> w;
    for (std::size_t k = 1; k + 1 < means.size(); ++k) {
        m.clear();
        w.clear();
        for (std::size_t j = 0; j < means.size(); ++j) {
            if (j != k) {
                m.push_back(means[j]);
                w.push_back(within[j]);
            }
        }
        const double between = betweenOfSteps(m, w, constant, constant == 1.0 ? false : true);
        const double t = aloneStatistic(means, within, between, k);
        if (t > best.statistic) {
            best = {k, t, between};
        }
    }
    return best;
}

// The share of series simulated with neither a change nor a disturbed run (as simulatedP, with the
// between-run variance estimated without the step found) whose step standing farthest apart stands
// at least `observed` apart.
double aloneP(const RunLevel& rl, double between, double observed, int draws, double constant, std::mt19937_64& rng)
{
    NullSeries series(rl, between);
    int atLeast = 0;
    for (int i = 0; i < draws; ++i) {
        series.draw(rng);
        if (mostAlone(series.means, series.within, constant).statistic >= observed * (1 - 1e-12)) {
            ++atLeast;
        }
    }
    return (1.0 + atLeast) / (1.0 + draws);
}

std::vector<SeriesStep> subset(const std::vector<SeriesStep>& steps, const std::vector<std::size_t>& kept)
{
    std::vector<SeriesStep> out;
    out.reserve(kept.size());
    for (const auto k : kept) {
        out.push_back(steps[k]);
    }
    return out;
}

double pctOf(double value, double reference)
{
    return reference != 0 ? (value / reference - 1) * 100 : kNaN;
}

// Separate runs: takes out, one at a time, the run standing farthest apart from both neighbours
// while the simulated p of one standing that far in a series without one is below alpha. Each is
// reported by name, and the change points are looked for in the steps left.
void takeOutAloneRuns(const std::vector<SeriesStep>& steps, const SeriesOptions& options,
                      std::vector<std::size_t>& kept, std::vector<StepApart>& apart)
{
    std::mt19937_64 rng(options.seed ^ 0x9e3779b97f4a7c15ULL);
    // The first needs 4 steps (2 with neighbours on both sides); a further one 6 left, since the
    // run-to-run variance of fewer is too rough to single out a second.
    while (kept.size() >= (apart.empty() ? 4u : 6u)) {
        const RunLevel rl = runLevel(subset(steps, kept));
        const double constant = 1.0;
        const auto best = mostAlone(rl.means, rl.within, constant);
        if (best.statistic == 0) {
            return;
        }
        // The first at alpha, the j-th at alpha / j: a run taken out makes the rest look quieter.
        const double p = aloneP(rl, best.between, best.statistic, options.permutations, constant, rng);
        if (!(p < options.alpha / static_cast<double>(apart.size() + 1))) {
            return;
        }
        const double neighbours = (rl.means[best.step - 1] + rl.means[best.step + 1]) / 2;
        apart.push_back({kept[best.step], StepApart::Kind::Alone, pctOf(rl.means[best.step], neighbours), p});
        kept.erase(kept.begin() + static_cast<std::ptrdiff_t>(best.step));
    }
}

class Segmenter {
public:
    Segmenter(const std::vector<SeriesStep>& steps, const SeriesOptions& options, const RunLevel* runs)
        : m_steps(steps), m_options(options), m_runs(runs), m_rng(options.seed)
    {
    }

    // Tests [begin, end) and, when its best split is significant, both halves.
    void run(std::size_t begin, std::size_t end, std::vector<ChangePoint>& tested, std::vector<int>& parent, int up)
    {
        if (end - begin < 2) {
            return;
        }
        std::vector<double> values;
        std::vector<std::size_t> sizes;
        for (std::size_t k = begin; k < end; ++k) {
            values.insert(values.end(), m_steps[k].values.begin(), m_steps[k].values.end());
            sizes.push_back(m_steps[k].values.size());
        }
        if (m_options.blocked) {
            values = alignedRanks(centredByRepetition(m_steps, begin, end));
        }
        const auto best =
            m_runs != nullptr ? bestSplitOfMeans(m_runs->means, m_runs->within, begin, end) : bestSplit(values, sizes);
        if (best.step == 0) {
            return;
        }
        ChangePoint c;
        c.step = begin + best.step;
        c.segmentBegin = begin;
        c.segmentEnd = end;
        c.statistic = best.statistic;
        const CompareOptions compare{m_options.alpha, 1.0, {}, 0.8};
        if (m_runs != nullptr) {
            c.p = simulatedP(*m_runs, begin, end, best.statistic, m_options.permutations, m_rng);
            c.effect = effectAcrossRuns(begin, c.step, end, compare);
        } else if (m_options.blocked) {
            c.p = blockedPermutationP(values, end - begin, best.statistic, m_options.permutations, m_rng);
            c.effect = comparePaired(geometricMeanPerRepetition(m_steps, begin, c.step),
                                     geometricMeanPerRepetition(m_steps, c.step, end), compare);
        } else {
            c.p = permutationP(values, sizes, best.statistic);
            const std::size_t before =
                std::accumulate(sizes.begin(), sizes.begin() + static_cast<long>(best.step), std::size_t{0});
            const auto split = values.begin() + static_cast<long>(before);
            c.effect = compareIndependent(std::vector<double>(values.begin(), split),
                                          std::vector<double>(split, values.end()), compare);
        }
        tested.push_back(c);
        parent.push_back(up);
        if (c.p < m_options.alpha) {
            const int me = static_cast<int>(tested.size()) - 1;
            run(begin, c.step, tested, parent, me);
            run(c.step, end, tested, parent, me);
        }
    }

private:
    // After against before with each step a run (engine/analysis/across_runs.h); the run-to-run
    // variance estimated from the steps stands in for a side with one step.
    Comparison effectAcrossRuns(std::size_t begin, std::size_t split, std::size_t end, const CompareOptions& o) const
    {
        std::vector<RunValues> before;
        std::vector<RunValues> after;
        for (std::size_t k = begin; k < end; ++k) {
            (k < split ? before : after).push_back({"step" + std::to_string(k), m_steps[k].values});
        }
        const RunNoiseFloor floor{.betweenCv = m_runs->scale > 0 ? std::sqrt(m_runs->between) / m_runs->scale : 0,
                                  .df = betweenDf(m_steps.size()),
                                  .runs = m_steps.size(),
                                  .boots = 0,
                                  .source = "estimated from the steps"};
        return compareAcrossRuns(before, after, floor, o);
    }

    double permutationP(std::vector<double> values, const std::vector<std::size_t>& sizes, double observed)
    {
        int atLeast = 0;
        for (int i = 0; i < m_options.permutations; ++i) {
            std::shuffle(values.begin(), values.end(), m_rng);
            if (bestSplit(values, sizes).statistic >= observed * (1 - 1e-12)) {
                ++atLeast;
            }
        }
        return (1.0 + atLeast) / (1.0 + m_options.permutations);
    }

    const std::vector<SeriesStep>& m_steps;
    const SeriesOptions& m_options;
    const RunLevel* m_runs;  // separate runs: the run-level variance; nullptr: repetitions exchangeable
    std::mt19937_64 m_rng;
};

struct Segments {
    std::vector<ChangePoint> tested;   // every segment test, in the order made
    std::vector<ChangePoint> changes;  // significant ones, by step
};

// Binary segmentation of `steps`: with `runs`, each step its own run (the run-level variance
// estimated from them); otherwise as `options` says (exchangeable repetitions or blocked).
Segments segment(const std::vector<SeriesStep>& steps, const SeriesOptions& options, bool runs)
{
    const RunLevel rl = runs ? runLevel(steps) : RunLevel{};
    Segments s;
    std::vector<int> parent;
    Segmenter(steps, options, runs ? &rl : nullptr).run(0, steps.size(), s.tested, parent, -1);
    std::vector<double> p;
    for (const auto& c : s.tested) {
        p.push_back(c.p);
    }
    // Separate runs: a segment is tested only when its parent is significant, and the parent's test
    // guards the family (under no change at all, a change is reported at most alpha of the time).
    const auto adjusted = runs ? p : stats::holm(p);
    std::vector<bool> kept(s.tested.size(), false);
    for (std::size_t i = 0; i < s.tested.size(); ++i) {  // parents come before their children
        s.tested[i].pAdjusted = adjusted[i];
        kept[i] = adjusted[i] < options.alpha && (parent[i] < 0 || kept[static_cast<std::size_t>(parent[i])]);
        if (kept[i]) {
            s.changes.push_back(s.tested[i]);
        }
    }
    std::sort(s.changes.begin(), s.changes.end(), [](const auto& a, const auto& b) { return a.step < b.step; });
    return s;
}

// A step alone between two changes and on the same side of both neighbours: one disturbed
// measurement, not two changes. Its position in `steps`, if there is one.
std::optional<std::size_t> aloneBetweenChanges(const std::vector<ChangePoint>& changes,
                                               const std::vector<SeriesStep>& steps)
{
    for (std::size_t i = 0; i + 1 < changes.size(); ++i) {
        const std::size_t k = changes[i].step;
        if (changes[i + 1].step == k + 1 && k + 1 < steps.size()) {
            const double here = mean(steps[k].values);
            if ((here - mean(steps[k - 1].values)) * (here - mean(steps[k + 1].values)) > 0) {
                return k;
            }
        }
    }
    return std::nullopt;
}

// The change points of the steps `kept`, in the series' own step numbers, without those that do not
// persist: a step alone between two changes is taken out and the rest searched again; a change
// right after the first step or at the last leaves that step differing from the rest, said by name.
void findChanges(const std::vector<SeriesStep>& steps, const SeriesOptions& options, bool runs,
                 std::vector<std::size_t> kept, SeriesResult& r)
{
    for (;;) {
        const auto sub = subset(steps, kept);
        // Steps taken out leave the rest looking quieter than they are: the search is then made at
        // alpha / (1 + the number taken out).
        SeriesOptions o = options;
        o.alpha = options.alpha / static_cast<double>(1 + r.apart.size());
        auto found = segment(sub, o, runs && sub.size() >= 3);
        if (const auto k = aloneBetweenChanges(found.changes, sub); k && kept.size() > 3) {
            const double neighbours = (mean(sub[*k - 1].values) + mean(sub[*k + 1].values)) / 2;
            r.apart.push_back({kept[*k], StepApart::Kind::Alone, pctOf(mean(sub[*k].values), neighbours), kNaN});
            kept.erase(kept.begin() + static_cast<std::ptrdiff_t>(*k));
            continue;
        }
        const auto restMean = [&](std::size_t begin, std::size_t end, std::size_t without) {
            std::vector<double> means;
            for (std::size_t j = begin; j < end; ++j) {
                if (j != without) {
                    means.push_back(mean(sub[j].values));
                }
            }
            return mean(means);
        };
        auto& changes = found.changes;
        if (!changes.empty() && changes.back().step + 1 == sub.size()) {
            const auto& c = changes.back();
            const double rest = restMean(c.segmentBegin, c.segmentEnd, c.step);
            r.apart.push_back(
                {kept[c.step], StepApart::Kind::Last, pctOf(mean(sub[c.step].values), rest), c.pAdjusted});
            changes.pop_back();
        }
        if (!changes.empty() && changes.front().step == 1 && sub.size() > 2) {
            const auto& c = changes.front();
            const double rest = restMean(c.segmentBegin, c.segmentEnd, 0);
            r.apart.push_back({kept[0], StepApart::Kind::First, pctOf(mean(sub[0].values), rest), c.pAdjusted});
            changes.erase(changes.begin());
        }
        const auto original = [&](std::size_t j) { return j < kept.size() ? kept[j] : steps.size(); };
        for (auto* list : {&found.tested, &found.changes}) {
            for (auto& c : *list) {
                c.step = original(c.step);
                c.segmentBegin = original(c.segmentBegin);
                c.segmentEnd = original(c.segmentEnd);
            }
        }
        r.tested = std::move(found.tested);
        r.changes = std::move(found.changes);
        std::sort(r.apart.begin(), r.apart.end(), [](const auto& a, const auto& b) { return a.step < b.step; });
        return;
    }
}

}  // namespace

std::string describe(const StepApart& apart, const std::vector<StepStats>& steps)
{
    const std::string& name = steps.at(apart.step).name;
    const std::string p = std::isnan(apart.p) ? std::string() : fmt::format(", p={:.3g}", apart.p);
    switch (apart.kind) {
        case StepApart::Kind::Alone:
            return fmt::format("{} stands apart: rerun it ({:+.2f}% from its neighbours{})", name, apart.deltaPct, p);
        case StepApart::Kind::First:
            return fmt::format(
                "{} differs from the rest ({:+.2f}%{}): a change or a disturbed run; rerun {} or add a step "
                "before it",
                name, apart.deltaPct, p, name);
        case StepApart::Kind::Last:
            return fmt::format(
                "{} differs from the rest ({:+.2f}%{}): a change or a disturbed run; rerun {} or add a step after "
                "it",
                name, apart.deltaPct, p, name);
    }
    return name;
}

BestSplit bestSplit(const std::vector<double>& values, const std::vector<std::size_t>& sizes)
{
    double n = 0;
    double s = 0;
    double q = 0;
    for (double v : values) {
        n += 1;
        s += v;
        q += v * v;
    }
    BestSplit best;
    double ln = 0;
    double ls = 0;
    double lq = 0;
    std::size_t i = 0;
    for (std::size_t k = 0; k + 1 < sizes.size(); ++k) {
        for (std::size_t j = 0; j < sizes[k]; ++j, ++i) {
            ln += 1;
            ls += values[i];
            lq += values[i] * values[i];
        }
        const double t = welchAbsT(ln, ls, lq, n - ln, s - ls, q - lq);
        if (t > best.statistic) {
            best = {k + 1, t};
        }
    }
    return best;
}

double betweenRunVarianceOfSteps(const std::vector<double>& means, const std::vector<double>& within)
{
    return betweenOfSteps(means, within, trimmedConstant(means.size() - 1));
}

Result<SeriesResult> analyzeSeries(const std::vector<SeriesStep>& steps, const SeriesOptions& options)
{
    if (steps.size() < 2) {
        return Error{"a series needs at least 2 steps, got " + std::to_string(steps.size())};
    }
    if (!(options.alpha > 0 && options.alpha < 0.5)) {
        return Error{"--alpha " + std::to_string(options.alpha) + ": must be between 0 and 0.5"};
    }
    if (options.permutations < 99) {
        return Error{"--permutations " + std::to_string(options.permutations) + ": at least 99"};
    }
    SeriesResult r;
    for (const auto& step : steps) {
        if (step.values.empty()) {
            return Error{"step '" + step.name + "' has no values of the metric"};
        }
        if (step.values.size() < 2) {
            r.warnings.push_back("step '" + step.name +
                                 "' has one value: no interval, and it cannot be told apart "
                                 "from its neighbours on its own");
        }
        r.steps.push_back(stepStats(step, options.alpha));
    }
    if (options.blocked) {
        for (const auto& step : steps) {
            if (step.values.size() != steps.front().values.size() || step.values.size() < 2) {
                return Error{"a blocked series needs the same number of repetitions (at least 2) in every step; '" +
                             step.name + "' has " + std::to_string(step.values.size())};
            }
            if (std::any_of(step.values.begin(), step.values.end(), [](double v) { return !(v > 0); })) {
                return Error{"a blocked series compares ratios: step '" + step.name +
                             "' has a value that is not "
                             "positive"};
            }
        }
    }
    const bool runs = options.separateRuns && !options.blocked && steps.size() >= 3;
    std::vector<std::size_t> kept(steps.size());
    std::iota(kept.begin(), kept.end(), std::size_t{0});
    if (runs) {
        takeOutAloneRuns(steps, options, kept, r.apart);
    }
    RunLevel rl = runs ? runLevel(steps) : RunLevel{};
    if (runs && kept.size() < steps.size()) {  // the run-to-run variance without the runs standing apart
        const RunLevel left = runLevel(subset(steps, kept));
        rl.between = left.between;
    }
    if (runs) {
        compareAdjacentRuns(rl, r.steps);
        widenStepIntervals(rl, options.alpha, r.steps);
        r.betweenRunCv = rl.scale > 0 ? std::sqrt(rl.between) / rl.scale : kNaN;
    } else if (options.blocked) {
        compareAdjacentBlocked(steps, options.alpha, r.steps);
    } else {
        compareAdjacent(steps, r.steps);
        if (options.separateRuns) {
            r.warnings.emplace_back(
                "2 steps: no run-to-run variance can be estimated from the steps; the test takes the "
                "repetitions as independent and claims more than separate runs show");
        }
    }

    findChanges(steps, options, runs, kept, r);
    if (runs) {
        r.method = fmt::format(
            "each step is its own run: the run-to-run variance of the step means is estimated from the "
            "adjacent steps' differences (their mean square without the largest, made unbiased, less the "
            "within-run part: between-run CV {:.2f}%) and counted in every interval and test. Binary "
            "segmentation of the step means: in each segment the split with the largest |difference| over its "
            "standard error (run-to-run variance from every adjacent difference but the split's own, plus "
            "within-run); its p-value is the share of {} series simulated without a change (seed {}), each "
            "estimating the run-to-run variance again, whose largest statistic is at least as large. A "
            "significant segment is split again and its halves tested at alpha {:g}; the first test guards "
            "the family. Before the search, the run standing farthest from both neighbours on one side (the "
            "nearer one's distance over its standard error, the run-to-run variance estimated without it) is "
            "taken out and named when as far is found in under alpha of {} series simulated without one, and "
            "the next looked for. {}",
            r.betweenRunCv * 100, options.permutations, options.seed, options.alpha, options.permutations,
            kPersistence);
        return r;
    }
    if (options.blocked) {
        r.method = fmt::format(
            "the steps are the variants of one interleaved run, paired by block (a repetition, or a chunk round "
            "when the run alternated in chunks): each step against the previous by the paired design over the "
            "blocks (p Holm-adjusted). Binary segmentation: in each segment every block's mean log over the "
            "segment's steps is taken out of the logs, the centred values are ranked over the segment (aligned "
            "ranks), and the split with the largest Welch |t| of the ranks before and after it is found; its p-value "
            "is the share of {} permutations of the steps within "
            "each block (seed {}) whose largest |t| is at least as large. Significant segments are split again; "
            "p-values are Holm-adjusted over every segment tested (alpha {:g}). A change's effect is paired too: "
            "per block, the geometric mean of the steps after against the steps before. {}",
            options.permutations, options.seed, options.alpha, kPersistence);
        return r;
    }
    r.method =
        "binary segmentation of the steps: in each segment the split with the largest Welch |t| between "
        "the repetition values before and after it; its p-value is the share of " +
        std::to_string(options.permutations) + " random permutations of the segment's values over its steps (seed " +
        std::to_string(options.seed) +
        ") whose largest |t| is at least as large, so the search for the split is part of the test. "
        "Significant segments are split again; p-values are Holm-adjusted over every segment tested " +
        fmt::format("(alpha {:g}). {}", options.alpha, kPersistence);
    return r;
}

}  // namespace nf::engine
