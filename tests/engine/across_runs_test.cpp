// Comparisons across separate runs, on seeded simulations of the nested design: every run has its
// own random level (run-to-run drift) on top of the noise of the repetitions inside it.

#include <gtest/gtest.h>

#include <cmath>
#include <random>

#include "engine/analysis/across_runs.h"
#include "tests/engine/stats_reference.h"

namespace nf::engine {
namespace {

constexpr double kAlpha = 0.05;

// `runs` runs of `reps` repetitions: mean * (1 + effect) with a run level of SD betweenCv * mean
// and repetition noise of SD withinCv * mean. Each run in its own boot unless `boots` names them.
std::vector<RunValues> simulateRuns(std::mt19937_64& rng, int runs, int reps, double mean, double effect,
                                    double betweenCv, double withinCv, const std::vector<std::string>& boots = {})
{
    std::normal_distribution<double> z(0.0, 1.0);
    std::vector<RunValues> out;
    for (int r = 0; r < runs; ++r) {
        RunValues rv;
        rv.boot = boots.empty() ? "boot" + std::to_string(r) : boots[static_cast<std::size_t>(r)];
        const double level = mean * (1 + effect) * (1 + betweenCv * z(rng));
        for (int i = 0; i < reps; ++i) {
            rv.values.push_back(level * (1 + withinCv * z(rng)));
        }
        out.push_back(std::move(rv));
    }
    return out;
}

std::vector<double> pooled(const std::vector<RunValues>& runs)
{
    std::vector<double> out;
    for (const auto& r : runs) {
        out.insert(out.end(), r.values.begin(), r.values.end());
    }
    return out;
}

bool different(const Comparison& c)
{
    return foundDifference(decide(c, {kAlpha, 1.0, {}, 0.8}));
}

// The share called different may exceed alpha by three binomial standard errors at most.
double tolerance(int trials)
{
    return kAlpha + 3 * std::sqrt(kAlpha * (1 - kAlpha) / trials);
}

TEST(AcrossRuns, AaRunsPooledPerLabelAreCalledDifferentAtMostAlphaOfTheTime)
{
    std::mt19937_64 rng(21);
    const int trials = 2000;
    int pooledCalls = 0;
    int naiveCalls = 0;
    int covered = 0;
    for (int t = 0; t < trials; ++t) {
        const auto a = simulateRuns(rng, 3, 4, 1000, 0, 0.02, 0.003);
        const auto b = simulateRuns(rng, 3, 4, 1000, 0.03, 0.02, 0.003);
        const auto bAa = simulateRuns(rng, 3, 4, 1000, 0, 0.02, 0.003);
        const auto c = compareAcrossRuns(a, bAa, std::nullopt, {});
        EXPECT_EQ(c.unit, "run");
        pooledCalls += different(c) ? 1 : 0;
        naiveCalls += different(compareIndependent(pooled(a), pooled(bAa), {})) ? 1 : 0;
        const auto e = compareAcrossRuns(a, b, std::nullopt, {});
        covered += e.interval.ci.low <= 3 && 3 <= e.interval.ci.high ? 1 : 0;
    }
    EXPECT_LE(pooledCalls, tolerance(trials) * trials);
    // The repetitions taken as independent values claim far more than the data shows.
    EXPECT_GT(naiveCalls, 0.3 * trials);
    EXPECT_GE(covered, (0.95 - 3 * std::sqrt(0.05 * 0.95 / trials)) * trials);
}

TEST(AcrossRuns, OneRunPerSideUsesTheCalibratedFloorAndKeepsAlpha)
{
    std::mt19937_64 rng(2104);
    const int trials = 2000;
    int calls = 0;
    int covered = 0;
    for (int t = 0; t < trials; ++t) {
        // The calibration: 6 A/A runs under one label, as calibrate --across-runs makes them.
        const auto calibration = simulateRuns(rng, 6, 4, 1000, 0, 0.02, 0.003);
        double scale = 0;
        for (double v : pooled(calibration)) {
            scale += v / 24;
        }
        const double between = betweenRunVariance(calibration, scale);
        const RunNoiseFloor floor{.betweenCv = std::sqrt(between), .df = 5, .runs = 6, .boots = 6, .source = "sim"};
        const auto a = simulateRuns(rng, 1, 4, 1000, 0, 0.02, 0.003);
        const auto b = simulateRuns(rng, 1, 4, 1000, 0, 0.02, 0.003);
        const auto c = compareAcrossRuns(a, b, floor, {});
        calls += different(c) ? 1 : 0;
        const auto e = compareAcrossRuns(a, simulateRuns(rng, 1, 4, 1000, 0.03, 0.02, 0.003), floor, {});
        covered += e.interval.ci.low <= 3 && 3 <= e.interval.ci.high ? 1 : 0;
        if (t == 0) {
            EXPECT_NE(c.levels.find("calibration"), std::string::npos) << c.levels;
        }
    }
    EXPECT_LE(calls, tolerance(trials) * trials);
    EXPECT_GE(covered, (0.95 - 3 * std::sqrt(0.05 * 0.95 / trials)) * trials);
}

TEST(AcrossRuns, OneRunAgainstSeveralTakesTheRunToRunVarianceFromTheSeveral)
{
    std::mt19937_64 rng(7);
    const int trials = 2000;
    int calls = 0;
    for (int t = 0; t < trials; ++t) {
        const auto a = simulateRuns(rng, 1, 4, 1000, 0, 0.02, 0.003);
        const auto b = simulateRuns(rng, 5, 4, 1000, 0, 0.02, 0.003);
        calls += different(compareAcrossRuns(a, b, std::nullopt, {})) ? 1 : 0;
    }
    EXPECT_LE(calls, tolerance(trials) * trials);
}

TEST(AcrossRuns, OneRunPerSideWithoutCalibrationSaysTheIntervalIsTooNarrow)
{
    std::mt19937_64 rng(3);
    const auto a = simulateRuns(rng, 1, 5, 1000, 0, 0.02, 0.003);
    const auto b = simulateRuns(rng, 1, 5, 1000, 0, 0.02, 0.003);
    const auto c = compareAcrossRuns(a, b, std::nullopt, {});
    ASSERT_FALSE(c.warnings.empty());
    EXPECT_EQ(c.warnings.front(), kNoRunCalibration);
    EXPECT_EQ(c.unit, "repetition");
    EXPECT_EQ(c.n, 5U);
}

TEST(AcrossRuns, RunsSharingBootsArePooledPerBoot)
{
    std::mt19937_64 rng(5);
    const auto a = simulateRuns(rng, 4, 4, 1000, 0, 0.02, 0.003, {"x", "x", "y", "y"});
    const auto b = simulateRuns(rng, 4, 4, 1000, 0, 0.02, 0.003, {"p", "p", "q", "q"});
    std::string unit;
    EXPECT_EQ(unitMeans(a, &unit).size(), 2U);
    EXPECT_EQ(unit, "boot");
    const auto c = compareAcrossRuns(a, b, std::nullopt, {});
    EXPECT_EQ(c.unit, "boot");
    EXPECT_EQ(c.n, 2U);
    EXPECT_NE(c.levels.find("runs in boots"), std::string::npos) << c.levels;
}

TEST(AcrossRuns, BetweenRunVarianceByMomentsRecoversTheSimulatedComponent)
{
    std::mt19937_64 rng(11);
    const auto runs = simulateRuns(rng, 400, 4, 1000, 0, 0.02, 0.01);
    const double cv = std::sqrt(betweenRunVariance(runs, 1000));
    EXPECT_NEAR(cv, 0.02, 0.002);
}

// The runs it asks for, simulated at the effect it was asked to size for, give the verdict's test
// the power it promised; and its smallest detectable effect is detected with that power too.
TEST(AcrossRuns, RunsNeededAndTheSmallestDetectableEffectHoldInSimulation)
{
    std::mt19937_64 rng(4242);
    const RunNoiseFloor floor{.betweenCv = 0.02, .df = 1000, .runs = 1001, .boots = 1001, .source = "sim"};
    CompareOptions options;
    options.targetPct = 3.0;
    const auto pilot = compareAcrossRuns(simulateRuns(rng, 1, 4, 1000, 0, 0.02, 0.003),
                                         simulateRuns(rng, 1, 4, 1000, 0.03, 0.02, 0.003), floor, options);
    ASSERT_TRUE(pilot.nNeeded.has_value());
    const int n = static_cast<int>(*pilot.nNeeded);
    EXPECT_GE(n, 5);
    const int trials = 2000;
    const double se = 3 * std::sqrt(0.8 * 0.2 / trials);
    const auto powerAt = [&](int runs, double effect) {
        int found = 0;
        for (int t = 0; t < trials; ++t) {
            const auto c = compareAcrossRuns(simulateRuns(rng, runs, 4, 1000, 0, 0.02, 0.003),
                                             simulateRuns(rng, runs, 4, 1000, effect, 0.02, 0.003), floor, options);
            found += c.p < kAlpha ? 1 : 0;
        }
        return static_cast<double>(found) / trials;
    };
    const double atN = powerAt(n, 0.03);
    EXPECT_GE(atN, 0.8 - se) << n << " runs per side";
    EXPECT_LE(atN, 0.93) << n << " runs per side are more than needed";
    // One run per side with the floor: the smallest effect it reports as detectable is detected
    // with about the asked power.
    const double mde = pilot.mdePct / 100;
    ASSERT_GT(mde, 0.03);
    const double atMde = powerAt(1, mde);
    EXPECT_NEAR(atMde, 0.8, se + 0.05) << "MDE " << mde * 100 << "%";
}

// Code layout across builds: every build draws its own layout, a level shift of the whole build
// (L, SD layoutCv) on top of the runs' drift and the repetitions' noise. A placebo is a rebuild
// of the baseline: the same code, its own draw.
std::vector<RunValues> simulateBuild(std::mt19937_64& rng, double layoutShift, double effect)
{
    return simulateRuns(rng, 3, 4, 1000 * (1 + layoutShift), effect, 0.002, 0.003);
}

TEST(AcrossRuns, APlaceboShiftOfTheCandidatesSizeIsNotADifferenceAndALargeOneStillIs)
{
    std::mt19937_64 rng(37);
    const auto base = simulateBuild(rng, 0, 0);
    const auto placebo = simulateBuild(rng, 0.02, 0);  // the same code, placed 2% slower
    const auto moved = simulateBuild(rng, 0.02, 0);    // a patch that only moves code, as far
    const auto layout = layoutFloor(base, {placebo}, "base against its rebuild placebo");
    ASSERT_TRUE(layout.has_value());
    EXPECT_NEAR(layout->spreadCv, 0.02, 0.003);
    EXPECT_EQ(layout->df, 1);
    EXPECT_EQ(layout->builds, 2U);

    const auto alone = compareAcrossRuns(base, moved, std::nullopt, {});
    EXPECT_TRUE(different(alone)) << alone.interval.ci.low << ".." << alone.interval.ci.high;
    EXPECT_FALSE(alone.layoutSpreadPct.has_value());
    const auto counted = compareAcrossRuns(base, moved, std::nullopt, {}, layout);
    EXPECT_FALSE(different(counted)) << counted.interval.ci.low << ".." << counted.interval.ci.high;
    EXPECT_LT(counted.interval.ci.low, alone.interval.ci.low);
    EXPECT_GT(counted.interval.ci.high, alone.interval.ci.high);
    ASSERT_TRUE(counted.layoutSpreadPct.has_value());
    EXPECT_NEAR(*counted.layoutSpreadPct, layout->spreadCv * 100, 1e-12);
    EXPECT_EQ(counted.layoutsMeasured, 2U);
    EXPECT_EQ(counted.layoutSource, "base against its rebuild placebo");
    EXPECT_FALSE(counted.nNeeded.has_value());  // runs do not shrink the layout term

    // One placebo is one draw of layout (1 degree of freedom: t quantile 12.7 at 95%): a code-path
    // difference must be well beyond the spread to be shown, and then it is.
    const auto real = compareAcrossRuns(base, simulateBuild(rng, 0, 0.40), std::nullopt, {}, layout);
    EXPECT_TRUE(different(real)) << real.interval.ci.low << ".." << real.interval.ci.high;
    // More rebuilds, more degrees of freedom: the same spread, a narrower interval.
    std::vector<std::vector<RunValues>> rebuilds;
    for (const double shift : {0.02, -0.02, 0.02, -0.02}) {
        rebuilds.push_back(simulateBuild(rng, shift, 0));
    }
    const auto four = layoutFloor(base, rebuilds, "four rebuilds");
    ASSERT_TRUE(four.has_value());
    EXPECT_EQ(four->df, 4);
    EXPECT_EQ(four->builds, 5U);
    const auto narrower = compareAcrossRuns(base, moved, std::nullopt, {}, four);
    EXPECT_LT(narrower.interval.ci.high - narrower.interval.ci.low, counted.interval.ci.high - counted.interval.ci.low);
}

// The A/A of layout: identical code in two builds, each with its own layout draw. Without the
// placebo the builds' layouts are called a difference most of the time; with it, at most alpha
// of the time, with one placebo (1 degree of freedom) as with one run per side and a floor.
TEST(AcrossRuns, APlaceboHoldsTheLayoutAaAtAlpha)
{
    std::mt19937_64 rng(3701);
    std::normal_distribution<double> layoutDraw(0.0, 0.015);
    const int trials = 2000;
    int alone = 0;
    int counted = 0;
    int oneRunCounted = 0;
    int found = 0;
    const RunNoiseFloor floor{.betweenCv = 0.002, .df = 20, .runs = 21, .boots = 21, .source = "sim"};
    for (int t = 0; t < trials; ++t) {
        const auto base = simulateBuild(rng, layoutDraw(rng), 0);
        const auto layout = layoutFloor(base, {simulateBuild(rng, layoutDraw(rng), 0)}, "sim");
        const auto cand = simulateBuild(rng, layoutDraw(rng), 0);
        alone += different(compareAcrossRuns(base, cand, std::nullopt, {})) ? 1 : 0;
        counted += different(compareAcrossRuns(base, cand, std::nullopt, {}, layout)) ? 1 : 0;
        const std::vector<RunValues> oneBase{base.front()};
        const std::vector<RunValues> oneCand{cand.front()};
        oneRunCounted += different(compareAcrossRuns(oneBase, oneCand, floor, {}, layout)) ? 1 : 0;
        found += different(compareAcrossRuns(base, simulateBuild(rng, layoutDraw(rng), 0.5), std::nullopt, {}, layout))
                     ? 1
                     : 0;
    }
    EXPECT_GT(alone, trials / 2);
    EXPECT_LE(counted, tolerance(trials) * trials);
    EXPECT_LE(oneRunCounted, tolerance(trials) * trials);
    EXPECT_GT(found, 0.8 * trials);  // 50% against a spread of about 2.1%
}

std::vector<RunValues> referenceRuns(const nlohmann::json& runs)
{
    std::vector<RunValues> out;
    for (const auto& r : runs) {
        out.push_back({"boot" + std::to_string(out.size()), r.get<std::vector<double>>()});
    }
    return out;
}

TEST(AcrossRuns, SeveralRunsPerSideMatchSciPyOnTheRunMeans)
{
    const auto& ref = test::reference().at("across_runs").at("three_runs");
    const auto c = compareAcrossRuns(referenceRuns(ref.at("base")), referenceRuns(ref.at("cand")), std::nullopt, {});
    EXPECT_NEAR(c.p, ref.at("p").get<double>(), 1e-9);
    EXPECT_NEAR(c.interval.ci.low, ref.at("low_pct").get<double>(), 1e-8);
    EXPECT_NEAR(c.interval.ci.high, ref.at("high_pct").get<double>(), 1e-8);
    EXPECT_EQ(c.n, 3U);
}

TEST(AcrossRuns, OneRunPerSideWithAFloorMatchesTheHighPrecisionReference)
{
    const auto& ref = test::reference().at("across_runs").at("one_run_floor");
    const RunNoiseFloor floor{.betweenCv = ref.at("cv").get<double>(),
                              .df = ref.at("cv_df").get<double>(),
                              .runs = 6,
                              .boots = 6,
                              .source = "reference"};
    const auto c = compareAcrossRuns({{"x", ref.at("base").get<std::vector<double>>()}},
                                     {{"y", ref.at("cand").get<std::vector<double>>()}}, floor, {});
    EXPECT_NEAR(c.interval.estimatePct, ref.at("delta_pct").get<double>(), 1e-9);
    EXPECT_NEAR(c.p, ref.at("p").get<double>(), 1e-9);
    EXPECT_NEAR(c.interval.ci.low, ref.at("low_pct").get<double>(), 1e-8);
    EXPECT_NEAR(c.interval.ci.high, ref.at("high_pct").get<double>(), 1e-8);
}

}  // namespace
}  // namespace nf::engine
