// Live A/B at chunk resolution through the `noisefloor` binary: udp-rx variants that differ only
// in receiver settings run side by side on one veth testbed and alternate in chunks, analysed as
// chunk pairs; variants that cannot run side by side keep repetitions and say why. They make
// namespaces and veth devices, so they run as root and skip otherwise.

#include <gtest/gtest.h>
#include <unistd.h>

#include <nlohmann/json.hpp>
#include <string>

#include "tests/app/cli_process.h"

namespace nf::test {
namespace {

class CliLiveChunk : public CliTest {
protected:
    void SetUp() override
    {
        if (::geteuid() != 0) {
            GTEST_SKIP() << "live workloads make namespaces and veth devices: needs root";
        }
        m_links = shell("ip -br link").second;
        m_netns = shell("ip netns list").second;
        m_xdp = shell("bpftool -j net show 2>/dev/null").second;
    }

    // Nothing the run made outlives it: devices, namespaces and XDP programs are as before.
    void expectNothingLeft()
    {
        EXPECT_EQ(shell("ip -br link").second, m_links);
        EXPECT_EQ(shell("ip netns list").second, m_netns);
        EXPECT_EQ(shell("bpftool -j net show 2>/dev/null").second, m_xdp);
    }

    nlohmann::json comparison(const std::string& metric = "pps")
    {
        const auto r = run({"compare", "last", "--format", "json"});
        EXPECT_EQ(r.status, 0) << r.err;
        for (const auto& c : nlohmann::json::parse(r.out)["comparisons"]) {
            if (c["metric"] == metric) {
                return c;
            }
        }
        ADD_FAILURE() << "no comparison of " << metric << " in " << r.out;
        return {};
    }

    std::string m_links;
    std::string m_netns;
    std::string m_xdp;
};

// Two identical variants side by side, fed by xdp-live (the destination port flipped in its BPF
// map): both receive, every chunk carries its pair index and guard count, the analysis is paired,
// and the reports say the design and what the guards dropped.
TEST_F(CliLiveChunk, IdenticalVariantsSideBySideAreAnalysedAsChunkPairs)
{
    const auto r = run({"run", "udp-rx", "--reps", "2", "--duration", "1", "--warmup", "0.2", "--variant", "a:batch=64",
                        "--variant", "b:batch=64", "-p", "generator=xdp-live", "--share-cpus"});
    ASSERT_EQ(r.status, 0) << r.err;
    EXPECT_NE(r.out.find("design: paired chunks, variants side by side; guard intervals"), std::string::npos) << r.out;
    const auto exported = nlohmann::json::parse(run({"export", "last", "--format", "json"}).out);
    EXPECT_NEAR(exported["spec"]["chunk"].get<double>(), 0.05, 1e-12);
    double packets[2] = {0, 0};
    double guard = 0;
    int pairs = 0;
    for (const auto& s : exported["samples"]) {
        const int v = s["variant"] == "a" ? 0 : 1;
        EXPECT_GE(s["pair"].get<int>(), 0);
        pairs = std::max(pairs, s["pair"].get<int>() + 1);
        packets[v] += s["quantities"]["packets"].get<double>();
        guard += s["quantities"]["guard_packets"].get<double>();
        EXPECT_GE(s["quantities"]["guard_ns"].get<double>(), 1e6) << "a guard of at least 1 ms";
    }
    EXPECT_EQ(pairs, 20);  // 1 s of 50 ms chunks per variant
    EXPECT_GT(packets[0], 1000);
    EXPECT_GT(packets[1], 1000) << "the generator's traffic reached b's port";
    EXPECT_LT(packets[1], 2 * packets[0]);
    EXPECT_GT(packets[1], packets[0] / 2);
    EXPECT_GT(guard, 0);
    const auto c = comparison();
    EXPECT_EQ(c["design"], "paired");
    EXPECT_EQ(c["unit_of_analysis"], "chunk pair");
    EXPECT_NE(c["verdict"], "different") << c.dump();
    expectNothingLeft();
}

// recvmsg (batch 1) against recvmmsg with 64 buffers: a known difference, found in chunks.
TEST_F(CliLiveChunk, AKnownDifferenceIsFoundInChunks)
{
    const auto r = run({"run", "udp-rx", "--reps", "2", "--duration", "1", "--warmup", "0.2", "--variant",
                        "one:batch=1", "--variant", "many:batch=64", "-p", "generator=xdp-live", "--share-cpus"});
    ASSERT_EQ(r.status, 0) << r.err;
    const auto c = comparison();
    EXPECT_EQ(c["design"], "paired");
    EXPECT_EQ(c["verdict"], "different") << c.dump();
    EXPECT_GT(c["delta_pct"].get<double>(), 0) << "recvmmsg receives more per second than recvmsg";
    expectNothingLeft();
}

// Variants that share a device setting keep interleaved repetitions, and the report says why; so
// does --chunk 0 for variants that could alternate.
TEST_F(CliLiveChunk, VariantsThatCannotRunSideBySideKeepRepetitionsAndSayWhy)
{
    auto r = run({"run", "udp-rx", "--reps", "2", "--duration", "0.2", "--interval", "0.1", "--warmup", "0.05",
                  "--variant", "on:gro=1", "--variant", "off:gro=0", "--share-cpus"});
    ASSERT_EQ(r.status, 0) << r.err;
    EXPECT_NE(r.out.find("design: interleaved repetitions (gro is a setting of the one receiving device"),
              std::string::npos)
        << r.out;
    EXPECT_EQ(comparison()["design"], "independent");
    r = run({"run", "udp-rx", "--reps", "2", "--duration", "0.2", "--interval", "0.1", "--warmup", "0.05", "--chunk",
             "0", "--variant", "a:batch=8", "--variant", "b:batch=64", "--share-cpus"});
    ASSERT_EQ(r.status, 0) << r.err;
    EXPECT_NE(r.out.find("design: interleaved repetitions (chunks turned off (chunk 0))"), std::string::npos) << r.out;
    expectNothingLeft();
}

TEST_F(CliLiveChunk, BadChunkValuesAreUsageErrorsOnOneLine)
{
    const std::vector<std::pair<std::vector<std::string>, std::string>> cases = {
        {{"--chunk", "-1"}, "--chunk -1: must be >= 0"},
        {{"--chunk", "nan"}, "--chunk"},
        {{"--chunk", "0.001"}, "--chunk 0.001: a live chunk must be at least 0.005 s"},
        {{"--chunk", "0.05", "-p", "busy_poll=50"},
         "--chunk 0.05: cannot alternate these variants in chunks: busy_poll"},
        {{"--chunk", "0.05", "--variant", "c:rx_cpu=0", "-p", "tx_cpu=1"}, "rx_cpu differs"},
    };
    for (const auto& [extra, message] : cases) {
        std::vector<std::string> args = {"run", "udp-rx", "--variant", "a:batch=8", "--variant", "b:batch=64"};
        args.insert(args.end(), extra.begin(), extra.end());
        const auto r = run(args);
        EXPECT_EQ(r.status, 2) << message << ": " << r.err;
        EXPECT_NE(r.err.find(message), std::string::npos) << r.err;
        EXPECT_EQ(std::count(r.err.begin(), r.err.end(), '\n'), 1) << r.err;
    }
    const auto xdp = run({"run", "xdp-rx", "--chunk", "0.05", "--variant", "a:batch=8", "--variant", "b:batch=64"});
    EXPECT_EQ(xdp.status, 2) << xdp.err;
    EXPECT_NE(xdp.err.find("xdp-rx runs one variant at a time"), std::string::npos) << xdp.err;
    expectNothingLeft();
}

}  // namespace
}  // namespace nf::test
