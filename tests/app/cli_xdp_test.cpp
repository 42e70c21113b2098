// End-to-end tests of xdp-rx through the `noisefloor` binary. They make namespaces and veth devices
// and attach XDP programs, so they run as root (as in CI) and skip otherwise.

#include <gtest/gtest.h>
#include <signal.h>
#include <sys/wait.h>
#include <unistd.h>

#include <algorithm>
#include <chrono>
#include <cstdio>
#include <nlohmann/json.hpp>

#include "tests/app/cli_process.h"

namespace nf::test {
namespace {

class CliXdp : public CliTest {
protected:
    void SetUp() override
    {
        if (::geteuid() != 0) {
            GTEST_SKIP() << "xdp-rx makes namespaces and veth devices and attaches XDP: needs root";
        }
    }
};

TEST_F(CliXdp, RunsAndListsTheXdpStatistics)
{
    const auto r = run({"run", "xdp-rx", "--reps", "1", "--duration", "0.3", "--interval", "0.1", "--warmup", "0.1",
                        "-p", "share_cpu=1"});
    ASSERT_EQ(r.status, 0) << r.err;
    const auto show = run({"show", "last", "--format", "json"});
    ASSERT_EQ(show.status, 0) << show.err;
    for (const char* metric : {"\"pps\"", "xsk_rx_dropped_per_sec", "xsk_rx_ring_full_per_sec",
                               "xsk_rx_fill_ring_empty_descs_per_sec", "app_empty_polls_per_sec", "offered_pps"}) {
        EXPECT_NE(show.out.find(metric), std::string::npos) << metric;
    }
    EXPECT_EQ(shell("ip -j link show").second.find("nf" + std::to_string(::getpid())), std::string::npos);
}

TEST(CliXdpListing, WorkloadsListsTheStatisticsMetrics)
{
    TempDir dir;
    const auto r = runCli({"workloads", "--format", "json"}, dir);
    ASSERT_EQ(r.status, 0) << r.err;
    const auto all = nlohmann::json::parse(r.out);
    const auto xdp = std::find_if(all.begin(), all.end(), [](const auto& w) { return w["name"] == "xdp-rx"; });
    ASSERT_NE(xdp, all.end());
    EXPECT_EQ((*xdp)["primary_metric"], "pps");
    std::vector<std::string> metrics;
    for (const auto& m : (*xdp)["metrics"]) {
        metrics.push_back(m["name"]);
    }
    for (const char* m :
         {"pps", "offered_pps", "xsk_rx_ring_full_per_sec", "app_empty_polls_per_sec", "returned_packets_per_sec"}) {
        EXPECT_NE(std::find(metrics.begin(), metrics.end(), m), metrics.end()) << m;
    }
}

TEST_F(CliXdp, SigintTearsDownKeepsRepetitionsAndMarksAborted)
{
    CliProcess p({"--db", m_dir.file("runs.db"), "run", "xdp-rx", "--reps", "1000", "--duration", "0.2", "--interval",
                  "0.1", "--warmup", "0.05", "--variant", "skb:xdp_mode=skb", "--variant", "native:xdp_mode=native",
                  "-p", "share_cpu=1"},
                 m_dir);
    ASSERT_TRUE(waitForRepetitions(1));
    const auto t0 = std::chrono::steady_clock::now();
    kill(p.pid(), SIGINT);
    const auto r = p.wait();
    const double seconds = std::chrono::duration<double>(std::chrono::steady_clock::now() - t0).count();
    EXPECT_LT(seconds, 5.0);
    EXPECT_EQ(r.status, 130) << r.err;
    EXPECT_NE(r.err.find("aborted: SIGINT"), std::string::npos) << r.err;
    const auto j = nlohmann::json::parse(run({"list", "--format", "json"}).out);
    ASSERT_EQ(j.size(), 1u);
    EXPECT_EQ(j[0]["status"], "aborted");
    EXPECT_GE(j[0]["repetitions"].get<int>(), 1);
    EXPECT_EQ(shell("ip -o link show").second.find("nf" + std::to_string(p.pid())), std::string::npos);
}

// What the spec check can tell without measuring is bad input (2); what only the device can tell is
// a runtime failure (1).
TEST_F(CliXdp, BadInputIsOneLineAndExit1Or2)
{
    // A bridge has no driver-mode XDP: made here, down, nothing on it.
    const std::string bridge = "nf" + std::to_string(::getpid()) + "b1";
    ASSERT_EQ(shell("ip link add " + bridge + " type bridge").first, 0);
    struct Case {
        std::vector<std::string> args;
        std::string message;
        int status;
    };
    const std::vector<Case> cases = {
        {{"run", "xdp-rx", "-p", "queue=3", "-p", "share_cpu=1"}, "queue=3: ", 1},
        {{"run", "xdp-rx", "-p", "iface=" + bridge, "-p", "xdp_mode=native"}, "no native XDP support", 1},
        {{"run", "xdp-rx", "-p", "iface=nf-no-such"}, "iface=nf-no-such: no such network interface", 1},
        {{"run", "xdp-rx", "-p", "ring_size=1000", "-p", "share_cpu=1"}, "ring_size=1000: must be a power of two", 2},
        {{"run", "xdp-rx", "-p", "iface=" + bridge, "-p", "app=l2fwd"}, "app=l2fwd with iface=" + bridge, 2},
    };
    for (const auto& c : cases) {
        const auto r = run(c.args);
        EXPECT_EQ(r.status, c.status) << c.args[2] << ": " << r.err;
        EXPECT_NE(r.err.find(c.message), std::string::npos) << r.err;
        // The line saying what is attached where comes first for a real interface; then one error line.
        const auto lines = std::count(r.err.begin(), r.err.end(), '\n');
        EXPECT_LE(lines, c.args[3].rfind("iface=" + bridge, 0) == 0 ? 2 : 1) << r.err;
    }
    EXPECT_EQ(run({"list", "--format", "json"}).out, "[]\n");
    EXPECT_EQ(shell("ip link del " + bridge).first, 0);
}

TEST_F(CliXdp, WithoutCapNetAdminStopsBeforeStarting)
{
    if (shell("command -v setpriv").first != 0) {
        GTEST_SKIP() << "setpriv (util-linux) is needed to drop the capability";
    }
    const auto [status, out] = shell("setpriv --inh-caps=-net_admin --bounding-set=-net_admin " +
                                     std::string(NF_CLI_PATH) + " --db " + m_dir.file("runs.db") + " run xdp-rx");
    EXPECT_EQ(status, 1) << out;
    EXPECT_NE(out.find("xdp-rx needs CAP_NET_ADMIN"), std::string::npos) << out;
    EXPECT_EQ(std::count(out.begin(), out.end(), '\n'), 1) << out;
}

}  // namespace
}  // namespace nf::test
