// Series with one run per step, on seeded simulations: every step's run has its own random level
// (run-to-run drift, SD betweenCv) on top of the noise of its repetitions.

#include <gtest/gtest.h>

#include <algorithm>
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
    // Exchangeable repetitions take the run-to-run drift for changes (a change that does not
    // persist is said as a step apart instead, so fewer than half are now called changes).
    EXPECT_GT(naive, 20);
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

// A change is a level that stays. Series of eight (or six) separate runs (run-to-run SD 2%), 300 or 100
// seeded trials each; a disturbed run is +25% (12.5 run-to-run SDs; preemption inflated page_frag's
// repetition means 2-3 times). The run-to-run variance comes from the runs themselves, so fewer runs
// name it less often: in six runs, 93-98 of 100 by position; one of +15% (7.5 SDs), about 80.
struct Outcome {
    int alone = 0;     // the disturbed step named as standing apart, and nothing else
    int changes = 0;   // a change reported anywhere
    int anyApart = 0;  // some step named as apart
    int named = 0;     // the disturbed step named (alone or with another), and no change
};

Outcome judge(const std::vector<double>& effects, std::size_t disturbed, StepApart::Kind kind, std::uint64_t seed,
              int trials)
{
    std::mt19937_64 rng(seed);
    Outcome out;
    for (int t = 0; t < trials; ++t) {
        const auto steps = simulateSeries(rng, effects, 4);
        auto r = analyzeSeries(steps, runOptions(static_cast<std::uint64_t>(t) + 11));
        EXPECT_TRUE(r.ok());
        out.changes += r->changes.empty() ? 0 : 1;
        out.anyApart += r->apart.empty() ? 0 : 1;
        const bool disturbedNamed = std::any_of(r->apart.begin(), r->apart.end(), [&](const StepApart& a) {
            return a.step == disturbed && a.kind == kind;
        });
        out.named += disturbedNamed && r->changes.empty() ? 1 : 0;
        out.alone += r->apart.size() == 1 && r->apart.front().step == disturbed && r->apart.front().kind == kind &&
                             r->changes.empty()
                         ? 1
                         : 0;
    }
    return out;
}

TEST(SeriesRuns, OneDisturbedRunIsNamedNotCalledAChange)
{
    for (const std::size_t at : {1u, 3u, 6u}) {
        std::vector<double> effects(8, 0.0);
        effects[at] = 0.25;
        const auto o = judge(effects, at, StepApart::Kind::Alone, 300 + at, 300);
        std::printf("s%zu +25%%: named %d of 300 (alone %d), a change in %d\n", at + 1, o.named, o.alone, o.changes);
        // Reported as a run apart, not a change, in at least 95% (measured 297, 296 and 295 of
        // 300); named alone, with no other step apart, in 289 of 300 at each place.
        EXPECT_GE(o.named, 285) << "s" << at + 1;
        EXPECT_GE(o.alone, 270) << "s" << at + 1;
    }
}

TEST(SeriesRuns, ADifferingLastStepIsSaidNotCalledAChange)
{
    const auto o = judge({0, 0, 0, 0, 0, 0.25}, 5, StepApart::Kind::Last, 41, 100);
    std::printf("last step +25%%: said to differ %d of 100, a change in %d\n", o.alone, o.changes);
    EXPECT_GE(o.alone, 90);
    EXPECT_LE(o.changes, 5);
}

TEST(SeriesRuns, APersistentTenPercentStepIsPlacedAtItsStep)
{
    std::mt19937_64 rng(53);
    int placed = 0;
    int named = 0;
    for (int t = 0; t < 100; ++t) {
        const auto steps = simulateSeries(rng, {0, 0, 0, 0.10, 0.10, 0.10}, 4);
        auto r = analyzeSeries(steps, runOptions(static_cast<std::uint64_t>(t) + 5));
        ASSERT_TRUE(r.ok());
        placed += r->changes.size() == 1 && r->changes.front().step == 3 ? 1 : 0;
        named += r->apart.empty() ? 0 : 1;
    }
    std::printf("+10%% from s4 (5 run-to-run SDs): placed at s4 %d of 100, a step named apart in %d\n", placed, named);
    EXPECT_GE(placed, 65);  // 5 SDs: 75% at 300 trials (DISABLED_PowerBySize)
    EXPECT_LE(named, 10);
}

TEST(SeriesRuns, AaSeriesNameARunApartAboutAlphaOfTheTime)
{
    const auto o = judge(std::vector<double>(6, 0.0), 99, StepApart::Kind::Alone, 61, 200);
    std::printf("A/A: a step named apart in %d of 200, a change in %d\n", o.anyApart, o.changes);
    EXPECT_LE(o.anyApart, 200 * (2 * kAlpha + 3 * std::sqrt(2 * kAlpha * (1 - 2 * kAlpha) / 200)));
}

}  // namespace
}  // namespace nf::engine
