#include "engine/workloads/page_frag.h"
#include "engine/catalog/workload_catalog.h"

#include <gtest/gtest.h>

#include <map>
#include <string>

#include "engine/workloads/page_frag_model.h"
#include "tests/engine/workload_run.h"

namespace nf::engine::workloads {
namespace {

Result<ParamSet> resolve(const std::map<std::string, std::string>& layer)
{
    static const WorkloadDescriptor info = *findWorkload("page-frag");
    return ParamSet::resolve(info.params, {&layer}, info.name);
}

PageFragModelStats selfCheck(const std::map<std::string, std::string>& layer, std::uint64_t calls)
{
    auto params = resolve(layer);
    EXPECT_TRUE(params.ok()) << params.error().message;
    if (!params.ok()) {
        return {};
    }
    auto stats = pageFragSelfCheck(*params, calls);
    EXPECT_TRUE(stats.ok()) << stats.error().message;
    return stats.ok() ? *stats : PageFragModelStats{};
}

constexpr std::uint64_t kCalls = 100000;

TEST(PageFrag, EveryFragmentIsFreedAndEveryPageComesBack)
{
    for (const char* impl : {"monolithic", "split"}) {
        for (const char* align : {"0", "64", "1024"}) {
            for (const char* len : {"1", "100", "2048", "4096"}) {
                const auto s = selfCheck({{"impl", impl}, {"align", align}, {"alloc_len", len}}, kCalls);
                const std::string where = std::string(impl) + " align=" + align + " alloc_len=" + len;
                EXPECT_TRUE(s.consistent) << where << ": " << s.problem;
                EXPECT_EQ(s.allocs, kCalls) << where;
                EXPECT_EQ(s.failures, 0u) << where;
                EXPECT_EQ(s.pushed + s.freedByPush, s.allocs) << where;
                EXPECT_EQ(s.popped, s.pushed) << where;  // the ring lost and duplicated nothing
                EXPECT_EQ(s.blocksFree, s.blocks) << where;
                EXPECT_GT(s.refills, 0u) << where;
            }
        }
    }
}

TEST(PageFrag, ATinyRingFillsAndThePushSideFreesWhatItCannotPush)
{
    const auto s = selfCheck({{"ring_size", "2"}, {"alloc_len", "64"}}, kCalls);
    EXPECT_TRUE(s.consistent) << s.problem;
    EXPECT_EQ(s.pushed + s.freedByPush, kCalls);
    EXPECT_EQ(s.popped, s.pushed);
}

// The allocators themselves, single-threaded: offsets step by alloc_len (rounded up to the
// alignment) and a new page starts when the current one is full.
TEST(PageFrag, BothShapesHandOutTheSameFragments)
{
    using namespace page_frag;
    PageArena arenaA(4);
    PageArena arenaB(4);
    FragCache mono{&arenaA};
    FragCache split{&arenaB};
    const std::uint32_t alignMask = -64U;
    for (int i = 0; i < 100; ++i) {
        auto* a = static_cast<char*>(allocAlignMonolithic(&mono, 100, alignMask));
        auto* b = static_cast<char*>(allocAlignSplit(&split, 100, alignMask));
        ASSERT_NE(a, nullptr);
        ASSERT_NE(b, nullptr);
        const auto offsetA = reinterpret_cast<std::uintptr_t>(a) % kMaxSize;
        const auto offsetB = reinterpret_cast<std::uintptr_t>(b) % kMaxSize;
        EXPECT_EQ(offsetA, offsetB) << i;
        EXPECT_EQ(offsetA % 64, 0u) << i;
        EXPECT_EQ(offsetA, (i % (kMaxSize / 128)) * 128u) << i;  // 100 rounded up to 128
        fragFree(&arenaA, a);
        fragFree(&arenaB, b);
    }
    cacheDrain(&mono);
    cacheDrain(&split);
    EXPECT_EQ(arenaA.freeBlocks(), 4u);
    EXPECT_EQ(arenaB.freeBlocks(), 4u);
}

TEST(PageFrag, RejectsBadParameters)
{
    EXPECT_FALSE(resolve({{"impl", "fused"}}).ok());
    EXPECT_FALSE(resolve({{"alloc_len", "0"}}).ok());
    EXPECT_FALSE(resolve({{"alloc_len", "4097"}}).ok());
    EXPECT_FALSE(resolve({{"ring_size", "1"}}).ok());
    // What a range cannot say, the catalogue's check does, before anything is made.
    auto params = resolve({{"align", "48"}});
    ASSERT_TRUE(params.ok());
    const auto* w = findWorkload("page-frag");
    auto bad = w->check(*params, CheckContext{{0, 1}, {0, 1}, 1});
    ASSERT_FALSE(bad.ok());
    EXPECT_EQ(bad.error().message, "align=48: must be 0 or a power of two");
}

TEST(PageFrag, RunsBothShapesThroughTheSchedulerAndRecordsTheirCode)
{
    const auto run =
        test::runBriefly("page-frag", {{"mono", {{"impl", "monolithic"}}}, {"split", {{"impl", "split"}}}});
    ASSERT_NE(run, nullptr);
    const auto& code = run->start().environment["measurement"]["code"];
    ASSERT_TRUE(code["mono"].contains("bytes")) << code.dump();
    EXPECT_EQ(code["mono"]["symbols"][1]["name"], "allocAlignMonolithic");
    EXPECT_EQ(code["split"]["symbols"][1]["name"], "cachePrepare");
    EXPECT_EQ(code["split"]["symbols"][2]["name"], "cacheCommitNoref");
    EXPECT_NE(code["split"]["symbols"][0]["name"].get<std::string>().find("pushRound<true, false, false>"),
              std::string::npos);
}

}  // namespace
}  // namespace nf::engine::workloads
