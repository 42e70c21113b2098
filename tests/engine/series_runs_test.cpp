// Series with one run per step, on seeded simulations: every step's run has its own random level
// (run-to-run drift, SD betweenCv) on top of the noise of its repetitions.

#include <gtest/gtest.h>

#include <cmath>
#include <cstdio>
#include <random>

#include "engine/analysis/series.h"

namespace nf::engine {
namespace {

constexpr double kAlpha = 0.05;
constexpr double kBetween = 0.02;
constexpr double kWithin = 0.003;

std::vector<SeriesStep> simulateSeries(std::mt19937_64& rng, const std::vector<double>& effects, int reps)
{
    std::normal_distribution<double> z(0.0, 1.0);
    std::vector<SeriesStep> steps;
    for (std::size_t k = 0; k < effects.size(); ++k) {
        SeriesStep s{std::string("s").append(std::to_string(k + 1)), {}};
        const double level = 1000 * (1 + effects[k]) * (1 + kBetween * z(rng));
        for (int i = 0; i < reps; ++i) {
            s.values.push_back(level * (1 + kWithin * z(rng)));
        }
        steps.push_back(std::move(s));
    }
    return steps;
}

SeriesOptions runOptions(std::uint64_t seed)
{
    SeriesOptions o;
    o.permutations = 999;
    o.seed = seed;
    o.separateRuns = true;
    return o;
}

TEST(SeriesRuns, AaSeriesOfSeparateRunsFindAChangeAtMostAlphaOfTheTime)
{
    std::mt19937_64 rng(2101);
    const int trials = 500;
    int called = 0;
    int naive = 0;
    for (int t = 0; t < trials; ++t) {
        const auto steps = simulateSeries(rng, std::vector<double>(6, 0.0), 4);
        auto r = analyzeSeries(steps, runOptions(static_cast<std::uint64_t>(t) + 1));
        ASSERT_TRUE(r) << r.error().message;
        called += r->changes.empty() ? 0 : 1;
        if (t < 100) {  // the repetitions as exchangeable: run-to-run drift is taken for changes
            auto o = runOptions(static_cast<std::uint64_t>(t) + 1);
            o.separateRuns = false;
            naive += analyzeSeries(steps, o)->changes.empty() ? 0 : 1;
        }
    }
    std::printf("A/A series with a change: %d of %d (the repetitions as exchangeable: %d of 100)\n", called, trials,
                naive);
    EXPECT_LE(called, (kAlpha + 3 * std::sqrt(kAlpha * (1 - kAlpha) / trials)) * trials);
    EXPECT_GT(naive, 50);
}

// The share of series in which the one change found is at the step where the level moves. With
// one run per step the run-to-run variance has only the adjacent differences to go on (4 of them
// for a split of 6 steps), so its estimate has few degrees of freedom and the test heavy tails:
// measured over 300 series, a step of 1.5 SDs is found at its step 8% of the time, 3 SDs 36%,
// 4 SDs 59%, 5 SDs 75%, 6 SDs 87% (DISABLED_PowerBySize prints them).
double foundAtStep(double stepSize, std::uint64_t seed, int trials)
{
    std::mt19937_64 rng(seed);
    int found = 0;
    for (int t = 0; t < trials; ++t) {
        const auto steps = simulateSeries(rng, {0, 0, 0, stepSize, stepSize, stepSize}, 4);
        auto r = analyzeSeries(steps, runOptions(static_cast<std::uint64_t>(t) + 7));
        found += r->changes.size() == 1 && r->changes.front().step == 3 ? 1 : 0;
    }
    return static_cast<double>(found) / trials;
}

TEST(SeriesRuns, DISABLED_PowerBySize)
{
    for (double k : {1.5, 2.0, 3.0, 4.0, 5.0, 6.0}) {
        std::printf("step %.1f SD: found at its step %.3f\n", k, foundAtStep(k * kBetween, 77, 300));
    }
}

TEST(SeriesRuns, AStepOfSixRunToRunSdsIsFoundAtItsStep)
{
    EXPECT_GE(foundAtStep(6 * kBetween, 77, 300), 0.8);
}

TEST(SeriesRuns, TheRunToRunVarianceComesFromAdjacentStepsDespiteOneChange)
{
    std::mt19937_64 rng(9);
    double sum = 0;
    const int trials = 400;
    for (int t = 0; t < trials; ++t) {
        const auto steps = simulateSeries(rng, {0, 0, 0, 0.1, 0.1, 0.1}, 4);
        auto r = analyzeSeries(steps, runOptions(1));
        sum += r->betweenRunCv;
    }
    // The median of 5 absolute differences, one of them a 10% step, still reads about 2%.
    EXPECT_NEAR(sum / trials, kBetween, 0.006);
}

}  // namespace
}  // namespace nf::engine
