// RunWatch (engine/run/run_watch.h): the difference the Live tab draws while a run goes on. At
// every repetition's end it must be exactly the look DecisionMonitor, which stops an until-decided
// run, takes on the same repetition; between those it counts chunk pairs as they complete.

#include <gtest/gtest.h>

#include <cmath>
#include <random>

#include "engine/model/metric.h"
#include "engine/run/run_watch.h"
#include "engine/run/until_decided.h"

namespace nf::engine {
namespace {

RunLayout layout()
{
    RunLayout l;
    l.quantities = {quantity::kOps, quantity::kTscTicks, quantity::kElapsedNs, "context-switches"};
    l.metrics = callLoopMetrics(l.quantities);
    return l;
}

ExperimentSpec spec(double chunk)
{
    ExperimentSpec s;
    s.workload = "spin";
    s.variants = {{"a", {}}, {"b", {}}};
    s.repetitions = 4;
    s.duration = 0.5;
    s.chunk = chunk;
    return s;
}

// One repetition: `pairs` rounds of a then b (chunks of 10 ms), b about 5% slower, with noise;
// the pair `switchedPair` had a context switch in b's chunk.
RepetitionResult repetition(int index, int pairs, bool alternating, std::mt19937_64& rng, int switchedPair = -1)
{
    std::normal_distribution<double> noise(0, 0.02);
    RepetitionResult rep;
    rep.index = index;
    rep.variants = {0, 1};
    double t = index * 2.0 * pairs * 0.01;
    rep.start = t;
    for (int p = 0; p < pairs; ++p) {
        for (int v = 0; v < 2; ++v) {
            const double ticksPerOp = (v == 0 ? 30.0 : 31.5) * (1 + noise(rng));
            Sample s{.variant = v,
                     .repetition = index,
                     .index = p,
                     .pair = alternating ? p : -1,
                     .start = t,
                     .duration = 0.01,
                     .values = {1000, 1000 * ticksPerOp, 1e7, v == 1 && p == switchedPair ? 1.0 : 0.0}};
            rep.samples.push_back(s);
            t += 0.01;
        }
    }
    rep.end = t;
    return rep;
}

TEST(RunWatch, AtEveryRepetitionEndItIsTheLookTheDecisionMonitorTakes)
{
    for (const bool alternating : {true, false}) {
        auto s = spec(alternating ? 0.01 : 0);
        s.until = UntilDecided{.maxTime = 100, .marginPct = 2, .alpha = 0.05};
        const auto l = layout();
        RunWatch watch(s, l);
        DecisionMonitor monitor(s, l);
        std::mt19937_64 rng(3);
        for (int r = 0; r < 4; ++r) {
            const auto rep = repetition(r, 25, alternating, rng, r == 1 ? 7 : -1);
            // Samples in three uneven batches, then the repetition.
            const std::vector<Sample> first(rep.samples.begin(), rep.samples.begin() + 13);
            const std::vector<Sample> second(rep.samples.begin() + 13, rep.samples.begin() + 31);
            watch.add(first);
            watch.add(second);
            watch.finishRepetition(rep);
            const auto expected = monitor.add(rep);
            const auto look = watch.look();
            EXPECT_EQ(look.units, expected.units) << "alternating " << alternating << " rep " << r;
            EXPECT_DOUBLE_EQ(look.estimatePct, expected.estimatePct);
            if (std::isfinite(expected.lowPct)) {
                EXPECT_DOUBLE_EQ(look.lowPct, expected.lowPct);
                EXPECT_DOUBLE_EQ(look.highPct, expected.highPct);
            } else {
                EXPECT_TRUE(std::isnan(look.lowPct));
            }
            EXPECT_EQ(look.decision, expected.decision);
            EXPECT_DOUBLE_EQ(look.marginPct, 2);
        }
        // 25 pairs a repetition, the switched one left out; or one unit per repetition.
        EXPECT_EQ(watch.units(), alternating ? 99U : 4U);
    }
}

TEST(RunWatch, AChunkPairCountsOnceBothChunksAreIn)
{
    const auto s = spec(0.01);
    RunWatch watch(s, layout());
    std::mt19937_64 rng(5);
    const auto rep = repetition(0, 10, true, rng);
    watch.add({rep.samples.begin(), rep.samples.begin() + 5});  // pairs 0, 1 and a's chunk of pair 2
    EXPECT_EQ(watch.units(), 2U);
    EXPECT_TRUE(std::isfinite(watch.look().lowPct));
    watch.add({rep.samples.begin() + 5, rep.samples.begin() + 6});  // b's chunk of pair 2
    EXPECT_EQ(watch.units(), 3U);
    EXPECT_DOUBLE_EQ(watch.look().elapsed, rep.samples[5].start + rep.samples[5].duration);
    watch.finishRepetition(rep);  // the rest, not the first six again
    EXPECT_EQ(watch.units(), 10U);
}

// A stalled chunk (five times the others: the vCPU was descheduled) leaves its pair out while the
// repetition goes on, as the fixed-n analysis and the decision at the repetition's end do; it
// was counted until the repetition ended.
TEST(RunWatch, AStalledChunkLeavesItsPairOutAsSoonAsItIsIn)
{
    const auto s = spec(0.01);
    RunWatch watch(s, layout());
    std::mt19937_64 rng(5);
    auto rep = repetition(0, 10, true, rng);
    rep.samples[3].duration = 0.05;  // b's chunk of pair 1
    watch.add({rep.samples.begin(), rep.samples.begin() + 6});
    EXPECT_EQ(watch.units(), 2U);
    watch.finishRepetition(rep);
    EXPECT_EQ(watch.units(), 9U);
}

TEST(RunWatch, TimeLeftFollowsThePlanAndTheEstimateShowsTheDifference)
{
    auto s = spec(0.01);
    s.repetitions = 2;
    s.duration = 0.25;  // 2 variants x 2 reps x 0.25 s = 1 s of measuring; 25 pairs a repetition
    RunWatch watch(s, layout());
    std::mt19937_64 rng(9);
    const auto rep0 = repetition(0, 25, true, rng);
    watch.add({rep0.samples.begin(), rep0.samples.begin() + 10});  // 0.1 s of 1 s, at 1 s per s
    EXPECT_NEAR(watch.look().secondsLeft, 0.9, 1e-9);
    watch.finishRepetition(rep0);
    EXPECT_NEAR(watch.look().secondsLeft, 0.5, 1e-9);
    auto rep1 = repetition(1, 25, true, rng);
    watch.finishRepetition(rep1);
    const auto look = watch.look();
    EXPECT_NEAR(look.secondsLeft, 0, 1e-9);
    EXPECT_NEAR(look.estimatePct, 5, 1.5);  // b is 5% slower in ticks per op
    EXPECT_LT(look.lowPct, look.estimatePct);
    EXPECT_GT(look.highPct, look.estimatePct);
    // At the plan's end the detectable effect is the interval's own half-width.
    EXPECT_NEAR(look.detectablePct, (look.highPct - look.lowPct) / 2, 0.05 * (look.highPct - look.lowPct));
    EXPECT_EQ(look.units, 50U);
}

TEST(RunWatch, UntilDecidedTimeLeftNeverPassesTheMaximumTime)
{
    auto s = spec(0.01);
    s.repetitions = 1000;  // the most the plan could hold
    s.until = UntilDecided{.maxTime = 2, .marginPct = 1, .alpha = 0.05};
    RunWatch watch(s, layout());
    std::mt19937_64 rng(11);
    watch.finishRepetition(repetition(0, 25, true, rng));  // 0.5 s
    const auto look = watch.look();
    EXPECT_NEAR(look.secondsLeft, 1.5, 1e-9);
    EXPECT_TRUE(look.secondsToDecision >= 0 || std::isnan(look.secondsToDecision));
}

}  // namespace
}  // namespace nf::engine
