// Profiles (run --profile): samples placed in the chunk that ran at their time, bounded, and two
// variants compared symbol by symbol with the chunk pair as the unit: the t interval against SciPy's
// one-sample t (tests/data/stats/reference.json) and a textbook quantile, and seeded simulations
// of sampling (a multinomial draw per chunk) in which an A/A calls no more symbols changed than
// Benjamini and Hochberg allow and a moved share is found.

#include <gtest/gtest.h>

#include <algorithm>
#include <cmath>
#include <iostream>
#include <random>

#include "engine/analysis/profile_diff.h"
#include "engine/model/profile_attribution.h"
#include "tests/engine/stats_reference.h"

namespace nf::engine {
namespace {

Sample chunk(int variant, int repetition, int index, int pair, double start, double duration)
{
    Sample s;
    s.variant = variant;
    s.repetition = repetition;
    s.index = index;
    s.pair = pair;
    s.start = start;
    s.duration = duration;
    return s;
}

NamedSample at(double seconds, std::vector<std::string> frames, int cpu = 1)
{
    return {seconds, cpu, std::move(frames)};
}

TEST(ProfileAttribution, EachSampleGoesToTheChunkThatRanAtItsTime)
{
    RepetitionResult rep;
    rep.index = 0;
    rep.samples = {chunk(0, 0, 0, 0, 1.0, 0.002), chunk(1, 0, 0, 0, 1.0021, 0.002), chunk(0, 0, 1, 1, 1.0042, 0.002)};
    const std::vector<NamedSample> samples = {
        at(0.5, {"warmUp"}),                     // before the first chunk
        at(1.0005, {"leaf", "caller", "main"}),  // variant 0, chunk 0
        at(1.0020, {"leaf", "caller", "main"}),  // in the gap between two chunks
        at(1.0030, {"other", "main"}),           // variant 1, chunk 0
        at(1.0050, {"leaf", "main"}),            // variant 0, chunk 1
        at(1.0050, {"leaf", "main"}, 0),         // the same time on another CPU
        at(2.0, {"late"}),                       // after the last
    };
    const auto p = attributeSamples(rep, samples);
    EXPECT_EQ(p.outside, 3U);
    ASSERT_EQ(p.chunks.size(), 4U);
    int total = 0;
    for (const auto& c : p.chunks) {
        total += c.samples;
    }
    EXPECT_EQ(total, 4);
    const auto name = [&](const ProfileCount& c) { return p.symbols.at(static_cast<std::size_t>(c.symbol)); };
    const auto count = std::count_if(p.counts.begin(), p.counts.end(), [&](const ProfileCount& c) {
        return c.variant == 0 && c.index == 1 && c.cpu == 1 && name(c) == "leaf" && c.samples == 1;
    });
    EXPECT_EQ(count, 1);
    const auto stack = std::find_if(p.stacks.begin(), p.stacks.end(), [](const ProfileStack& s) {
        return s.variant == 0 && s.cpu == 1 && s.stack == "main;caller;leaf";
    });
    ASSERT_NE(stack, p.stacks.end());
    EXPECT_EQ(stack->samples, 1);
}

TEST(ProfileAttribution, KeepsTheTopSymbolsAndSumsTheRestAsOther)
{
    RepetitionResult rep;
    rep.samples = {chunk(0, 0, 0, 0, 0, 1)};
    std::vector<NamedSample> samples;
    for (int i = 0; i < 10; ++i) {
        for (int n = 0; n <= i; ++n) {  // symbol i has i + 1 samples
            samples.push_back(at(0.5, {"f" + std::to_string(i), "root"}));
        }
    }
    const auto p = attributeSamples(rep, samples, ProfileBounds{3, 2});
    std::map<std::string, int> bySymbol;
    for (const auto& c : p.counts) {
        bySymbol[p.symbols.at(static_cast<std::size_t>(c.symbol))] += c.samples;
    }
    EXPECT_EQ(bySymbol.size(), 4U);
    EXPECT_EQ(bySymbol["f9"], 10);
    EXPECT_EQ(bySymbol["f7"], 8);
    EXPECT_EQ(bySymbol[kOtherSymbol], 1 + 2 + 3 + 4 + 5 + 6 + 7);
    std::map<std::string, int> byStack;
    for (const auto& s : p.stacks) {
        byStack[s.stack] += s.samples;
    }
    EXPECT_EQ(byStack.size(), 3U);
    EXPECT_EQ(byStack["root;f9"], 10);
    EXPECT_EQ(byStack[kOtherSymbol], 55 - 10 - 9);
}

// A run of `pairs` chunk pairs, one repetition, one sampled CPU, with the given samples per chunk
// and symbol: counts(variant, pair) -> {symbol: samples}.
template <class Counts>
RunData profiledRun(int pairs, const std::vector<std::string>& symbols, Counts counts)
{
    RunData data;
    data.variantNames = {"base", "cand"};
    std::vector<Sample> samples;
    RunProfile profile;
    profile.summary.event = "cpu-clock";
    profile.summary.cpus = {{1, "worker"}};
    profile.symbols = symbols;
    for (int pair = 0; pair < pairs; ++pair) {
        for (int v = 0; v < 2; ++v) {
            samples.push_back(chunk(v, 0, pair, pair, pair * 0.004 + v * 0.002, 0.002));
            const std::vector<int> n = counts(v, pair);
            int total = 0;
            for (std::size_t s = 0; s < n.size(); ++s) {
                if (n[s] > 0) {
                    profile.counts.push_back({v, 0, pair, 1, static_cast<int>(s), n[s]});
                }
                total += n[s];
            }
            profile.chunks.push_back({v, 0, pair, 1, total});
        }
    }
    data.samples = RunTable(0, samples);
    data.profile = profile;
    return data;
}

const ProfileRow& rowOf(const ProfileComparison& c, const std::string& symbol)
{
    const auto it = std::find_if(c.rows.begin(), c.rows.end(), [&](const ProfileRow& r) { return r.symbol == symbol; });
    EXPECT_NE(it, c.rows.end()) << symbol;
    return *it;
}

// Pair i: the candidate's share of "f" exceeds the baseline's by d20[i] percentage points (10^9
// samples a chunk make every difference exact, and the sampling floor far below the pairs'
// scatter); "g" has the rest. With equal totals the ratio estimator's error is the one-sample t's.
TEST(ProfileDiff, TIntervalOverChunkPairsMatchesScipy)
{
    const auto d = test::referenceData("d20");
    const int total = 1000000000;
    const auto data = profiledRun(static_cast<int>(d.size()), {"f", "g"}, [&](int v, int pair) {
        const int f = total / 2 + (v == 1 ? static_cast<int>(std::lround(d[static_cast<std::size_t>(pair)] * 1e7)) : 0);
        return std::vector<int>{f, total - f};
    });
    const auto c = compareProfiles(data, 0, 1);
    EXPECT_EQ(c.unit, "chunk pair");
    const auto& f = rowOf(c, "f");
    double mean = 0;
    for (const double x : d) {
        mean += x / static_cast<double>(d.size());
    }
    EXPECT_EQ(f.units, d.size());
    EXPECT_NEAR(f.deltaPp, mean, 1e-9);
    EXPECT_NEAR(f.p, test::referenceValue("ttest1", "d20", "p"), 1e-9);
    // Half the interval is t(0.975, 19) = 2.093024054408263 (tables) standard errors, and the
    // standard error is the mean over SciPy's t.
    const double half = 2.093024054408263 * mean / test::referenceValue("ttest1", "d20", "t");
    EXPECT_NEAR(f.highPp - f.deltaPp, half, 1e-9);
    EXPECT_NEAR(f.deltaPp - f.lowPp, half, 1e-9);
    EXPECT_NEAR(f.baselineSharePct, 50, 1e-9);
    // "g" moves by exactly as much the other way: the same p, and the same q (two rows, both small).
    EXPECT_NEAR(rowOf(c, "g").deltaPp, -mean, 1e-9);
    EXPECT_NEAR(rowOf(c, "g").q, f.p, 1e-9);
}

// Each chunk's samples drawn from the symbols' true shares (a multinomial, as sampling is), 12
// samples a chunk over 1000 chunk pairs.
RunData simulated(std::mt19937_64& rng, const std::vector<double>& baseShares, const std::vector<double>& candShares)
{
    std::vector<std::string> names;
    for (std::size_t i = 0; i < baseShares.size(); ++i) {
        names.push_back("s" + std::to_string(i));
    }
    return profiledRun(1000, names, [&](int v, int) {
        std::discrete_distribution<int> draw(v == 0 ? baseShares.begin() : candShares.begin(),
                                             v == 0 ? baseShares.end() : candShares.end());
        std::vector<int> n(baseShares.size(), 0);
        for (int i = 0; i < 12; ++i) {
            ++n[static_cast<std::size_t>(draw(rng))];
        }
        return n;
    });
}

TEST(ProfileDiff, AnAACallsNoMoreSymbolsChangedThanBenjaminiHochbergAllows)
{
    std::mt19937_64 rng(20261206);
    std::vector<double> shares = {40, 20, 10, 8, 6, 5, 4, 3, 2, 1, 0.5, 0.5};
    int runsWithAny = 0;
    const int runs = 200;
    for (int run = 0; run < runs; ++run) {
        const auto c = compareProfiles(simulated(rng, shares, shares), 0, 1);
        runsWithAny += std::any_of(c.rows.begin(), c.rows.end(), [](const ProfileRow& r) { return r.q < 0.05; });
    }
    std::cout << "A/A: " << runsWithAny << " of " << runs << " simulated runs called any symbol changed\n";
    // Every null is true: the false discovery rate is the chance of any discovery, at most 5% (the
    // rows are dependent, shares sum to 100, which BH tolerates here); 200 runs: allow 2x.
    EXPECT_LE(runsWithAny, 20) << runsWithAny << " of " << runs;
}

TEST(ProfileDiff, AShareThatMovesIsFoundAndTheOthersAreNot)
{
    std::mt19937_64 rng(7);
    const std::vector<double> base = {60, 30, 10};
    const std::vector<double> cand = {55, 30, 15};  // s0 -5 pp, s2 +5 pp
    int found = 0;
    for (int run = 0; run < 20; ++run) {
        const auto c = compareProfiles(simulated(rng, base, cand), 0, 1);
        const auto& s2 = rowOf(c, "s2");
        found += s2.q < 0.05 && s2.lowPp < 5 && s2.highPp > 5;
    }
    EXPECT_GE(found, 17);
}

// Three repetitions of two intervals each, every interval `total` samples, the symbol `base` of
// them in variant a's and base + total / 10 in b's: +10 points in every repetition.
ProfileComparison everyRepetitionTenPoints(int base, int total)
{
    RunData data;
    data.variantNames = {"a", "b"};
    std::vector<Sample> samples;
    RunProfile profile;
    profile.symbols = {"f"};
    profile.summary.cpus = {{0, "worker"}};
    for (int rep = 0; rep < 3; ++rep) {
        for (int v = 0; v < 2; ++v) {
            for (int i = 0; i < 2; ++i) {
                samples.push_back(chunk(v, rep, i, -1, rep * 10 + v * 5 + i, 1));
                profile.chunks.push_back({v, rep, i, 0, total});
                profile.counts.push_back({v, rep, i, 0, 0, base + v * total / 10});
            }
        }
    }
    data.samples = RunTable(0, samples);
    data.profile = profile;
    return compareProfiles(data, 0, 1);
}

TEST(ProfileDiff, RepetitionsAreTheUnitWhenTheRunDoesNotAlternate)
{
    const auto c = everyRepetitionTenPoints(500, 1000);
    EXPECT_EQ(c.unit, "repetition");
    ASSERT_EQ(c.rows.size(), 1U);
    EXPECT_EQ(c.rows[0].units, 3U);
    EXPECT_NEAR(c.rows[0].deltaPp, 10, 1e-12);
    EXPECT_LT(c.rows[0].p, 0.05);
}

// The same +10 points from 5 and 6 samples of 10: identical in every repetition, yet 60 samples a
// side cannot tell 50% from 60%. The sampling error floors the repetitions' (zero) scatter.
TEST(ProfileDiff, FewSamplesAreNoEvidenceHoweverAlikeTheUnits)
{
    const auto c = everyRepetitionTenPoints(5, 10);
    ASSERT_EQ(c.rows.size(), 1U);
    EXPECT_NEAR(c.rows[0].deltaPp, 10, 1e-12);
    EXPECT_GT(c.rows[0].p, 0.3);
    EXPECT_LT(c.rows[0].lowPp, 0);
}

// Runs of two labels (an import per boot): one run's repetitions per side, a million samples in
// each, the symbol's count ten thousand times a reference value. With equal totals the ratio
// estimator's linearised variance is the variance of the shares over the units, so the
// difference is Welch's t on the shares: SciPy's ttest_ind(equal_var=False) on x5 and y4.
RunData profiledRun(const std::vector<double>& values)
{
    RunData data;
    data.variantNames = {"default"};
    RunProfile profile;
    profile.summary.event = "cpu-clock";
    profile.summary.cpus = {{-1, "all CPUs"}};
    profile.symbols = {"f", "g"};
    for (std::size_t r = 0; r < values.size(); ++r) {
        const int rep = static_cast<int>(r);
        const int inF = static_cast<int>(std::lround(values[r] * 10000));
        profile.chunks.push_back({0, rep, 0, -1, 1000000});
        profile.counts.push_back({0, rep, 0, -1, 0, inF});
        profile.counts.push_back({0, rep, 0, -1, 1, 1000000 - inF});
    }
    data.profile = profile;
    return data;
}

TEST(ProfileAcrossRuns, EqualTotalsGiveWelchOnTheSharesAsScipy)
{
    const auto base = profiledRun(test::referenceData("x5"));
    auto cand = profiledRun(test::referenceData("y4"));
    cand.profile->summary.cpus = {{-1, "CPU 2,3"}};  // pooled profiles match whatever CPUs they pool
    const auto c = compareProfilesAcross("x", {{&base, 0}}, "y", {{&cand, 0}});
    EXPECT_EQ(c.unit, "repetition");
    const auto f = std::find_if(c.rows.begin(), c.rows.end(), [](const ProfileRow& r) { return r.symbol == "f"; });
    ASSERT_NE(f, c.rows.end());
    EXPECT_EQ(f->units, 9U);
    EXPECT_NEAR(f->p, test::referenceValue("welch", "x5_y4", "p"), 1e-9);
    EXPECT_GT(f->deltaPp, 0);  // y4's mean is the larger: t = -2.82 for x5 against y4
    EXPECT_LT(f->lowPp, f->deltaPp);
    EXPECT_GT(f->lowPp, 0);  // p < 0.05
}

// A run that kept f in one repetition and summed it as [other] in another: its count there is
// unknown, so the row has no interval rather than a change made of the fold.
TEST(ProfileAcrossRuns, ASymbolSummedAsOtherInAUnitHasNoInterval)
{
    auto base = profiledRun({10.0, 10.1, 9.9});
    base.profile->symbols.emplace_back(kOtherSymbol);
    auto& counts = base.profile->counts;
    std::erase_if(counts, [](const ProfileCount& c) { return c.repetition == 2 && c.symbol == 0; });
    counts.push_back({0, 2, 0, -1, 2, 99000});
    const auto cand = profiledRun({10.0, 10.2, 9.8});
    const auto c = compareProfilesAcross("x", {{&base, 0}}, "y", {{&cand, 0}});
    const auto f = std::find_if(c.rows.begin(), c.rows.end(), [](const ProfileRow& r) { return r.symbol == "f"; });
    ASSERT_NE(f, c.rows.end());
    EXPECT_TRUE(f->partial);
    EXPECT_TRUE(std::isnan(f->p));
}

TEST(ProfileAcrossRuns, OneUnitOnASideGivesNoInterval)
{
    const auto base = profiledRun({10.0});
    const auto cand = profiledRun({11.0, 12.0, 13.0});
    const auto c = compareProfilesAcross("x", {{&base, 0}}, "y", {{&cand, 0}});
    const auto f = std::find_if(c.rows.begin(), c.rows.end(), [](const ProfileRow& r) { return r.symbol == "f"; });
    ASSERT_NE(f, c.rows.end());
    EXPECT_TRUE(std::isnan(f->lowPp));
    EXPECT_TRUE(std::isnan(f->p));
    EXPECT_NEAR(f->deltaPp, 12.0 - 10.0, 1e-9);  // shares of 12% against 10%
}

TEST(ProfileAcrossRuns, SeveralRunsASideMakeTheRunTheUnit)
{
    const auto a1 = profiledRun({10.0, 10.2});
    const auto a2 = profiledRun({10.1});
    const auto b1 = profiledRun({10.4});
    const auto b2 = profiledRun({10.5, 10.3, 10.6});
    const auto c = compareProfilesAcross("a", {{&a1, 0}, {&a2, 0}}, "b", {{&b1, 0}, {&b2, 0}});
    EXPECT_EQ(c.unit, "run");
    ASSERT_FALSE(c.rows.empty());
    EXPECT_EQ(c.rows[0].units, 4U);
}

}  // namespace
}  // namespace nf::engine
