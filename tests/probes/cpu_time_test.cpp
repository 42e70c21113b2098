#include <gtest/gtest.h>

#include "probes/cpu_time.h"

namespace nf::probes {
namespace {

// /proc/stat of this project's test machine (Linux 6.18 in a Firecracker VM, two CPUs), its
// cpu lines as read, then the other lines cut short.
constexpr const char* kProcStat =
    "cpu  2434 31236 4143 19513 267 0 67 28 0 0\n"
    "cpu0 747 15662 1770 10631 10 0 4 15 0 0\n"
    "cpu1 1687 15573 2372 8881 256 0 62 13 0 0\n"
    "intr 68841 0 0 0 0 0 0 0\n"
    "ctxt 1234567\n"
    "btime 1764970000\n"
    "softirq 100 0 10 0 239 340 0 0 0 0 0\n";

TEST(CpuTime, ReadsEachCpuLineInNanoseconds)
{
    const auto cpus = parseCpuTimes(kProcStat, 100);
    ASSERT_EQ(cpus.size(), 2U);
    EXPECT_EQ(cpus[0].cpu, 0);
    EXPECT_EQ(cpus[0].taskNs, (747U + 15662U + 1770U) * 10'000'000ULL);
    EXPECT_EQ(cpus[0].softirqNs, 4U * 10'000'000ULL);
    EXPECT_EQ(cpus[0].idleNs, (10631U + 10U) * 10'000'000ULL);
    EXPECT_EQ(cpus[1].cpu, 1);
    EXPECT_EQ(cpus[1].idleNs, (8881U + 256U) * 10'000'000ULL);
}

TEST(CpuTime, SkipsWhatDoesNotParse)
{
    EXPECT_TRUE(parseCpuTimes("cpu0 1 2\ncpux 1 2 3 4 5 6 7\n", 100).empty());
    EXPECT_TRUE(parseCpuTimes(kProcStat, 0).empty());
}

TEST(CpuTime, ThisMachineHasEveryOnlineCpu)
{
    const auto cpus = readCpuTimes();
    ASSERT_FALSE(cpus.empty());
    for (const auto& c : cpus) {
        EXPECT_GT(c.taskNs + c.softirqNs + c.idleNs, 0U) << "cpu" << c.cpu;
    }
}

}  // namespace
}  // namespace nf::probes
