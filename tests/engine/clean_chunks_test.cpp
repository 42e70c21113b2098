// Repetition values over clean chunks (engine/analysis/chunk_cut.h), checked by seeded simulation:
// runs of one variant measured in chunks, some of which the measuring thread was switched out of
// (context-switches > 0) or stalled in (a descheduled vCPU: no switch counted, but the chunk took
// several times its length), inflating their time per operation. A step across one-run-per-step
// series must be found from the clean-chunk values, and the inflated means must not hide it.

#include "engine/analysis/chunk_cut.h"

#include <gtest/gtest.h>

#include <random>

#include "engine/analysis/analysis.h"
#include "engine/analysis/series.h"
#include "engine/stats/descriptive.h"

namespace nf::engine {
namespace {

struct Disturbance {
    double share = 0.3;        // of chunks hit
    double slowest = 6;        // a hit chunk takes 1.5 .. `slowest` times its length
    double switchedOut = 0.5;  // of hits, the share that counted a context switch (the rest stalled)
};

// One run of one variant: `reps` repetitions of `chunks` chunks of 100 operations at `level` ticks
// per operation, times a run-level factor (between runs) and 1% chunk noise; `d` hits some chunks.
RunData oneRun(double level, std::mt19937_64& rng, const Disturbance& d, double runCv = 0.01, int reps = 3,
               int chunks = 40)
{
    std::normal_distribution<double> runNoise(0, runCv);
    std::normal_distribution<double> chunkNoise(0, 0.01);
    std::uniform_real_distribution<double> uniform(0, 1);
    RunData run;
    run.variantNames = {"default"};
    run.layout.quantities = {"ops", "tsc_ticks", "elapsed_ns", "context-switches"};
    run.layout.metrics = callLoopMetrics(run.layout.quantities);
    run.samples = RunTable(run.layout.quantities.size());
    const double runLevel = level * (1 + runNoise(rng));
    double t = 0;
    for (int r = 0; r < reps; ++r) {
        for (int c = 0; c < chunks; ++c) {
            double perOp = runLevel * (1 + chunkNoise(rng));
            double duration = 0.002 * (1 + chunkNoise(rng));
            double switches = 0;
            if (uniform(rng) < d.share) {
                const double slower = 1.5 + (d.slowest - 1.5) * uniform(rng);
                perOp *= slower;
                duration *= slower;
                switches = uniform(rng) < d.switchedOut ? 1 : 0;
            }
            run.samples.append(Sample{0, r, c, c, t, duration, {100, perOp * 100, duration * 1e9, switches}});
            t += duration;
        }
    }
    return run;
}

const MetricSpec& tscPerOp(const RunData& run)
{
    return run.layout.metrics.front();
}

TEST(CleanChunks, RepetitionValuesLeaveOutSwitchedOutAndStalledChunks)
{
    std::mt19937_64 rng(7);
    const auto run = oneRun(16.28, rng, {}, 0.0);
    const auto cut = chunkCut(run);
    EXPECT_EQ(cut.chunks, 120u);
    EXPECT_GT(cut.hit, 20u);  // about 30% of 120
    EXPECT_LT(cut.hit, 60u);
    EXPECT_FALSE(cut.keptAll);
    const auto clean = repetitionValues(run, cut, 0, tscPerOp(run));
    const auto all = run.repetitionValues(0, tscPerOp(run), {});
    ASSERT_EQ(clean.size(), 3u);
    ASSERT_EQ(all.size(), 3u);
    for (std::size_t r = 0; r < 3; ++r) {
        EXPECT_NEAR(clean[r], 16.28, 16.28 * 0.01) << "clean chunks keep the level";
        EXPECT_GT(all[r], 16.28 * 1.5) << "every chunk: the disturbed ones inflate it";
    }
    // The analysis and the per-variant means read the same values, and count the chunks left out.
    auto in = analysisInputAcross({{"a", &run, 0}}, {"tsc_per_op"});
    ASSERT_TRUE(in.ok()) << in.error().message;
    EXPECT_EQ(in->repetitions[0][0], clean);
    EXPECT_EQ(in->chunks, 120u);
    EXPECT_EQ(in->preemptedChunks, cut.hit);
}

// A machine too busy to measure on: a variant that would lose more than 90% of its chunks keeps
// them all, and says so, rather than resting on a handful.
TEST(CleanChunks, ARunThatWouldLoseNearlyEveryChunkKeepsThemAll)
{
    std::mt19937_64 rng(8);
    const auto run = oneRun(16.28, rng, {.share = 0.95, .slowest = 6, .switchedOut = 1});
    const auto cut = chunkCut(run);
    EXPECT_TRUE(cut.keptAll);
    EXPECT_EQ(repetitionValues(run, cut, 0, tscPerOp(run)), run.repetitionValues(0, tscPerOp(run), {}));
}

// The page_frag case: one run per step, five steps, +20% from step s2 on, under heavy preemption
// (30% of chunks 1.5-6x slower, half of them with no context switch counted). The series of
// clean-chunk repetition values finds the step and places it; the series of every-chunk means
// hides it more often than not. 40 seeded series.
TEST(CleanChunks, AStepAcrossOneRunPerStepIsFoundFromCleanChunks)
{
    const std::vector<double> levels = {16.28, 16.28, 19.54, 19.54, 19.54};
    SeriesOptions o;
    o.separateRuns = true;
    o.permutations = 999;
    int foundClean = 0;
    int foundAll = 0;
    const int trials = 40;
    for (int trial = 0; trial < trials; ++trial) {
        std::mt19937_64 rng(1000 + static_cast<unsigned>(trial));
        std::vector<SeriesStep> clean;
        std::vector<SeriesStep> all;
        for (std::size_t k = 0; k < levels.size(); ++k) {
            const auto run = oneRun(levels[k], rng, {});
            const std::string name = "s" + std::to_string(k);
            clean.push_back({name, repetitionValues(run, chunkCut(run), 0, tscPerOp(run))});
            all.push_back({name, run.repetitionValues(0, tscPerOp(run), {})});
        }
        o.seed = static_cast<std::uint64_t>(trial) + 1;
        const auto placedAtTwo = [&](const std::vector<SeriesStep>& steps) {
            const auto r = analyzeSeries(steps, o);
            return r.ok() && r->changes.size() == 1 && r->changes.front().step == 2;
        };
        foundClean += placedAtTwo(clean) ? 1 : 0;
        foundAll += placedAtTwo(all) ? 1 : 0;
    }
    EXPECT_GE(foundClean, 38) << "of " << trials;
    EXPECT_LE(foundAll, trials / 2) << "of " << trials;
    RecordProperty("found_clean", foundClean);
    RecordProperty("found_every_chunk", foundAll);
}

}  // namespace
}  // namespace nf::engine
