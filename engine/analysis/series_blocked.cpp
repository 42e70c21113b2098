// The steps of a series as the variants of one interleaved run (SeriesOptions::blocked): the
// repetitions are the blocks, each holding one value of every step, measured side by side.

#include "engine/analysis/series_blocked.h"

#include <algorithm>
#include <cmath>

#include "engine/stats/hypothesis_tests.h"

namespace nf::engine {

// Blocked: each step against the previous, paired by repetition (comparePaired's primary test).
void compareAdjacentBlocked(const std::vector<SeriesStep>& steps, double alpha, std::vector<StepStats>& out)
{
    std::vector<double> p;
    const CompareOptions compare{alpha, 1.0, {}, 0.8};
    for (std::size_t k = 1; k < steps.size(); ++k) {
        const auto c = comparePaired(steps[k - 1].values, steps[k].values, compare);
        out[k].deltaPrevPct = c.interval.estimatePct;
        p.push_back(std::isnan(c.p) ? 1.0 : c.p);
    }
    const auto adjusted = stats::holm(p);
    for (std::size_t k = 1; k < steps.size(); ++k) {
        out[k].pPrev = adjusted[k - 1];
    }
}

// Blocked: the logs of the values of steps [begin, end), each repetition's mean log over those
// steps taken out, step after step (the layout bestSplit takes).
std::vector<double> centredByRepetition(const std::vector<SeriesStep>& steps, std::size_t begin, std::size_t end)
{
    const std::size_t reps = steps[begin].values.size();
    std::vector<double> centre(reps, 0);
    for (std::size_t k = begin; k < end; ++k) {
        for (std::size_t i = 0; i < reps; ++i) {
            centre[i] += std::log(steps[k].values[i]) / static_cast<double>(end - begin);
        }
    }
    std::vector<double> out;
    for (std::size_t k = begin; k < end; ++k) {
        for (std::size_t i = 0; i < reps; ++i) {
            out.push_back(std::log(steps[k].values[i]) - centre[i]);
        }
    }
    return out;
}

// Blocked: the midranks of the centred values over the whole segment (aligned ranks). A
// permutation within a block moves ranks with their values, so the ranks are taken once.
std::vector<double> alignedRanks(const std::vector<double>& centred)
{
    return stats::midranks(centred);
}

// Blocked: per repetition, the geometric mean of steps [begin, end) (the side of a split).
std::vector<double> geometricMeanPerRepetition(const std::vector<SeriesStep>& steps, std::size_t begin, std::size_t end)
{
    std::vector<double> out;
    for (std::size_t i = 0; i < steps[begin].values.size(); ++i) {
        double logs = 0;
        for (std::size_t k = begin; k < end; ++k) {
            logs += std::log(steps[k].values[i]);
        }
        out.push_back(std::exp(logs / static_cast<double>(end - begin)));
    }
    return out;
}

// Blocked: the steps' values permuted within each repetition (aligned ranks of centred values: a
// permutation inside a repetition leaves its centre, and so every rank, as it is).
double blockedPermutationP(std::vector<double> values, std::size_t steps, double observed, int permutations,
                           std::mt19937_64& rng)
{
    const std::size_t reps = values.size() / steps;
    const std::vector<std::size_t> sizes(steps, reps);
    std::vector<double> column(steps);
    int atLeast = 0;
    for (int d = 0; d < permutations; ++d) {
        for (std::size_t i = 0; i < reps; ++i) {
            for (std::size_t k = 0; k < steps; ++k) {
                column[k] = values[k * reps + i];
            }
            std::shuffle(column.begin(), column.end(), rng);
            for (std::size_t k = 0; k < steps; ++k) {
                values[k * reps + i] = column[k];
            }
        }
        if (bestSplit(values, sizes).statistic >= observed * (1 - 1e-12)) {
            ++atLeast;
        }
    }
    return (1.0 + atLeast) / (1.0 + permutations);
}

}  // namespace nf::engine
