#include "engine/workloads/page_pool.h"
#include "engine/catalog/workload_catalog.h"

#include <gtest/gtest.h>

#include <map>
#include <string>

#include "tests/engine/workload_run.h"

namespace nf::engine::workloads {
namespace {

Result<ParamSet> resolve(const std::map<std::string, std::string>& layer)
{
    static const WorkloadDescriptor info = *findWorkload("page-pool");
    return ParamSet::resolve(info.params, {&layer}, info.name);
}

PagePoolModelStats selfCheck(const std::map<std::string, std::string>& layer, std::uint64_t calls)
{
    auto params = resolve(layer);
    EXPECT_TRUE(params.ok()) << params.error().message;
    if (!params.ok()) {
        return {};
    }
    auto stats = pagePoolSelfCheck(*params, calls);
    EXPECT_TRUE(stats.ok()) << stats.error().message;
    return stats.ok() ? *stats : PagePoolModelStats{};
}

constexpr std::uint64_t kCalls = 200000;

TEST(PagePool, RegisteredWithTypedParameters)
{
    const WorkloadDescriptor* info = findWorkload("page-pool");
    ASSERT_NE(info, nullptr);
    EXPECT_EQ(info->params.size(), 8u);
    EXPECT_EQ(info->kind, WorkloadKind::InProcess);
    EXPECT_GT(info->defaultChunk, 0);
}

TEST(PagePool, EveryPageComesBackExactlyOnce)
{
    for (const char* check : {"late", "early"}) {
        for (const char* poolSize : {"1", "3", "128"}) {
            const auto s = selfCheck({{"check", check}, {"pool_size", poolSize}, {"ring_size", "16"}}, kCalls);
            EXPECT_TRUE(s.consistent) << check << " pool_size=" << poolSize << ": " << s.problem;
            EXPECT_EQ(s.pages, 16u);
            EXPECT_EQ(s.allocs, kCalls);
            EXPECT_EQ(s.recycles, kCalls);
            EXPECT_GE(s.cacheRefills, 1u);
        }
    }
    // A cache larger than the page count, and the smallest ring.
    const auto s = selfCheck({{"pool_size", "65536"}, {"ring_size", "2"}}, 1000);
    EXPECT_TRUE(s.consistent) << s.problem;
}

TEST(PagePool, SteadyStateStaysInTheCache)
{
    // Every page starts in the ring. The first alloc refills the cache once; after that each call
    // takes the page the previous call put back, so the ring is never touched again.
    const auto s = selfCheck({{"pool_size", "1"}, {"ring_size", "4"}}, 10);
    EXPECT_TRUE(s.consistent) << s.problem;
    EXPECT_EQ(s.ringRecycles, 0u);
    EXPECT_EQ(s.cacheRefills, 1u);
}

TEST(PagePool, AllZeroSizeEarlyNeverCallsTheSyncLateAlwaysDoes)
{
    const auto early = selfCheck({{"check", "early"}, {"zero_size_pct", "100"}}, kCalls);
    EXPECT_TRUE(early.consistent) << early.problem;
    EXPECT_EQ(early.zeroSizeRecycles, kCalls);
    EXPECT_EQ(early.syncCalls, 0u);

    const auto late = selfCheck({{"check", "late"}, {"zero_size_pct", "100"}}, kCalls);
    EXPECT_TRUE(late.consistent) << late.problem;
    EXPECT_EQ(late.syncCalls, kCalls);
    EXPECT_EQ(late.zeroSizeSyncCalls, kCalls);
}

TEST(PagePool, NoZeroSizeBothCallTheSyncEveryTime)
{
    for (const char* check : {"late", "early"}) {
        const auto s = selfCheck({{"check", check}, {"zero_size_pct", "0"}}, kCalls);
        EXPECT_TRUE(s.consistent) << s.problem;
        EXPECT_EQ(s.zeroSizeRecycles, 0u) << check;
        EXPECT_EQ(s.syncCalls, kCalls) << check;
        EXPECT_EQ(s.zeroSizeSyncCalls, 0u) << check;
    }
}

TEST(PagePool, ZeroSizeShareIsExactPerCycle)
{
    // 50% of a 65536-call cycle: exactly 32768 zero-size calls per cycle.
    const auto early = selfCheck({{"check", "early"}, {"zero_size_pct", "50"}}, 2 * 65536);
    EXPECT_EQ(early.zeroSizeRecycles, 65536u);
    EXPECT_EQ(early.syncCalls, 65536u);
    const auto late = selfCheck({{"check", "late"}, {"zero_size_pct", "50"}}, 2 * 65536);
    EXPECT_EQ(late.syncCalls, 2u * 65536u);
    EXPECT_EQ(late.zeroSizeSyncCalls, 65536u);
    // 0.01% of 65536 = 6.55 -> 7 per cycle.
    const auto rare = selfCheck({{"check", "early"}, {"zero_size_pct", "0.01"}}, 65536);
    EXPECT_EQ(rare.zeroSizeRecycles, 7u);
    EXPECT_EQ(rare.syncCalls, 65536u - 7u);
}

TEST(PagePool, CoherentDeviceNeverSyncs)
{
    for (const char* check : {"late", "early"}) {
        const auto s = selfCheck({{"check", check}, {"dev_needs_sync", "0"}, {"zero_size_pct", "30"}}, kCalls);
        EXPECT_TRUE(s.consistent) << s.problem;
        EXPECT_EQ(s.syncCalls, 0u) << check;
    }
}

TEST(PagePool, RejectsBadParameters)
{
    auto error = [](std::map<std::string, std::string> layer) {
        auto p = resolve(layer);
        EXPECT_FALSE(p.ok());
        return p.ok() ? std::string() : p.error().message;
    };
    EXPECT_EQ(error({{"zero_size_pct", "101"}}), "zero_size_pct=101: out of range 0..100");
    EXPECT_EQ(error({{"check", "soon"}}), "check=soon: not one of late|early");
    EXPECT_EQ(error({{"ring_size", "1"}}), "ring_size=1: out of range 2..1048576");
    EXPECT_EQ(error({{"sync_size", "0"}}), "sync_size=0: out of range 1..65536");
    EXPECT_EQ(error({{"dev_needs_sync", "2"}}), "dev_needs_sync=2: out of range 0..1");
    EXPECT_TRUE(resolve({{"zero_size_pct", "0.001"}, {"check", "early"}}).ok());
}

TEST(PagePool, RunsLateAndEarlyThroughTheScheduler)
{
    const auto run = test::runBriefly("page-pool", {{"late", {{"check", "late"}}}, {"early", {{"check", "early"}}}},
                                      {{"zero_size_pct", "100"}});
    ASSERT_NE(run, nullptr);
    EXPECT_EQ(run->data().layout.metrics.front().name, "tsc_per_op");
}

}  // namespace
}  // namespace nf::engine::workloads
