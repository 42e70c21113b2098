#include "base/system_facts.h"

#include <gtest/gtest.h>

#include <algorithm>

namespace nf::base {
namespace {

TEST(CpuList, ParsesRangesAndSingles)
{
    bool ok = false;
    EXPECT_EQ(parseCpuList("0-3,8,10-11", &ok), (std::vector<int>{0, 1, 2, 3, 8, 10, 11}));
    EXPECT_TRUE(ok);
    EXPECT_EQ(parseCpuList("5", &ok), (std::vector<int>{5}));
    EXPECT_TRUE(ok);
    EXPECT_EQ(parseCpuList("2-2", &ok), (std::vector<int>{2}));
    EXPECT_TRUE(ok);
}

TEST(CpuList, ToleratesSurroundingWhitespace)
{
    bool ok = false;
    EXPECT_EQ(parseCpuList("0-1\n", &ok), (std::vector<int>{0, 1}));
    EXPECT_TRUE(ok);
    EXPECT_EQ(parseCpuList("  4,6  \n", &ok), (std::vector<int>{4, 6}));
    EXPECT_TRUE(ok);
}

TEST(CpuList, SortsAndDeduplicates)
{
    bool ok = false;
    EXPECT_EQ(parseCpuList("3,1,2-3", &ok), (std::vector<int>{1, 2, 3}));
    EXPECT_TRUE(ok);
}

TEST(CpuList, RejectsMalformed)
{
    for (const char* bad : {"3-1", "a", "", "1,,2", "-1", "1-", "-", ",1", "1,", "1-2-3", "0x1", "1 2", "99999999"}) {
        bool ok = true;
        EXPECT_TRUE(parseCpuList(bad, &ok).empty()) << '"' << bad << '"';
        EXPECT_FALSE(ok) << '"' << bad << '"';
    }
    EXPECT_TRUE(parseCpuList("3-1").empty());  // ok pointer is optional
}

TEST(CpuList, FormatsRanges)
{
    EXPECT_EQ(formatCpuList({}), "");
    EXPECT_EQ(formatCpuList({0, 1, 2, 3, 8}), "0-3,8");
    EXPECT_EQ(formatCpuList({8, 3, 2, 1, 0, 3}), "0-3,8");
    EXPECT_EQ(formatCpuList({10, 11}), "10-11");
    EXPECT_EQ(formatCpuList({1, 3, 5}), "1,3,5");
}

TEST(CpuList, RoundTrips)
{
    for (const char* text : {"0", "0-3,8,10-11", "1,3,5-7", "0-127", "2-3,6-7,62-63"}) {
        bool ok = false;
        const std::vector<int> cpus = parseCpuList(text, &ok);
        ASSERT_TRUE(ok) << text;
        EXPECT_EQ(formatCpuList(cpus), text);
        EXPECT_EQ(parseCpuList(formatCpuList(cpus)), cpus);
    }
}

TEST(SystemFacts, ReadsTheBasics)
{
    const SystemFacts facts = readSystemFacts();
    EXPECT_FALSE(facts.kernelRelease.empty());
    EXPECT_FALSE(facts.kernelVersion.empty());
    EXPECT_FALSE(facts.hostname.empty());
    EXPECT_FALSE(facts.onlineCpus.empty());
    EXPECT_FALSE(facts.allowedCpus.empty());
    EXPECT_FALSE(facts.cpuModel.empty());
    EXPECT_GT(facts.memTotalKiB, 0);
    EXPECT_GE(facts.loadAverage1, 0.0);
    EXPECT_LE(facts.perfEventParanoid, 4);  // -1..4 where the file exists
    EXPECT_EQ(facts.cpus.size(), facts.onlineCpus.size());
    for (std::size_t i = 0; i < facts.cpus.size(); ++i) {
        EXPECT_EQ(facts.cpus[i].id, facts.onlineCpus[i]);
        if (!facts.cpus[i].siblings.empty()) {
            const auto& siblings = facts.cpus[i].siblings;
            EXPECT_NE(std::find(siblings.begin(), siblings.end(), facts.cpus[i].id), siblings.end());
        }
    }
    EXPECT_TRUE(facts.boost.empty() || facts.boost == "on" || facts.boost == "off");
    EXPECT_EQ(facts.hypervisor,
              std::find(facts.cpuFlags.begin(), facts.cpuFlags.end(), "hypervisor") != facts.cpuFlags.end());
}

TEST(SystemFacts, CapabilitiesAreKnownNames)
{
    const SystemFacts facts = readSystemFacts();
    for (const std::string& cap : facts.capabilities) {
        EXPECT_TRUE(cap == "CAP_NET_ADMIN" || cap == "CAP_SYS_ADMIN" || cap == "CAP_BPF" || cap == "CAP_PERFMON" ||
                    cap == "CAP_NET_RAW")
            << cap;
    }
}

}  // namespace
}  // namespace nf::base
