// Series over the variants of one interleaved run, on seeded simulations: every repetition has its
// own level (drift during the run, SD kDrift) shared by every step measured in it, on top of each
// value's own noise. The blocked design takes the repetition's level out; taking the repetitions
// as independent values leaves it in.

#include <gtest/gtest.h>

#include <cmath>
#include <cstdio>
#include <random>

#include "engine/analysis/series.h"

namespace nf::engine {
namespace {

constexpr double kAlpha = 0.05;
constexpr double kDrift = 0.02;
constexpr double kNoise = 0.003;

std::vector<SeriesStep> simulateInterleaved(std::mt19937_64& rng, const std::vector<double>& effects, int reps)
{
    std::normal_distribution<double> z(0.0, 1.0);
    std::vector<SeriesStep> steps;
    for (std::size_t k = 0; k < effects.size(); ++k) {
        steps.push_back({std::string("s").append(std::to_string(k + 1)), {}});
    }
    for (int i = 0; i < reps; ++i) {
        const double level = 1000 * (1 + kDrift * z(rng));
        for (std::size_t k = 0; k < effects.size(); ++k) {
            steps[k].values.push_back(level * (1 + effects[k]) * (1 + kNoise * z(rng)));
        }
    }
    return steps;
}

SeriesOptions options(std::uint64_t seed, bool blocked)
{
    SeriesOptions o;
    o.permutations = 499;
    o.seed = seed;
    o.blocked = blocked;
    return o;
}

TEST(SeriesBlocked, AaSeriesFindAChangeAtMostAlphaOfTheTime)
{
    std::mt19937_64 rng(2102);
    const int trials = 300;
    int called = 0;
    for (int t = 0; t < trials; ++t) {
        auto r = analyzeSeries(simulateInterleaved(rng, std::vector<double>(6, 0.0), 4),
                               options(static_cast<std::uint64_t>(t) + 1, true));
        ASSERT_TRUE(r) << r.error().message;
        called += r->changes.empty() ? 0 : 1;
    }
    std::printf("A/A blocked series with a change: %d of %d\n", called, trials);
    EXPECT_LE(called, (kAlpha + 3 * std::sqrt(kAlpha * (1 - kAlpha) / trials)) * trials);
}

// 6 steps of 4 repetitions, a step of 1.5 times the drift SD at step 4: found at its step by the
// blocked design, while the repetitions as independent values mostly miss it.
TEST(SeriesBlocked, AStepOfOneAndAHalfDriftSdsIsFoundAtItsStep)
{
    std::mt19937_64 rng(2103);
    const int trials = 200;
    const double step = 1.5 * kDrift;
    int blocked = 0;
    int independent = 0;
    for (int t = 0; t < trials; ++t) {
        const auto steps = simulateInterleaved(rng, {0, 0, 0, step, step, step}, 4);
        auto b = analyzeSeries(steps, options(static_cast<std::uint64_t>(t) + 9, true));
        auto i = analyzeSeries(steps, options(static_cast<std::uint64_t>(t) + 9, false));
        ASSERT_TRUE(b && i);
        blocked += b->changes.size() == 1 && b->changes.front().step == 3 ? 1 : 0;
        independent += i->changes.size() == 1 && i->changes.front().step == 3 ? 1 : 0;
        if (t == 0 && !b->changes.empty()) {
            EXPECT_NEAR(b->changes.front().effect.interval.estimatePct, step * 100, 1.0);
        }
    }
    std::printf("a %.1f%% step found at its step: blocked %d of %d, repetitions as independent %d\n", step * 100,
                blocked, trials, independent);
    EXPECT_GE(blocked, 0.8 * trials);
    EXPECT_LT(independent, blocked);
}

TEST(SeriesBlocked, AdjacentStepsArePairedAndBadInputIsRefused)
{
    std::mt19937_64 rng(2104);
    auto steps = simulateInterleaved(rng, {0, 0.01, 0.01}, 12);
    auto r = analyzeSeries(steps, options(1, true));
    ASSERT_TRUE(r) << r.error().message;
    EXPECT_NEAR(r->steps[1].deltaPrevPct, 1.0, 0.3);
    EXPECT_LT(r->steps[1].pPrev, 0.01);  // the drift (2%) would hide a 1% difference from Welch's t
    EXPECT_GT(r->steps[2].pPrev, 0.05);
    EXPECT_NE(r->method.find("paired by block"), std::string::npos);

    steps[1].values.pop_back();
    auto unequal = analyzeSeries(steps, options(1, true));
    ASSERT_FALSE(unequal);
    EXPECT_NE(unequal.error().message.find("same number of repetitions"), std::string::npos);
    steps[1].values.push_back(0);
    EXPECT_FALSE(analyzeSeries(steps, options(1, true)));
}

}  // namespace
}  // namespace nf::engine
