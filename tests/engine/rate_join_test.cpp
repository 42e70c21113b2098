// Counters joined with a packet rate measured apart (`import ... --rate`): the figures mails
// write, seed 001's blocks per packet, the elapsed time a rate file must cover, and what cannot
// be joined.

#include <gtest/gtest.h>

#include <cmath>
#include <string>
#include <vector>

#include "engine/import/rate_join.h"
#include "tests/engine/import_test_support.h"

namespace nf::engine::import_test {
namespace {

double metricOf(const ImportTable& t, const std::string& name)
{
    const auto v = values(t, name);
    return v.empty() ? std::nan("") : v.front();
}

TEST(RateJoin, FiguresAsMailsWriteThemAndNothingElse)
{
    const std::pair<const char*, double> good[] = {
        {"22.8Mpps", 22.8e6}, {"22.8 Mpps", 22.8e6}, {"850Kpps", 850e3},     {"850kpps", 850e3},
        {"1.2e6pps", 1.2e6},  {"22800000", 22.8e6},  {"22,800,000", 22.8e6}, {"22.8M", 22.8e6},
        {"2.5 MPPS", 2.5e6},  {"1.1Gpps", 1.1e9},    {"300 pkt/s", 300},     {" 14.88 Mpps ", 14.88e6},
    };
    for (const auto& [text, pps] : good) {
        auto r = packetRateFigure(text);
        ASSERT_TRUE(r.ok()) << text << ": " << r.error().message;
        EXPECT_DOUBLE_EQ(r->pps, pps) << text;
        EXPECT_EQ(r->seconds, 0) << text;  // a figure says nothing of how long it was measured
    }
    for (const char* text : {"10Gbps", "22.8 mpps", "-5pps", "0", "0.0Mpps", "22,80", "1,2,3", "Mpps", "22.8 Mpps/s",
                             "fast", "", "2.28e10", "22.8MB/s", "nan"}) {
        auto r = packetRateFigure(text);
        ASSERT_FALSE(r.ok()) << text << " accepted as " << r->pps;
        EXPECT_EQ(r.error().message.find('\n'), std::string::npos);
        EXPECT_EQ(r.error().message.rfind("--rate '" + std::string(text) + "': ", 0), 0u) << r.error().message;
        EXPECT_NE(r.error().message.find("22.8Mpps, 22.8 Mpps, 850Kpps, 1.2e6pps or 22800000"), std::string::npos);
    }
    EXPECT_NE(refusal(packetRateFigure("22.8 mpps")).find("': m is milli; M is million (22.8Mpps)"), std::string::npos);
    EXPECT_EQ(refusal(packetRateFigure("10Gbps")),
              "--rate '10Gbps': 'bps' is not a unit of packets per second (give packets per second: 22.8Mpps, "
              "22.8 Mpps, 850Kpps, 1.2e6pps or 22800000, or a file of xdpsock, xdp-bench, sar -n DEV or pktgen "
              "output)");
}

// Seed 001: 29,931,407,416 cycles in 10.000636027 s at 22.8 Mpps are 131.27 cycles per packet; the
// post-patch block at 23.2 Mpps 129.01.
TEST(RateJoin, SeedBlocksGiveCountersPerPacketNamedAsLiveRunsNameThem)
{
    auto pre = parse("perf-stat", sample(kPreBlock));
    ASSERT_TRUE(pre.ok()) << pre.error().message;
    auto joined = joinPacketRate(*pre, *packetRateFigure("22.8Mpps"));
    ASSERT_TRUE(joined.ok()) << joined.error().message;
    EXPECT_EQ(metricNames(*joined),
              (std::vector<std::string>{"ipc", "cycles_per_packet", "instructions_per_packet", "branches_per_packet",
                                        "branch_misses_per_packet", "cpu-clock", "context-switches", "cpu-migrations",
                                        "page-faults", "cycles", "instructions", "branches", "branch-misses",
                                        "time_elapsed", "branch_miss_ratio"}));
    const double packets = 22.8e6 * 10.000636027;
    EXPECT_DOUBLE_EQ(values(*joined, "time_elapsed")[0], 10.000636027);
    EXPECT_DOUBLE_EQ(metricOf(*joined, "cycles_per_packet"), 29931407416.0 / packets);
    EXPECT_NEAR(metricOf(*joined, "cycles_per_packet"), 131.27, 0.005);
    EXPECT_NEAR(metricOf(*joined, "instructions_per_packet"), 361.99, 0.005);
    EXPECT_NEAR(metricOf(*joined, "branches_per_packet"), 69.707, 0.0005);
    EXPECT_NEAR(metricOf(*joined, "branch_misses_per_packet"), 0.13559, 0.000005);
    EXPECT_TRUE(hasNote(*joined,
                        "packets = 22.8 Mpps x 10.0006 s elapsed = 228014501: the per-packet counters rest "
                        "on a packet rate measured apart from them (given as --rate 22.8Mpps)"))
        << ::testing::PrintToString(joined->notes);
    EXPECT_EQ(joined->rate["figure"], "22.8Mpps");
    auto run = importedRun(*joined, {"perf-stat", {"pre.txt"}, "pre"});
    ASSERT_TRUE(run.ok()) << run.error().message;
    EXPECT_EQ(run->start.environment["import"]["rate"]["figure"], "22.8Mpps");
    EXPECT_DOUBLE_EQ(run->start.environment["import"]["rate"]["packets"].get<double>(), packets);

    auto post = parse("perf-stat", sample(kPostBlock));
    ASSERT_TRUE(post.ok()) << post.error().message;
    auto after = joinPacketRate(*post, *packetRateFigure("23.2 Mpps"));
    ASSERT_TRUE(after.ok()) << after.error().message;
    EXPECT_NEAR(metricOf(*after, "cycles_per_packet"), 129.01, 0.005);
    EXPECT_NEAR(metricOf(*after, "branch_misses_per_packet"), 0.12117, 0.000005);
}

// xdpsock output of the same 10 s gives the same packets; one of another length is refused.
TEST(RateJoin, RateFilesMustCoverTheBlocksElapsedTime)
{
    auto rate = packetRateOfFile(sample("xdpsock_rxdrop_10s.txt"), {});
    ASSERT_TRUE(rate.ok()) << rate.error().message;
    EXPECT_DOUBLE_EQ(rate->pps, 22.8e6);
    EXPECT_DOUBLE_EQ(rate->seconds, 10.0);
    EXPECT_EQ(rate->origin["tool"], "xdpsock rxdrop");
    EXPECT_EQ(rate->origin["format"], "xdpsock");
    EXPECT_EQ(rate->origin["metric"], "rx_pps");
    auto pre = parse("perf-stat", sample(kPreBlock));
    ASSERT_TRUE(pre.ok()) << pre.error().message;
    auto joined = joinPacketRate(*pre, *rate);
    ASSERT_TRUE(joined.ok()) << joined.error().message;
    EXPECT_NEAR(metricOf(*joined, "cycles_per_packet"), 131.27, 0.005);
    EXPECT_TRUE(hasNote(*joined, "(rx_pps of xdpsock rxdrop output in xdpsock_rxdrop_10s.txt)"))
        << ::testing::PrintToString(joined->notes);

    // Björn's own xdpsock output of a month before: one period of 1.00 s.
    auto other = packetRateOfFile(sample("real/xdpsock_rxdrop_2019-layout_bjorn.txt"), {});
    ASSERT_TRUE(other.ok()) << other.error().message;
    EXPECT_EQ(refusal(joinPacketRate(*pre, *other)),
              "--rate: the rate was measured over 1 s (rx_pps of xdpsock rxdrop output in "
              "real/xdpsock_rxdrop_2019-layout_bjorn.txt), the perf stat block over 10.0006 s: more than 10% apart, "
              "so not the same run; give the rate of the block's run");

    // pktgen's one run (its longest thread: 6.19 s) is its own length, not an interval of it.
    auto pktgen = packetRateOfFile(sample("real/pktgen_sample04_t4_ctrl-c_soscon19.txt"), {});
    ASSERT_TRUE(pktgen.ok()) << pktgen.error().message;
    EXPECT_NE(
        refusal(joinPacketRate(*pre, *pktgen))
            .find("measured over 6.18993 s (pps of pktgen output in real/pktgen_sample04_t4_ctrl-c_soscon19.txt), "
                  "the perf stat block over 10.0006 s: more than 10% apart"),
        std::string::npos);

    // Whole intervals: 11 of 1 s still cover 10.0006 s as closely as they can, 12 do not.
    auto periods = [](int n) {
        std::string text;
        for (int i = 1; i <= n; ++i) {
            text +=
                " sock0@eth0:20 rxdrop xdp-drv\n                   pps            pkts           1.00\n"
                "rx                 22,800,000     " +
                std::to_string(22800000 * i) + "\ntx                 0              0\n\n";
        }
        return ImportSource{"p.txt", text};
    };
    EXPECT_TRUE(joinPacketRate(*pre, *packetRateOfFile(periods(11), {})).ok());
    EXPECT_NE(refusal(joinPacketRate(*pre, *packetRateOfFile(periods(12), {}))).find("measured over 12 s"),
              std::string::npos);
}

TEST(RateJoin, WhatCannotBeJoinedIsRefusedSayingWhy)
{
    EXPECT_EQ(refusal(packetRateOfFile(sample(kPreBlock), {})),
              "real/perf-stat_C20_mail-wrapped_bjorn.txt: perf-stat output, which gives no packet rate: --rate takes "
              "xdpsock, xdp-bench, sar -n DEV or pktgen output");
    const auto rate = *packetRateFigure("1Mpps");
    auto summaries = parse("perf-stat", sample("perf_stat_r5_text.txt"));
    ASSERT_TRUE(summaries.ok());
    EXPECT_NE(refusal(joinPacketRate(*summaries, rate)).find("-r summaries"), std::string::npos);
    auto runs = parse("perf-stat", sample("perf_stat_appended.csv"));
    ASSERT_TRUE(runs.ok());
    EXPECT_NE(refusal(joinPacketRate(*runs, rate)).find("5 perf stat runs"), std::string::npos);
    auto single = parse("perf-stat", sample("perf_stat_single_text.txt"));  // task-clock and page-faults only
    ASSERT_TRUE(single.ok());
    EXPECT_NE(refusal(joinPacketRate(*single, rate)).find("none of cycles, instructions"), std::string::npos);
    const std::string csv =
        "29931407416,,cycles,10000583000,100.00,2.993,GHz\n82538852331,,instructions,10000583000,100.00,2.76,insn "
        "per cycle\n";
    auto noElapsed = parse("perf-stat", {"c.csv", csv});
    ASSERT_TRUE(noElapsed.ok()) << noElapsed.error().message;
    EXPECT_NE(refusal(joinPacketRate(*noElapsed, rate)).find("no 'seconds time elapsed'"), std::string::npos);
}

}  // namespace
}  // namespace nf::engine::import_test
