#include "engine/analysis/analysis.h"

#include <gtest/gtest.h>

#include <algorithm>
#include <cmath>
#include <random>
#include <sstream>

#include "engine/report/evidence.h"
#include "tests/engine/stats_reference.h"

namespace nf::engine {
namespace {

// An alternating run: `reps` repetitions of `rounds` chunk pairs; b costs `shift` more than a.
RunData alternatingRun(double shift, int reps = 3, int rounds = 100, double drift = 0, unsigned seed = 1)
{
    std::mt19937_64 rng(seed);
    std::normal_distribution<double> noise(0, 0.002);
    RunData d;
    d.variantNames = {"a", "b"};
    d.layout.quantities = {"ops", "tsc_ticks", "elapsed_ns"};
    d.layout.metrics = callLoopMetrics(d.layout.quantities);
    d.samples = RunTable(d.layout.quantities.size());
    double t = 0;
    for (int r = 0; r < reps; ++r) {
        for (int p = 0; p < rounds; ++p) {
            const double machine = 1 + drift * t / (reps * rounds);  // slow drift hits a and b alike
            for (int v = 0; v < 2; ++v) {
                const double perOp = 1000 * machine * (v == 1 ? 1 + shift : 1) * (1 + noise(rng));
                d.samples.append(Sample{v, r, p, p, t, 0.002, {100, perOp * 100, perOp * 40}});
                t += 1;
            }
        }
    }
    return d;
}

const MetricComparison& primaryOf(const Analysis& a, const std::string& metric = "tsc_per_op")
{
    for (const auto& c : a.comparisons) {
        if (c.primary && c.metric == metric) {
            return c;
        }
    }
    throw std::runtime_error("no primary comparison for " + metric);
}

TEST(AnalysisInput, PairsAlignAndAliasesAreLeftOut)
{
    const auto d = alternatingRun(0.01);
    auto in = analysisInput(d, true, {});
    ASSERT_TRUE(in.ok()) << in.error().message;
    EXPECT_TRUE(in->alternating);
    ASSERT_EQ(in->metrics.size(), 1u);  // ns_per_op and ops_per_sec only convert tsc_per_op
    EXPECT_EQ(in->metrics[0].name, "tsc_per_op");
    EXPECT_EQ(in->pairs[0][0].size(), 300u);
    EXPECT_EQ(in->repetitions[0][1].size(), 3u);
    auto named = analysisInput(d, true, {"ns_per_op", "tsc_per_op"});
    ASSERT_TRUE(named.ok());
    EXPECT_EQ(named->metrics.size(), 2u);
    auto unknown = analysisInput(d, true, {"ipc"});
    ASSERT_FALSE(unknown.ok());
    EXPECT_EQ(unknown.error().message.rfind("--metric ipc: not measured in this run", 0), 0u);
}

// Rows out of round order (a run built in memory, not loaded in start order) give the same input
// as the same rows in order: every row's round is found, not counted as the rows go by.
TEST(AnalysisInput, RowsOutOfRoundOrderGiveTheSameInput)
{
    const auto d = alternatingRun(0.01);
    auto shuffled = d;
    auto samples = d.samples.toSamples();
    std::shuffle(samples.begin(), samples.end(), std::mt19937(3));
    shuffled.samples = RunTable(d.layout.quantities.size(), samples);
    auto in = analysisInput(d, true, {"tsc_per_op", "ns_per_op"});
    auto out = analysisInput(shuffled, true, {"tsc_per_op", "ns_per_op"});
    ASSERT_TRUE(in.ok() && out.ok());
    EXPECT_TRUE(out->alternating);
    EXPECT_EQ(out->pairs, in->pairs);
    ASSERT_EQ(out->repetitions.size(), in->repetitions.size());
    for (std::size_t m = 0; m < in->repetitions.size(); ++m) {
        for (std::size_t v = 0; v < 2; ++v) {
            ASSERT_EQ(out->repetitions[m][v].size(), 3u);
            for (std::size_t r = 0; r < 3; ++r) {  // sums in another order: equal to rounding
                EXPECT_NEAR(out->repetitions[m][v][r], in->repetitions[m][v][r], 1e-9 * in->repetitions[m][v][r]);
            }
        }
    }
}

// The same A/A run with a context-switches column: every `period`-th chunk of b (only b, the
// pattern a periodic neighbour can fall into) was switched out and took three times as long.
RunData preemptedRun(int period)
{
    RunData d = alternatingRun(0.0);
    d.layout.quantities.push_back("context-switches");
    auto samples = d.samples.toSamples();
    int i = 0;
    for (auto& s : samples) {
        const bool hit = s.variant == 1 && i++ % period == 0;
        s.values.push_back(hit ? 1 : 0);
        if (hit) {
            s.values[1] *= 3;
            s.values[2] *= 3;
        }
    }
    d.samples = RunTable(d.layout.quantities.size(), samples);
    return d;
}

TEST(Analyze, ChunksWithTheWorkerSwitchedOutAreLeftOutOfThePairs)
{
    auto in = analysisInput(preemptedRun(3), true, {});
    ASSERT_TRUE(in.ok());
    EXPECT_EQ(in->chunks, 600u);
    EXPECT_EQ(in->preemptedChunks, 100u);
    auto a = analyze(*in, {});
    ASSERT_TRUE(a.ok());
    const auto& c = primaryOf(*a);
    EXPECT_EQ(c.result.n, 200u);
    EXPECT_EQ(c.result.verdict, Verdict::Equivalent) << c.result.interval.estimatePct;
    EXPECT_NEAR(c.result.interval.estimatePct, 0, 0.1);
    bool said = false;
    for (const auto& w : a->warnings) {
        said = said || w.find("100 of 600 chunks (16.7%) left out of the chunk pairs and the repetition values") !=
                           std::string::npos;
    }
    EXPECT_TRUE(said);

    // Most chunks hit: nothing is left out, and the warning says the values include other tasks' time.
    auto busy = analysisInput(preemptedRun(1), true, {});
    ASSERT_TRUE(busy.ok());
    auto b = analyze(*busy, {});
    ASSERT_TRUE(b.ok());
    EXPECT_EQ(primaryOf(*b).result.n, 300u);
    EXPECT_GT(primaryOf(*b).result.interval.estimatePct, 100);
    said = false;
    for (const auto& w : b->warnings) {
        said = said || w.find("too many to leave out") != std::string::npos;
    }
    EXPECT_TRUE(said);
}

TEST(Analyze, ChunksThatStalledWithoutASwitchAreLeftOutToo)
{
    // No context-switches column: a vCPU the hypervisor descheduled shows only in the chunk's length.
    RunData d = alternatingRun(0.0);
    auto samples = d.samples.toSamples();
    int i = 0;
    for (auto& s : samples) {
        if (s.variant == 1 && i++ % 4 == 0) {
            s.duration *= 3;
            s.values[1] *= 3;
            s.values[2] *= 3;
        }
    }
    d.samples = RunTable(d.layout.quantities.size(), samples);
    auto in = analysisInput(d, true, {});
    ASSERT_TRUE(in.ok());
    EXPECT_EQ(in->preemptedChunks, 75u);
    auto a = analyze(*in, {});
    ASSERT_TRUE(a.ok());
    EXPECT_EQ(primaryOf(*a).result.verdict, Verdict::Equivalent);
}

// A live run in chunks: the generator offers `offered` packets per 25 ms chunk, each variant takes
// its `taken` share of them (the rest dropped at its socket).
RunData liveRun(double offered, double takenA, double takenB)
{
    std::mt19937_64 rng(3);
    std::normal_distribution<double> noise(0, 0.01);
    RunData d;
    d.variantNames = {"a", "b"};
    d.layout.quantities = {"packets", "offered_packets", "drops", "elapsed_ns"};
    d.layout.metrics = liveMetrics(d.layout.quantities);
    d.samples = RunTable(d.layout.quantities.size());
    double t = 0;
    for (int p = 0; p < 200; ++p) {
        for (int v = 0; v < 2; ++v) {
            const double gen = offered * (1 + noise(rng));
            const double got = gen * (v == 0 ? takenA : takenB);
            d.samples.append(Sample{v, 0, p, p, t, 0.025, {got, gen, gen - got, 25e6}});
            t += 0.025;
        }
    }
    return d;
}

bool warns(const Analysis& a, const std::string& start)
{
    return std::any_of(a.warnings.begin(), a.warnings.end(),
                       [&](const std::string& w) { return w.rfind(start, 0) == 0; });
}

TEST(Analyze, SaysWhenTheReceiverKeptUpWithTheGenerator)
{
    // Both variants take 99.5% or more of what was offered: pps is the generator's rate.
    auto in = analysisInput(liveRun(25000, 0.999, 0.995), true, {});
    ASSERT_TRUE(in.ok()) << in.error().message;
    ASSERT_EQ(in->receivedShare.size(), 2u);
    EXPECT_NEAR(in->receivedShare[0], 0.999, 1e-9);
    auto a = analyze(*in, {});
    ASSERT_TRUE(a.ok());
    EXPECT_TRUE(warns(*a,
                      "pps is the generator's rate, not the variants': the receiver kept up, every variant "
                      "took at least 99% of the packets offered (a 99.90%, b 99.50%)"))
        << (a->warnings.empty() ? "" : a->warnings.front());

    // One variant drops 10% at its socket: it, not the generator, limits the rate. No warning.
    auto saturated = analyze(*analysisInput(liveRun(25000, 0.999, 0.9), true, {}), {});
    ASSERT_TRUE(saturated.ok());
    EXPECT_FALSE(warns(*saturated, "pps is the generator's rate"));

    // No generator count (an in-process run): nothing to say.
    auto inProcess = analysisInput(alternatingRun(0.0), true, {});
    ASSERT_TRUE(inProcess.ok());
    EXPECT_TRUE(inProcess->receivedShare.empty());
}

TEST(Analyze, FindsAOnePercentShiftInChunkPairs)
{
    auto in = analysisInput(alternatingRun(0.01), true, {});
    auto a = analyze(*in, {});
    ASSERT_TRUE(a.ok());
    const auto& c = primaryOf(*a);
    EXPECT_EQ(c.result.design, Design::Paired);
    EXPECT_EQ(c.result.n, 300u);
    EXPECT_EQ(c.result.verdict, Verdict::Different);
    EXPECT_NEAR(c.result.interval.estimatePct, 1.0, 0.1);
    EXPECT_LT(c.result.interval.ci.low, 1.0);
    EXPECT_GT(c.result.interval.ci.high, 1.0);
    EXPECT_EQ(verdictSentence(c, {}).rfind("b is 1.0", 0), 0u) << verdictSentence(c, {});
}

TEST(Analyze, SameCodeIsNotDifferentAndWithinTheMargin)
{
    auto in = analysisInput(alternatingRun(0.0, 3, 100, 0, 7), true, {});
    auto a = analyze(*in, {});
    const auto& c = primaryOf(*a);
    EXPECT_NE(c.result.verdict, Verdict::Different);
    EXPECT_TRUE(c.result.withinMargin);
}

TEST(Analyze, PairingCancelsDriftThatHidesTheDifferenceBetweenRepetitionMeans)
{
    // 0.5% real difference, 5% drift over the run: repetition means cannot see it, chunk pairs can.
    auto in = analysisInput(alternatingRun(0.005, 3, 200, 0.05), true, {});
    auto a = analyze(*in, {});
    const auto& paired = primaryOf(*a);
    // Found, and inside the 1% margin: negligible.
    EXPECT_EQ(paired.result.verdict, Verdict::Negligible);
    const auto& independent = *std::find_if(a->comparisons.begin(), a->comparisons.end(),
                                            [](const MetricComparison& c) { return !c.primary; });
    EXPECT_EQ(independent.result.design, Design::Independent);
    EXPECT_NE(independent.result.verdict, Verdict::Different);
    bool drift = false;
    for (const auto& w : a->warnings) {
        drift = drift || w.rfind("drift: a tsc_per_op moved", 0) == 0;
    }
    EXPECT_TRUE(drift);
}

TEST(Analyze, BaselineByNameAndHolmAcrossMetrics)
{
    auto in = analysisInput(alternatingRun(0.01), true, {"tsc_per_op", "ns_per_op"});
    AnalysisOptions o;
    o.baseline = "b";
    auto a = analyze(*in, o);
    ASSERT_TRUE(a.ok());
    const auto& c = primaryOf(*a);
    EXPECT_EQ(c.baseline, "b");
    EXPECT_EQ(c.candidate, "a");
    EXPECT_LT(c.result.interval.estimatePct, 0);
    EXPECT_GE(c.result.pAdjusted, c.result.p);
    o.baseline = "z";
    EXPECT_FALSE(analyze(*in, o).ok());
}

TEST(Analyze, OutliersAreFlaggedAndDroppedOnlyWhenAsked)
{
    auto d = alternatingRun(0.0, 6, 20);
    auto samples = d.samples.toSamples();
    for (auto& s : samples) {
        if (s.variant == 1 && s.repetition == 4) {
            s.values[1] *= 1.5;  // one repetition of b ran 50% slow
        }
    }
    d.samples = RunTable(d.layout.quantities.size(), samples);
    auto in = analysisInput(d, true, {});
    auto kept = analyze(*in, {});
    const auto& b = kept->variants[1];
    EXPECT_EQ(b.outliers, (std::vector<std::size_t>{4}));
    EXPECT_EQ(b.dropped, 0u);
    EXPECT_EQ(b.summary.n, 6u);
    AnalysisOptions o;
    o.dropOutliers = true;
    auto dropped = analyze(*in, o);
    EXPECT_EQ(dropped->variants[1].summary.n, 5u);
    EXPECT_GT(primaryOf(*dropped).result.droppedOutliers, 0u);
}

TEST(Analyze, AcrossRunsIsIndependent)
{
    const auto vanilla = alternatingRun(0.0, 5, 10, 0, 3);
    const auto patched = alternatingRun(0.0, 5, 10, 0, 4);
    auto in = analysisInputAcross({{"vanilla", &vanilla, 0}, {"patched", &patched, 1}}, {});
    ASSERT_TRUE(in.ok()) << in.error().message;
    EXPECT_FALSE(in->alternating);
    auto a = analyze(*in, {});
    const auto& c = primaryOf(*a);
    EXPECT_EQ(c.result.design, Design::Independent);
    EXPECT_EQ(c.baseline, "vanilla");
    EXPECT_EQ(c.result.n, 5u);
}

TEST(Evidence, TextFitsAMailAndJsonCarriesTheContract)
{
    auto in = analysisInput(alternatingRun(0.01), true, {});
    auto a = analyze(*in, {});
    EvidenceContext ctx;
    ctx.title = "noisefloor: run 1 (spin, complete)";
    ctx.header = {"$ noisefloor run spin --variant a:work=1000 --variant b:work=1010 --reps 3 --duration 0.2",
                  "kernel 6.1.0, AMD EPYC (VM), host vm, worker CPU 1"};
    ctx.designNote = "paired design: each pair is two adjacent chunks of one repetition (A B, B A, ...).";
    ctx.warnings = {"not measured: cycles, instructions (no hardware PMU on this machine, e.g. a VM without vPMU)"};
    std::ostringstream text;
    writeEvidenceText(*a, ctx, text);
    std::istringstream lines(text.str());
    std::string line;
    while (std::getline(lines, line)) {
        EXPECT_LE(line.size(), 72u) << line;
    }
    EXPECT_NE(text.str().find("verdict: b is 1.0"), std::string::npos) << text.str();
    const auto j = evidenceJson(*a, ctx);
    EXPECT_EQ(j["schema_version"], kEvidenceSchemaVersion);
    const auto& c = j["comparisons"][0];
    for (const char* key : {"metric", "design", "baseline", "candidate", "delta_pct", "ci_low_pct", "ci_high_pct", "p",
                            "p_paired_t", "p_wilcoxon", "verdict", "mde_pct", "n_needed"}) {
        EXPECT_TRUE(c.contains(key)) << key;
    }
    EXPECT_EQ(c["design"], "paired");
    for (const char* key : {"name", "metric", "n", "mean", "median", "stddev", "cv", "ci_low", "ci_high", "outliers"}) {
        EXPECT_TRUE(j["variants"][0].contains(key)) << key;
    }
    std::ostringstream csv;
    writeEvidenceCsv(*a, csv);
    EXPECT_EQ(csv.str().rfind("metric,design,primary,baseline,candidate,", 0), 0u);
}

TEST(Evidence, WrapKeepsWordsAndIndents)
{
    const auto lines = wrap("  - one two three four five", 12, "    ");
    EXPECT_EQ(lines, (std::vector<std::string>{"  - one two", "    three", "    four", "    five"}));
}

// Input as `noisefloor stat` makes it: one metric, a file of values per variant.
AnalysisInput statInput(std::vector<std::vector<double>> values, bool paired = false)
{
    AnalysisInput in;
    for (std::size_t v = 0; v < values.size(); ++v) {
        in.variants.push_back(v == 0 ? "a.txt" : "b.txt");
    }
    in.metrics = {{"value", "", "", "", 1.0, false, "", ""}};
    in.repetitions = {std::move(values)};
    in.pairs.assign(1, {});
    in.unit = "value";
    in.pairedRepetitions = in.pairedPrimary = paired;
    in.pairUnit = "line pair";
    return in;
}

// Found by tests/fuzz/stat_values_fuzz.cpp: `stat` on a file of 1.5e91, 0.21 and 10 made Welch's
// degrees of freedom NaN (the variances' squares overflow) and Boost.Math threw out of analyze().
// The statistics are scale-free now; what is refused is what no double can square.
TEST(Analyze, ValuesOutsideTheAnalysedRangeAreAnError)
{
    auto fuzzed = analyze(statInput({{1.5e91, 0.21, 10}, {1.5e91, 0.21, 10}}), AnalysisOptions{});
    ASSERT_TRUE(fuzzed.ok()) << fuzzed.error().message;
    EXPECT_NEAR(primaryOf(*fuzzed, "value").result.p, 1.0, 1e-12);
    auto large = analyze(statInput({{1.5e191, 0.21, 10}, {1, 2, 3}}), AnalysisOptions{});
    ASSERT_FALSE(large.ok());
    EXPECT_NE(large.error().message.find("value of a.txt"), std::string::npos) << large.error().message;
    EXPECT_NE(large.error().message.find("too large"), std::string::npos) << large.error().message;
    auto small = analyze(statInput({{1, 2, 3}, {1e-200, 2e-200, 3e-200}}), AnalysisOptions{});
    ASSERT_FALSE(small.ok());
    EXPECT_NE(small.error().message.find("value of b.txt"), std::string::npos) << small.error().message;
    EXPECT_NE(small.error().message.find("too small"), std::string::npos) << small.error().message;
    EXPECT_TRUE(analyze(statInput({{0, 1e-149, 3}, {1e149, 2e149, 4e149}}), AnalysisOptions{}).ok());
}

// Times of something very fast, in seconds: 1e-100 made the degrees of freedom NaN and the
// analysis threw ("internal error"). Scale-free, they give the x10/y12 result of stats_test.
TEST(Analyze, ValuesNear1eMinus100AreAnalysedAsAnyOther)
{
    const auto& f = test::reference()["fieller"]["tiny"];
    auto a = analyze(statInput({test::referenceData("tiny_b"), test::referenceData("tiny_c")}), AnalysisOptions{});
    ASSERT_TRUE(a.ok()) << a.error().message;
    const auto& r = primaryOf(*a, "value").result;
    const double width = f["ci95"]["high_pct"].get<double>() - f["ci95"]["low_pct"].get<double>();
    EXPECT_NEAR(r.interval.ci.low, f["ci95"]["low_pct"].get<double>(), 1e-6 * width);
    EXPECT_NEAR(r.interval.ci.high, f["ci95"]["high_pct"].get<double>(), 1e-6 * width);
    EXPECT_NEAR(r.p, f["welch"]["p"].get<double>(), 1e-9);
    EXPECT_EQ(r.verdict, Verdict::Different);
    EXPECT_NEAR(a->variants[0].summary.mean / 1e-100, mean(test::referenceData("x10")), 1e-9);
}

// Seven values each: from six pairs on the signed-rank test can reach p < 0.05, so a difference is
// detectable at all (with fewer none is, and the paired MDE is NaN).
TEST(Analyze, ExtremeMagnitudesInsideTheRangeGiveFiniteResults)
{
    for (bool paired : {false, true}) {
        auto a = analyze(statInput({{1e-150, 1.1e-150, 1.2e-150, 1.05e-150, 1.15e-150, 1.3e-150, 1.25e-150},
                                    {1e150, 0.7e150, 0.9e150, 0.8e150, 0.95e150, 0.75e150, 0.85e150}},
                                   paired),
                         {});
        ASSERT_TRUE(a.ok()) << a.error().message;
        for (const auto& c : a->comparisons) {
            EXPECT_TRUE(std::isfinite(c.result.interval.estimatePct)) << toString(c.result.design);
            EXPECT_TRUE(std::isfinite(c.result.mdePct)) << toString(c.result.design);
        }
    }
}

// Negative values: b's mean (-95.1) is above a's (-100.2), so b is higher, though the ratio of the
// means (0.949) is below 1. The verdict said "b.txt is 5.09% lower (better)".
TEST(Evidence, TheDirectionIsTheSignOfTheDifferenceWithNegativeValues)
{
    auto a = analyze(
        statInput({{-100.4, -100.1, -99.9, -100.3, -100.2, -100.3}, {-95.0, -95.3, -94.9, -95.2, -95.1, -95.1}}),
        AnalysisOptions{});
    ASSERT_TRUE(a.ok()) << a.error().message;
    const auto& c = primaryOf(*a, "value");
    ASSERT_EQ(c.result.verdict, Verdict::Different);
    EXPECT_LT(c.result.interval.estimatePct, 0);  // the ratio's change
    EXPECT_EQ(c.result.direction, 1);
    const std::string sentence = verdictSentence(c, a->options.compare);
    EXPECT_EQ(sentence.rfind("b.txt is 5.09% higher (worse) than a.txt", 0), 0u) << sentence;
    EXPECT_EQ(verdictWord(c), "different: worse");
    const auto j = evidenceJson(*a, {});
    EXPECT_EQ(j["comparisons"][0]["direction"], "higher");
    EXPECT_LT(j["comparisons"][0]["delta_pct"].get<double>(), 0);
}

// Drift of negative values: the medians go from -100.9 to -104.9 (Spearman rho -1), a move down.
// The warning said "+3.96%", the sign of last / first - 1.
TEST(Analyze, DriftOfNegativeValuesHasTheSignOfTheMove)
{
    std::vector<double> falling;
    falling.reserve(30);
    for (int i = 0; i < 30; ++i) {
        falling.push_back(-100 - 0.2 * i);
    }
    auto a = analyze(statInput({falling, falling}), AnalysisOptions{});
    ASSERT_TRUE(a.ok()) << a.error().message;
    std::string drift;
    for (const auto& w : a->warnings) {
        drift = w.rfind("drift: a.txt", 0) == 0 ? w : drift;
    }
    EXPECT_NE(drift.find("moved -3.96% from the first to the last third"), std::string::npos) << drift;
    EXPECT_NE(drift.find("rho -1.00"), std::string::npos) << drift;
}

// Four line pairs well inside the margin: no signed-rank interval reaches 90%, so the report says
// 87.5% where it shows the interval, and the verdict says why it is not "equivalent".
TEST(Evidence, AnIntervalBelowItsLevelIsShownAtTheLevelItHas)
{
    auto a = analyze(statInput({{100, 101, 102, 103}, {100.01, 101, 101.99, 103.02}}, true), AnalysisOptions{});
    ASSERT_TRUE(a.ok()) << a.error().message;
    std::ostringstream text;
    writeEvidenceText(*a, {}, text);
    std::string flat;  // the text without its line breaks and indents
    for (char ch : text.str()) {
        if (ch != ' ' && ch != '\n') {
            flat += ch;
        } else if (!flat.empty() && flat.back() != ' ') {
            flat += ' ';
        }
    }
    EXPECT_NE(flat.find("(87.5% CI"), std::string::npos) << text.str();
    EXPECT_NE(flat.find("verdict: no difference proven at 87.5%; n too small to show equivalence at this alpha"),
              std::string::npos)
        << text.str();
    const auto j = evidenceJson(*a, {});
    const auto& c = j["comparisons"][0];
    EXPECT_EQ(c["design"], "paired");
    EXPECT_EQ(c["verdict"], "inconclusive");
    EXPECT_DOUBLE_EQ(c["ci_level"].get<double>(), 0.875);
    EXPECT_DOUBLE_EQ(c["tost_level"].get<double>(), 0.875);
    EXPECT_EQ(c["verdict_reason"].get<std::string>().rfind("n too small to show equivalence at this alpha", 0), 0u);
    EXPECT_NE(c["verdict_text"].get<std::string>().find("n too small"), std::string::npos);
}

}  // namespace
}  // namespace nf::engine

namespace nf::engine {
namespace {

// A run stored as perf stat -r summaries against one stored as values: both through the summary
// path (Welch and Fieller from n, mean and standard deviation), no rank test, and the report says so.
TEST(SummaryAnalysis, SummariesAreComparedFromTheirStatisticsAndRankTestsAreNotRun)
{
    RunLayout layout;
    layout.quantities = {"cycles", "runs"};
    layout.metrics = {{"cycles", "count", "cycles", "runs", 1.0, false, "", ""}};
    const std::vector<Sample> mean{{0, 0, 0, -1, 0, 1, {100.0, 1.0}}};
    RunData summarised{{"default"}, layout, RunTable(2, mean), {{0, 0, "cycles", 30, 100.0, 3.0 / std::sqrt(30.0)}}};
    RunData measured{{"default"}, layout, RunTable(2), {}};
    std::vector<double> values;
    for (int i = 0; i < 30; ++i) {
        const double x = 101.0 + (i % 2 == 0 ? 4.0 : -4.0) * std::sqrt(29.0 / 30.0);  // mean 101, sd 4
        measured.samples.append(Sample{0, i, 0, -1, static_cast<double>(i), 1, {x, 1.0}});
        values.push_back(x);
    }
    auto in = analysisInputAcross({{"before", &summarised, 0}, {"after", &measured, 0}}, {});
    ASSERT_TRUE(in.ok()) << in.error().message;
    ASSERT_EQ(in->summaries.size(), 1U);
    ASSERT_TRUE(in->summaries[0][0].has_value());
    EXPECT_FALSE(in->summaries[0][1].has_value());
    auto a = analyze(*in, {});
    ASSERT_TRUE(a.ok()) << a.error().message;
    ASSERT_EQ(a->comparisons.size(), 1U);
    const auto& c = a->comparisons[0].result;
    EXPECT_EQ(c.primaryTest, "Welch t (from summaries)");
    EXPECT_FALSE(c.pMwu.has_value());
    // scipy.stats.ttest_ind_from_stats(101, 4, 30, 100, 3, 30, equal_var=False).pvalue
    EXPECT_NEAR(*c.pWelch, 0.2782029598313271, 1e-9);
    EXPECT_EQ(a->variants[0].summary.n, 30U);
    EXPECT_NEAR(a->variants[0].summary.stddev, 3.0, 1e-12);
    EXPECT_TRUE(std::any_of(a->warnings.begin(), a->warnings.end(), [](const std::string& w) {
        return w.find("rank tests need the runs") != std::string::npos;
    }));
}

}  // namespace
}  // namespace nf::engine
