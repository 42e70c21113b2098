#include <gtest/gtest.h>

#include <algorithm>
#include <random>

#include "engine/analysis/analysis.h"
#include "engine/analysis/validity.h"

namespace nf::engine {
namespace {

// A live run on the 2-CPU veth testbed, in 25 ms chunks: the generator and the receive softirqs
// on CPU 0, the application on CPU 1. Each variant takes `taken` of what is offered and drops the
// rest at its socket; CPU 1 idles `idle` of the time; CPU 0's backlog drops `backlog` of it.
struct LiveShape {
    double taken = 0.9;
    double idle = 0.0;
    double backlog = 0.0;
    double ran = -1;  // the share of the time the receiver thread ran; -1: all CPU 1 did not idle
};

RunData liveRun(LiveShape a, LiveShape b)
{
    std::mt19937_64 rng(5);
    std::normal_distribution<double> noise(0, 0.01);
    RunData d;
    d.variantNames = {"a", "b"};
    d.layout.quantities = {"packets",        "offered_packets",   "drops",          "elapsed_ns",
                           "cpu0_time_task", "cpu0_time_softirq", "cpu0_time_idle", "cpu0_softnet_dropped",
                           "cpu1_time_task", "cpu1_time_softirq", "cpu1_time_idle", "cpu1_softnet_dropped",
                           "rx_task-clock"};
    d.layout.metrics = liveMetrics(d.layout.quantities);
    d.samples = RunTable(d.layout.quantities.size());
    const double chunk = 25e6;
    double t = 0;
    for (int p = 0; p < 200; ++p) {
        for (int v = 0; v < 2; ++v) {
            const auto& s = v == 0 ? a : b;
            const double offered = 25000 * (1 + noise(rng));
            const double got = offered * s.taken;
            const double backlog = offered * s.backlog;
            d.samples.append(
                Sample{v,
                       0,
                       p,
                       p,
                       t,
                       0.025,
                       {got, offered, offered - got - backlog, chunk, 0.6 * chunk, 0.4 * chunk, 0, backlog,
                        (1 - s.idle) * chunk, 0, s.idle * chunk, 0, (s.ran >= 0 ? s.ran : 1 - s.idle) * chunk}});
            t += 0.025;
        }
    }
    return d;
}

std::vector<nlohmann::json> params(int rate)
{
    const nlohmann::json p = {{"tx_cpu", 0}, {"rx_cpu", 1}, {"rate", rate}};
    return {p, p};
}

std::vector<std::string> codes(const RunValidity& v)
{
    std::vector<std::string> out;
    for (const auto& r : v.reasons) {
        out.emplace_back(toString(r.code));
    }
    return out;
}

const MetricComparison& comparisonOf(const Analysis& a, const std::string& metric)
{
    const auto it = std::find_if(a.comparisons.begin(), a.comparisons.end(),
                                 [&](const MetricComparison& c) { return c.primary && c.metric == metric; });
    EXPECT_NE(it, a.comparisons.end()) << metric;
    return *it;
}

Analysis analyzed(const RunData& d, const std::vector<nlohmann::json>& p, bool allowInvalid = false)
{
    auto in = analysisInput(d, true, {});
    EXPECT_TRUE(in.ok());
    in->validity = assessValidity(d, p);
    AnalysisOptions o;
    o.allowInvalid = allowInvalid;
    auto a = analyze(*in, o);
    EXPECT_TRUE(a.ok());
    return std::move(*a);
}

TEST(Validity, ASaturatedReceiverThatDropsAtItsSocketIsValid)
{
    const auto d = liveRun({.taken = 0.90}, {.taken = 0.88});
    const auto v = assessValidity(d, params(0));
    EXPECT_TRUE(v.cpuTimeKnown);
    EXPECT_TRUE(v.reasons.empty()) << v.reasons.front().text;
    const auto a = analyzed(d, params(0));
    const auto& pps = comparisonOf(a, "pps");
    EXPECT_TRUE(pps.result.validity.assessed);
    EXPECT_TRUE(pps.result.validity.valid);
    EXPECT_NE(pps.result.verdict, Verdict::Invalid);
}

TEST(Validity, AReceiverThatTookEverythingWithIdleTimeIsGeneratorBound)
{
    // A slow rate= generator: both take 99.9% and the application's CPU idles 40%.
    const auto d = liveRun({.taken = 0.9992, .idle = 0.4}, {.taken = 0.9992, .idle = 0.35});
    const auto v = assessValidity(d, params(100000));
    EXPECT_EQ(codes(v), (std::vector<std::string>{"generator_bound", "generator_bound"}));
    EXPECT_NE(v.reasons[0].text.find("CPU 1 (the application"), std::string::npos) << v.reasons[0].text;
    EXPECT_NE(v.reasons[0].text.find("its receiver thread ran 60% of the time"), std::string::npos)
        << v.reasons[0].text;
    const auto a = analyzed(d, params(100000));
    const auto& pps = comparisonOf(a, "pps");
    EXPECT_EQ(pps.result.verdict, Verdict::Invalid);
    EXPECT_EQ(pps.result.validity.reasons.front().code, "generator_bound");
    EXPECT_TRUE(std::isfinite(pps.result.mdePct));  // still sized
    // A metric that is not a rate keeps its verdict, with the reason stated.
    const auto& drops = comparisonOf(a, "drops_per_sec");
    EXPECT_NE(drops.result.verdict, Verdict::Invalid);
    EXPECT_TRUE(drops.result.validity.valid);
    ASSERT_FALSE(drops.result.validity.stated.empty());
    EXPECT_EQ(drops.result.validity.stated.front().code, "generator_bound");
}

TEST(Validity, AReceiverThatWaitsIsGeneratorBoundOnABusyMachine)
{
    // Other work (a build) keeps CPU 1 from idling, but the receiver thread ran 10% of the time.
    const auto d = liveRun({.taken = 0.9992, .ran = 0.1}, {.taken = 0.9992, .ran = 0.1});
    const auto v = assessValidity(d, params(20000));
    ASSERT_EQ(codes(v), (std::vector<std::string>{"generator_bound", "generator_bound"}));
    EXPECT_NE(v.reasons[0].text.find("its receiver thread ran 10% of the time"), std::string::npos)
        << v.reasons[0].text;
    // The same machine with a receiver that never waits: valid.
    const auto busy = liveRun({.taken = 0.95, .ran = 1}, {.taken = 0.95, .ran = 1});
    EXPECT_TRUE(assessValidity(busy, params(0)).reasons.empty());
}

TEST(Validity, AMaxRateTestWhoseReceiveCpuIdlesIsNotSaturated)
{
    // Max rate (rate=0): the application idles although the socket drops nothing.
    const auto d = liveRun({.taken = 0.9992, .idle = 0.2}, {.taken = 0.9992, .idle = 0.2});
    const auto v = assessValidity(d, params(0));
    const auto c = codes(v);
    EXPECT_EQ(std::count(c.begin(), c.end(), "rx_not_saturated"), 2);
    EXPECT_NE(v.reasons.back().text.find("max-rate"), std::string::npos);
}

TEST(Validity, SocketLossesWhileTheReceiverIdlesAreNotTheReceivers)
{
    // A tiny rcvbuf: b's socket overflows while its CPU idles.
    const auto d = liveRun({.taken = 0.90}, {.taken = 0.80, .idle = 0.3});
    const auto v = assessValidity(d, params(50000));
    const auto it = std::find_if(v.reasons.begin(), v.reasons.end(),
                                 [](const ValidityReason& r) { return r.code == ValidityCode::LossElsewhere; });
    ASSERT_NE(it, v.reasons.end());
    EXPECT_EQ(it->variants, std::vector<std::string>{"b"});
    EXPECT_NE(it->text.find("the socket"), std::string::npos) << it->text;
    const auto a = analyzed(d, params(50000));
    EXPECT_EQ(comparisonOf(a, "drops_per_sec").result.verdict, Verdict::Invalid);  // every metric
}

TEST(Validity, BacklogDropsAreLossesElsewhere)
{
    const auto d = liveRun({.taken = 0.90, .backlog = 0.02}, {.taken = 0.90});
    const auto v = assessValidity(d, params(0));
    ASSERT_EQ(codes(v), std::vector<std::string>{"loss_elsewhere"});
    EXPECT_EQ(v.reasons[0].variants, std::vector<std::string>{"a"});
    EXPECT_NE(v.reasons[0].text.find("2.00% at the backlog"), std::string::npos) << v.reasons[0].text;
}

TEST(Validity, ASettingThatChangedDuringTheRunIsStateDrift)
{
    auto d = liveRun({.taken = 0.90}, {.taken = 0.88});
    const nlohmann::json off = {
        {"nf1b gro", "off"}, {"nf1b coalescing", "unavailable"}, {"cpu1 governor", "unavailable"}};
    nlohmann::json on = off;
    on["nf1b gro"] = "on";
    on["nf1b coalescing"] = "rx-usecs 8";  // unavailable before: not a change
    d.testedStates.emplace_back(0, nlohmann::json{{"before", off}, {"after", off}});
    d.testedStates.emplace_back(1, nlohmann::json{{"before", off}, {"after", on}});
    const auto v = assessValidity(d, params(0));
    ASSERT_EQ(codes(v), std::vector<std::string>{"state_drift"});
    EXPECT_NE(v.reasons[0].text.find("nf1b gro went from off to on (read after repetition 2)"), std::string::npos)
        << v.reasons[0].text;
    EXPECT_EQ(v.reasons[0].text.find("coalescing"), std::string::npos) << v.reasons[0].text;
    const auto a = analyzed(d, params(0));
    EXPECT_EQ(comparisonOf(a, "pps").result.verdict, Verdict::Invalid);
}

TEST(Validity, AllowInvalidKeepsTheVerdictAndWarns)
{
    const auto d = liveRun({.taken = 0.9992, .idle = 0.4}, {.taken = 0.9992, .idle = 0.4});
    const auto a = analyzed(d, params(100000), true);
    const auto& pps = comparisonOf(a, "pps");
    EXPECT_NE(pps.result.verdict, Verdict::Invalid);
    EXPECT_FALSE(pps.result.validity.valid);
    ASSERT_FALSE(pps.result.warnings.empty());
    EXPECT_EQ(pps.result.warnings.back().rfind("invalid test, verdict kept (--allow-invalid): generator-bound", 0), 0U)
        << pps.result.warnings.back();
}

// xdp-rx in native mode: veth counts a redirect into a full AF_XDP ring in its own drops too, so
// `drops` holds the ring's losses; they are the stage's, not the device's.
RunData xskRun(double emptyPasses)
{
    RunData d;
    d.variantNames = {"a", "b"};
    d.layout.quantities = {"packets",          "offered_packets",   "drops",         "elapsed_ns",
                           "xsk_rx_ring_full", "xsk_rx_dropped",    "app_polls",     "app_empty_polls",
                           "cpu1_time_task",   "cpu1_time_softirq", "cpu1_time_idle"};
    d.layout.metrics = liveMetrics(d.layout.quantities);
    d.samples = RunTable(d.layout.quantities.size());
    for (int p = 0; p < 100; ++p) {
        for (int v = 0; v < 2; ++v) {
            // 10% lost at the ring, counted by the ring and by veth.
            d.samples.append(Sample{v,
                                    0,
                                    p,
                                    p,
                                    0.025 * (2 * p + v),
                                    0.025,
                                    {45000, 50000, 5000, 25e6, 5000, 0, 100000, emptyPasses * 100000, 25e6, 0, 0}});
        }
    }
    return d;
}

TEST(Validity, AnAfXdpRingThatOverflowsUnderASpinningReceiverIsValid)
{
    // 1% of the application's passes found the ring empty: it was the bottleneck.
    EXPECT_TRUE(assessValidity(xskRun(0.01), params(0)).reasons.empty());
    // The same ring losses while half the passes found the ring empty: the ring was too small.
    const auto v = assessValidity(xskRun(0.5), params(0));
    const auto c = codes(v);
    ASSERT_NE(std::find(c.begin(), c.end(), "loss_elsewhere"), c.end());
    const auto it = std::find_if(v.reasons.begin(), v.reasons.end(),
                                 [](const ValidityReason& r) { return r.code == ValidityCode::LossElsewhere; });
    EXPECT_NE(it->text.find("the AF_XDP socket's rings"), std::string::npos) << it->text;
    EXPECT_EQ(it->text.find("at the device"), std::string::npos) << it->text;
}

TEST(Validity, ARunWithoutReceivedPacketsIsNotJudged)
{
    RunData d;
    d.variantNames = {"a"};
    d.layout.quantities = {"ops", "tsc_ticks"};
    const auto v = assessValidity(d, {});
    EXPECT_FALSE(v.cpuTimeKnown);
    EXPECT_TRUE(v.reasons.empty());
}

}  // namespace
}  // namespace nf::engine
