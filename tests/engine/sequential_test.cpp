// The confidence sequence of engine/analysis/sequential.h: its boundary against the numerically
// integrated mixture martingale (tests/engine/stats_reference.py), and its error rates in seeded
// simulations with a look after every unit, beside naive re-testing of a fixed-n interval; and the
// monitor of a run until decided (engine/run/until_decided.h), whose units are the fixed-n
// analysis's chunk pairs.

#include <gtest/gtest.h>

#include <algorithm>
#include <boost/math/distributions/students_t.hpp>
#include <cmath>
#include <cstdio>
#include <random>
#include <vector>

#include "engine/analysis/analysis.h"
#include "engine/analysis/comparison.h"
#include "engine/analysis/sequential.h"
#include "engine/model/metric.h"
#include "engine/run/run_watch.h"
#include "engine/run/until_decided.h"
#include "tests/engine/stats_reference.h"

namespace nf::engine {
namespace {

using test::reference;

TEST(ConfidenceSequence, BoundaryIsWhereTheMixtureMartingaleReachesOneOverAlpha)
{
    for (const auto& c : reference().at("confidence_sequence")) {
        const double t = c.at("t");
        const double expected = c.at("half_width_unit_sd");
        EXPECT_NEAR(normalMixtureHalfWidth(t, 1.0, c.at("precision"), c.at("alpha")), expected, 1e-9 * expected)
            << "t " << t;
        // The width scales with the standard deviation.
        EXPECT_NEAR(normalMixtureHalfWidth(t, 0.02, c.at("precision"), c.at("alpha")), 0.02 * expected,
                    1e-9 * expected);
    }
}

TEST(ConfidenceSequence, ClosedFormPrecisionIsWithinATenthOfAPercentOfTheBest)
{
    for (const auto& c : reference().at("confidence_sequence_best")) {
        const double t = c.at("t");
        const double alpha = c.at("alpha");
        const double best = c.at("best_half_width_unit_sd");
        const double ours = normalMixtureHalfWidth(t, 1.0, normalMixturePrecision(t, alpha), alpha);
        EXPECT_GE(ours, best * (1 - 1e-6));
        EXPECT_LT(ours, best * 1.001) << "t* " << t;
    }
}

TEST(ConfidenceSequence, DecidesOnlyAfterTheWarmUpAndKeepsTheEstimate)
{
    SequentialOptions o{.alpha = 0.05, .marginPct = 1.0, .warmupUnits = 10, .plannedUnits = 100};
    ConfidenceSequence cs(o);
    EXPECT_EQ(cs.look().units, 0U);
    for (int i = 0; i < 9; ++i) {
        cs.add(std::log(1.05) + (i % 2 == 0 ? 1e-3 : -1e-3));
    }
    cs.add(std::nan(""));  // not counted
    EXPECT_EQ(cs.units(), 9U);
    EXPECT_EQ(cs.look().decision, Verdict::Inconclusive);  // clearly 5% apart, but still warming up
    cs.add(std::log(1.05) + 1e-3);
    const auto l = cs.look();
    EXPECT_EQ(l.decision, Verdict::Different);
    EXPECT_NEAR(l.estimatePct, (1.05 * std::exp(2e-4) - 1) * 100, 1e-9);  // six +1e-3, four -1e-3
    EXPECT_LT(l.ci.low, l.estimatePct);
    EXPECT_GT(l.ci.high, l.estimatePct);
}

// The units still needed are the ones that decide: the same values on, the sequence decides within
// those many more units (give or take the sd estimate's n - 1) and not in half as many.
TEST(ConfidenceSequence, UnitsStillNeededAreTheOnesThatDecide)
{
    SequentialOptions o{.alpha = 0.05, .marginPct = 1.0, .warmupUnits = 10, .plannedUnits = 100};
    const auto unit = [](std::size_t i) { return std::log(1.004) + (i % 2 == 0 ? 0.02 : -0.02); };
    ConfidenceSequence cs(o);
    std::size_t i = 0;
    for (; i < 40; ++i) {
        cs.add(unit(i));
    }
    ASSERT_EQ(cs.look().decision, Verdict::Inconclusive);
    const auto needed = cs.unitsStillNeeded();
    ASSERT_TRUE(needed.has_value());
    ASSERT_GT(*needed, 20);
    ConfidenceSequence half = cs;
    for (std::size_t k = 0; k < static_cast<std::size_t>(*needed / 2); ++k) {
        half.add(unit(i + k));
    }
    EXPECT_EQ(half.look().decision, Verdict::Inconclusive) << "decided in half of " << *needed << " units";
    // In pairs, so that the estimate is the same as at the start.
    const auto more = static_cast<std::size_t>(std::ceil(*needed)) + 2;
    for (std::size_t k = 0; k < more + more % 2; ++k) {
        cs.add(unit(i + k));
    }
    EXPECT_NE(cs.look().decision, Verdict::Inconclusive) << "not decided after " << *needed << " more units";
}

// --- simulations: a look after every unit ---

constexpr int kSims = 1000;
constexpr int kUnits = 2000;
constexpr double kAlpha = 0.05;
// The largest share of kSims with a true rate of alpha that is not a failure: alpha plus three
// binomial standard deviations (1 in 700 chance to fail a correct method).
const double kTolerance = kAlpha + 3 * std::sqrt(kAlpha * (1 - kAlpha) / kSims);

struct AaCount {
    int sequential = 0;  // runs the sequence ever called different
    int naive = 0;       // runs a fixed-n t interval, re-tested at every look, ever called different
};

template <typename Draw>
AaCount aaFalseDifferent(Draw draw, std::uint64_t seed)
{
    std::vector<double> tq(kUnits + 1, 0);
    for (int n = 2; n <= kUnits; ++n) {
        tq[static_cast<std::size_t>(n)] =
            boost::math::quantile(boost::math::students_t_distribution<double>(n - 1), 1 - kAlpha / 2);
    }
    std::mt19937_64 rng(seed);
    AaCount count;
    for (int s = 0; s < kSims; ++s) {
        ConfidenceSequence cs({.alpha = kAlpha, .marginPct = 1.0, .warmupUnits = 30, .plannedUnits = 0});
        bool seq = false;
        bool naive = false;
        double sum = 0;
        double sum2 = 0;
        for (int n = 1; n <= kUnits && !(seq && naive); ++n) {
            const double x = draw(rng);
            cs.add(x);
            sum += x;
            sum2 += x * x;
            seq = seq || foundDifference(cs.look().decision);
            if (n >= 30) {  // the same warm-up, then a t test at every look
                const double m = sum / n;
                const double se = std::sqrt((sum2 - n * m * m) / (n - 1) / n);
                naive = naive || std::fabs(m) > tq[static_cast<std::size_t>(n)] * se;
            }
        }
        count.sequential += seq ? 1 : 0;
        count.naive += naive ? 1 : 0;
    }
    return count;
}

TEST(ConfidenceSequenceSimulation, AaFalseDifferentStaysBelowAlphaWhileNaiveRetestingDoesNot)
{
    std::normal_distribution<double> normal(0, 0.02);
    const auto n = aaFalseDifferent([&](std::mt19937_64& rng) { return normal(rng); }, 23);
    std::printf("A/A normal sd 2%%, %d runs x %d looks: sequence %.3f, naive t at every look %.3f\n", kSims, kUnits,
                n.sequential / double(kSims), n.naive / double(kSims));
    EXPECT_LE(n.sequential / double(kSims), kTolerance);
    EXPECT_GT(n.naive / double(kSims), kTolerance);

    // Heavy tails (Laplace, as chunk ratios of a busy machine have): the same bound.
    std::exponential_distribution<double> expo(1 / 0.014);
    std::bernoulli_distribution sign(0.5);
    const auto l = aaFalseDifferent([&](std::mt19937_64& rng) { return (sign(rng) ? 1 : -1) * expo(rng); }, 24);
    std::printf("A/A Laplace sd 2%%, %d runs x %d looks: sequence %.3f, naive t at every look %.3f\n", kSims, kUnits,
                l.sequential / double(kSims), l.naive / double(kSims));
    EXPECT_LE(l.sequential / double(kSims), kTolerance);
    EXPECT_GT(l.naive / double(kSims), kTolerance);
}

TEST(ConfidenceSequenceSimulation, TwiceTheMarginIsCalledEquivalentAtMostAlpha)
{
    std::mt19937_64 rng(2323);
    for (const double sd : {0.01, 0.05}) {
        std::normal_distribution<double> normal(std::log1p(0.02), sd);  // 2%: twice the 1% margin
        int equivalent = 0;
        int different = 0;
        for (int s = 0; s < kSims; ++s) {
            ConfidenceSequence cs({.alpha = kAlpha, .marginPct = 1.0, .warmupUnits = 30, .plannedUnits = 0});
            for (int n = 1; n <= kUnits; ++n) {
                cs.add(normal(rng));
                const auto d = cs.look().decision;
                if (d != Verdict::Inconclusive) {
                    (d == Verdict::Equivalent ? equivalent : different) += 1;
                    break;
                }
            }
        }
        std::printf("true +2%%, margin 1%%, sd %g%%: equivalent %.3f, different %.3f\n", sd * 100,
                    equivalent / double(kSims), different / double(kSims));
        EXPECT_LE(equivalent / double(kSims), kTolerance);
        EXPECT_GT(different, kSims / 2);  // and it does find the difference
    }
}

// The units a sequential run takes to decide a 1% effect, against the fixed n comparePaired's
// n_needed proposes from a pilot of the same noise. The fixed design always takes its n and
// finds the effect in about 80% of runs; the sequence stops when it is sure.
TEST(ConfidenceSequenceSimulation, TimeToDecisionForAOnePercentEffectAgainstTheFixedDesign)
{
    std::mt19937_64 rng(1001);
    const double sd = 0.03;
    std::normal_distribution<double> noise(0, sd);
    std::vector<double> base;
    std::vector<double> cand;
    for (int i = 0; i < 400; ++i) {  // per-pair log ratios of N(ln 1.01, sd), as the sequence sees them
        base.push_back(1000);
        cand.push_back(1000 * 1.01 * std::exp(noise(rng)));
    }
    CompareOptions co;
    co.targetPct = 1.0;
    const auto pilot = comparePaired(base, cand, co);
    ASSERT_TRUE(pilot.nNeeded.has_value());
    const double fixedN = *pilot.nNeeded;

    std::normal_distribution<double> unit(std::log1p(0.01), sd);
    std::vector<double> stops;
    int wrong = 0;  // equivalent: the sequence left out the true 1% (it is on the margin)
    int undecided = 0;
    const int sims = 400;
    for (int s = 0; s < sims; ++s) {
        ConfidenceSequence cs({.alpha = kAlpha, .marginPct = 1.0, .warmupUnits = 30, .plannedUnits = 0});
        int n = 1;
        for (; n <= 20000; ++n) {
            cs.add(unit(rng));
            const auto d = cs.look().decision;
            if (d != Verdict::Inconclusive) {
                wrong += foundDifference(d) ? 0 : 1;
                break;
            }
        }
        undecided += n > 20000 ? 1 : 0;
        stops.push_back(n);
    }
    std::sort(stops.begin(), stops.end());
    double mean = 0;
    for (double x : stops) {
        mean += x / sims;
    }
    const double medianStop = stops[stops.size() / 2];
    std::printf(
        "1%% effect, unit sd 3%%: fixed n_needed %.0f; sequential mean %.1f, median %.0f, 90th %.0f units "
        "(undecided %d, not different %d of %d)\n",
        fixedN, mean, medianStop, stops[stops.size() * 9 / 10], undecided, wrong, sims);
    EXPECT_EQ(undecided, 0);
    EXPECT_LE(wrong / double(sims), kAlpha + 3 * std::sqrt(kAlpha * (1 - kAlpha) / sims));
    EXPECT_LT(medianStop, fixedN);  // half the runs decide before the fixed design is through
    EXPECT_LT(mean, 1.5 * fixedN);  // and on average within half again of it (see docs/statistics.md)
}

// An A/A run in chunks in which every fourth chunk of b stalled (three times as long, without a
// context switch: a vCPU the hypervisor descheduled) and a few of a's were switched out. The fixed-n
// analysis leaves all of them out with their partner; the monitor (and the Live tab's RunWatch,
// which shows its look) left out only the switched ones, so its sequence saw b three times slower
// in a quarter of its pairs and called the run different.
TEST(UntilDecidedMonitor, TakesTheChunkPairsTheFixedNAnalysisTakes)
{
    RunLayout layout;
    layout.quantities = {quantity::kOps, quantity::kTscTicks, quantity::kElapsedNs, "context-switches"};
    layout.metrics = callLoopMetrics(layout.quantities);
    ExperimentSpec spec;
    spec.workload = "spin";
    spec.variants = {{"a", {}}, {"b", {}}};
    spec.repetitions = 4;
    spec.duration = 0.4;
    spec.chunk = 0.002;
    spec.until = UntilDecided{.maxTime = 100, .marginPct = 1, .alpha = 0.05};
    DecisionMonitor monitor(spec, layout);
    RunWatch watch(spec, layout);  // the Live tab's view: at each repetition's end, the monitor's look
    RunData data;
    data.variantNames = {"a", "b"};
    data.layout = layout;
    std::mt19937_64 rng(5);
    std::normal_distribution<double> noise(0, 0.002);
    DecisionLook look;
    double t = 0;
    for (int r = 0; r < spec.repetitions; ++r) {
        RepetitionResult rep;
        rep.index = r;
        rep.variants = {0, 1};
        rep.start = t;
        for (int p = 0; p < 100; ++p) {
            for (int v = 0; v < 2; ++v) {
                const bool stalled = v == 1 && p % 4 == 0;
                const bool switched = v == 0 && p % 10 == 5;
                const double stretch = stalled || switched ? 3 : 1;
                const double ticks = 100 * 1000 * (1 + noise(rng)) * stretch;
                rep.samples.push_back({.variant = v,
                                       .repetition = r,
                                       .index = p,
                                       .pair = p,
                                       .start = t,
                                       .duration = 0.002 * stretch,
                                       .values = {100, ticks, ticks * 0.4, switched ? 1.0 : 0.0}});
                t += 0.002 * stretch;
            }
        }
        rep.end = t;
        look = monitor.add(rep);
        watch.add({rep.samples.begin(), rep.samples.begin() + 77});
        watch.finishRepetition(rep);
        EXPECT_EQ(watch.look().units, look.units) << "repetition " << r;
        EXPECT_DOUBLE_EQ(watch.look().estimatePct, look.estimatePct) << "repetition " << r;
        EXPECT_EQ(watch.look().decision, look.decision) << "repetition " << r;
        data.samples.append(rep.samples);
    }
    auto in = analysisInput(data, true, {});
    ASSERT_TRUE(in.ok()) << in.error().message;
    EXPECT_EQ(in->preemptedChunks, 4u * (25 + 10));
    auto a = analyze(*in, {});
    ASSERT_TRUE(a.ok()) << a.error().message;
    const auto& fixed = a->comparisons.front().result;
    ASSERT_EQ(fixed.design, Design::Paired);
    EXPECT_EQ(look.units, fixed.n);
    EXPECT_EQ(look.units, 4u * (100 - 25 - 10));
    EXPECT_NEAR(look.estimatePct, 0, 0.1);
    EXPECT_EQ(look.decision, "equivalent");
    EXPECT_EQ(fixed.verdict, Verdict::Equivalent);
}

// A live run side by side stores each chunk's place: its setups (repetition, place), not its chunk
// pairs, are the units of the sequence, as they are of the fixed-n analysis
// (engine/analysis/setup_factor.h): each setup's median log ratio is one unit, and a setup the
// machine took (one pair left of ten) is left out by both. The places rotate as a run's do, so the
// last setup of a repetition and the first of the next share a place.
TEST(UntilDecidedMonitor, TakesTheSetupsOfALiveRunSideBySide)
{
    RunLayout layout;
    layout.quantities = {quantity::kOps, quantity::kTscTicks, quantity::kElapsedNs, "context-switches",
                         quantity::kPlace};
    layout.metrics = callLoopMetrics(layout.quantities);
    ExperimentSpec spec;
    spec.workload = "udp-rx";
    spec.variants = {{"a", {}}, {"b", {}}};
    spec.repetitions = 3;
    spec.duration = 1;
    spec.chunk = 0.025;
    spec.until = UntilDecided{.maxTime = 100, .marginPct = 1, .alpha = 0.05};
    DecisionMonitor monitor(spec, layout);
    RunData data;
    data.variantNames = {"a", "b"};
    data.layout = layout;
    std::mt19937_64 rng(9);
    std::normal_distribution<double> noise(0, 0.01);
    std::normal_distribution<double> draw(0, 0.01);
    DecisionLook look;
    double t = 0;
    for (int r = 0; r < spec.repetitions; ++r) {
        RepetitionResult rep;
        rep.index = r;
        rep.variants = {0, 1};
        rep.start = t;
        for (int setup = 0; setup < 4; ++setup) {
            const double shift[2] = {draw(rng), draw(rng)};  // what this start drew for each variant
            const int rotation = (r + setup) % 2;            // as engine/run/live_chunks.cpp rotates
            for (int p = setup * 10; p < setup * 10 + 10; ++p) {
                const bool taken = r == 1 && setup == 2 && p % 10 != 0;
                for (int v = 0; v < 2; ++v) {
                    const double ticks = 100 * 1000 * std::exp(shift[v] + noise(rng));
                    const double switches = taken && v == 0 ? 1.0 : 0.0;
                    rep.samples.push_back({.variant = v,
                                           .repetition = r,
                                           .index = p,
                                           .pair = p,
                                           .start = t,
                                           .duration = 0.025,
                                           .values = {100, ticks, ticks * 0.4, switches, double((v + rotation) % 2)}});
                    t += 0.025;
                }
            }
        }
        rep.end = t;
        look = monitor.add(rep);
        EXPECT_EQ(look.units, static_cast<std::size_t>(4 * (r + 1) - (r >= 1 ? 1 : 0))) << "repetition " << r;
        data.samples.append(rep.samples);
    }
    EXPECT_EQ(monitor.record(false).unit, "setup");
    auto in = analysisInput(data, true, {});
    ASSERT_TRUE(in.ok()) << in.error().message;
    auto a = analyze(*in, {});
    ASSERT_TRUE(a.ok()) << a.error().message;
    const auto& fixed = a->comparisons.front().result;
    ASSERT_EQ(fixed.design, Design::Setups);
    EXPECT_EQ(look.units, fixed.n);
    EXPECT_NEAR(look.estimatePct, fixed.interval.estimatePct, 1e-9);
}

}  // namespace
}  // namespace nf::engine
