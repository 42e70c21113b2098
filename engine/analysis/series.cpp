#include "engine/analysis/series.h"

#include <fmt/format.h>
#include <algorithm>
#include <boost/math/distributions/students_t.hpp>
#include <cmath>
#include <limits>
#include <numeric>
#include <random>

#include "engine/stats/hypothesis_tests.h"

namespace nf::engine {
namespace {

constexpr double kNaN = std::numeric_limits<double>::quiet_NaN();

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

class Segmenter {
public:
    Segmenter(const std::vector<SeriesStep>& steps, const SeriesOptions& options)
        : m_steps(steps), m_options(options), m_rng(options.seed)
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
        const auto best = bestSplit(values, sizes);
        if (best.step == 0) {
            return;
        }
        ChangePoint c;
        c.step = begin + best.step;
        c.segmentBegin = begin;
        c.segmentEnd = end;
        c.statistic = best.statistic;
        c.p = permutationP(values, sizes, best.statistic);
        const std::size_t before =
            std::accumulate(sizes.begin(), sizes.begin() + static_cast<long>(best.step), std::size_t{0});
        const auto split = values.begin() + static_cast<long>(before);
        c.effect = compareIndependent(std::vector<double>(values.begin(), split),
                                      std::vector<double>(split, values.end()), {m_options.alpha, 1.0, {}, 0.8});
        tested.push_back(c);
        parent.push_back(up);
        if (c.p < m_options.alpha) {
            const int me = static_cast<int>(tested.size()) - 1;
            run(begin, c.step, tested, parent, me);
            run(c.step, end, tested, parent, me);
        }
    }

private:
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
    std::mt19937_64 m_rng;
};

}  // namespace

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
    compareAdjacent(steps, r.steps);

    std::vector<int> parent;
    Segmenter(steps, options).run(0, steps.size(), r.tested, parent, -1);
    std::vector<double> p;
    for (const auto& c : r.tested) {
        p.push_back(c.p);
    }
    const auto adjusted = stats::holm(p);
    std::vector<bool> kept(r.tested.size(), false);
    for (std::size_t i = 0; i < r.tested.size(); ++i) {  // parents come before their children
        r.tested[i].pAdjusted = adjusted[i];
        kept[i] = adjusted[i] < options.alpha && (parent[i] < 0 || kept[static_cast<std::size_t>(parent[i])]);
        if (kept[i]) {
            r.changes.push_back(r.tested[i]);
        }
    }
    std::sort(r.changes.begin(), r.changes.end(), [](const auto& a, const auto& b) { return a.step < b.step; });
    r.method =
        "binary segmentation of the steps: in each segment the split with the largest Welch |t| between "
        "the repetition values before and after it; its p-value is the share of " +
        std::to_string(options.permutations) + " random permutations of the segment's values over its steps (seed " +
        std::to_string(options.seed) +
        ") whose largest |t| is at least as large, so the search for the split is part of the test. "
        "Significant segments are split again; p-values are Holm-adjusted over every segment tested " +
        fmt::format("(alpha {:g}).", options.alpha);
    return r;
}

}  // namespace nf::engine
