// End-to-end tests of the live receive workloads through the `noisefloor` binary. They make
// network namespaces and veth devices, so they run as root (as in CI) and skip otherwise.

#include <bpf/bpf.h>
#include <bpf/libbpf.h>
#include <gtest/gtest.h>
#include <linux/bpf.h>
#include <linux/if_link.h>
#include <net/if.h>
#include <signal.h>
#include <sys/wait.h>
#include <unistd.h>

#include <algorithm>
#include <chrono>
#include <cstdio>
#include <filesystem>
#include <fstream>
#include <nlohmann/json.hpp>
#include <sstream>

#include "tests/app/cli_process.h"

namespace nf::test {
namespace {

class CliLive : public CliTest {
protected:
    void SetUp() override
    {
        if (::geteuid() != 0) {
            GTEST_SKIP() << "live workloads make namespaces and veth devices: needs root";
        }
    }
};

bool anyLinkOf(pid_t pid)
{
    return shell("ip -o link show").second.find("nf" + std::to_string(pid)) != std::string::npos;
}

TEST_F(CliLive, SigintTearsDownWithin5sKeepsRepetitionsAndMarksAborted)
{
    CliProcess p({"--db", m_dir.file("runs.db"), "run", "udp-rx", "--reps", "1000", "--duration", "0.2", "--interval",
                  "0.1", "--warmup", "0.05", "--variant", "a:batch=1", "--variant", "b:batch=64", "-p", "share_cpu=1"},
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
    EXPECT_FALSE(anyLinkOf(p.pid()));
    // The kept repetitions hold pps per interval.
    const auto exported = nlohmann::json::parse(run({"export", "1", "--format", "json"}).out);
    EXPECT_NE(exported.dump().find("\"pps\""), std::string::npos);
}

// The attack that once worked: a veth and namespaces named like the tool's, of pids that are not
// running, and an owner record of the earlier format naming a dead pid. Nothing proves any of it is
// the tool's: cleanup lists each as not ours and leaves it.
TEST_F(CliLive, CleanupLeavesWhatOnlyLooksLikeTheToolsAlone)
{
    const pid_t child = ::fork();
    if (child == 0) {
        ::_exit(0);
    }
    ::waitpid(child, nullptr, 0);
    const std::string name = "nf" + std::to_string(child);
    ASSERT_EQ(shell("ip link add " + name + "t0 type veth peer name " + name + "r0").first, 0);
    ASSERT_EQ(shell("ip netns add " + name + "tx").first, 0);
    ASSERT_EQ(shell("ip netns add nf4999999rx0").first, 0);
    const int ifindex = static_cast<int>(if_nametoindex((name + "t0").c_str()));
    const bpf_insn pass[] = {{BPF_ALU64 | BPF_MOV | BPF_K, 0, 0, 0, XDP_PASS}, {BPF_JMP | BPF_EXIT, 0, 0, 0, 0}};
    const int prog = bpf_prog_load(BPF_PROG_TYPE_XDP, "nf_test_other", "GPL", pass, 2, nullptr);
    ASSERT_GE(prog, 0);
    ASSERT_EQ(bpf_xdp_attach(ifindex, prog, XDP_FLAGS_SKB_MODE, nullptr), 0);
    bpf_prog_info info{};
    std::uint32_t len = sizeof info;
    ASSERT_EQ(bpf_obj_get_info_by_fd(prog, &info, &len), 0);
    ::close(prog);
    std::filesystem::create_directories("/run/noisefloor/xdp");
    const std::string record = "/run/noisefloor/xdp/" + std::to_string(child) + "-" + std::to_string(ifindex);
    std::ofstream(record) << "pid=" << child << "\nifname=" << name << "t0\nifindex=" << ifindex
                          << "\nprog_id=" << info.id << "\nmode=skb\n";

    for (const char* mode : {"--dry-run", ""}) {
        const auto r = run(std::string(mode).empty() ? std::vector<std::string>{"cleanup"}
                                                     : std::vector<std::string>{"cleanup", mode});
        EXPECT_EQ(r.status, 0) << r.err;
        EXPECT_NE(r.out.find("not ours, left alone: link " + name + "t0 (no owner lock names it)"), std::string::npos)
            << r.out;
        EXPECT_NE(r.out.find("not ours, left alone: namespace /run/netns/" + name + "tx"), std::string::npos) << r.out;
        EXPECT_NE(r.out.find("not ours, left alone: namespace /run/netns/nf4999999rx0"), std::string::npos) << r.out;
        EXPECT_NE(r.out.find("not ours, left alone: record " + record), std::string::npos) << r.out;
        EXPECT_EQ(r.out.find("removed"), std::string::npos) << r.out;
        EXPECT_EQ(r.out.find("detached"), std::string::npos) << r.out;
    }
    std::uint32_t attached = 0;
    EXPECT_EQ(bpf_xdp_query_id(ifindex, XDP_FLAGS_SKB_MODE, &attached), 0);
    EXPECT_EQ(attached, info.id) << "a program nothing proves ours stays";
    EXPECT_TRUE(anyLinkOf(child));
    EXPECT_NE(shell("ip netns list").second.find(name + "tx"), std::string::npos);
    EXPECT_EQ(shell("ip link del " + name + "t0").first, 0);
    EXPECT_EQ(shell("ip netns del " + name + "tx").first, 0);
    EXPECT_EQ(shell("ip netns del nf4999999rx0").first, 0);
    std::filesystem::remove(record);
}

// A real run that attached to an interface outside its namespaces, SIGKILLed: its owner lock is
// stale and names its program by id, tag and name, which cleanup detaches (and only that).
TEST_F(CliLive, CleanupDetachesTheXdpProgramOfASigkilledRun)
{
    const std::string dev = "nfxd" + std::to_string(::getpid() % 100000);
    ASSERT_EQ(shell("ip link add " + dev + "a type veth peer name " + dev + "b").first, 0);
    // The pair is the test's own: gone on every way out, also when an assertion ends it early.
    struct OwnPair {
        std::string name;
        ~OwnPair() { shell("ip link del " + name + " 2>/dev/null"); }
    } own{dev + "a"};
    ASSERT_EQ(shell("ip link set " + dev + "a up && ip link set " + dev + "b up").first, 0);
    const int ifindex = static_cast<int>(if_nametoindex((dev + "a").c_str()));
    const std::string lock = "/run/noisefloor/xdp/" + dev + "a.lock";
    CliProcess p({"--db", m_dir.file("runs.db"), "run", "xdp-rx", "-p", "iface=" + dev + "a", "-p", "xdp_mode=skb",
                  "--reps", "1000", "--duration", "0.2", "--warmup", "0"},
                 m_dir);
    std::uint32_t attached = 0;
    for (int i = 0; i < 200 && (attached == 0 || !std::filesystem::exists(lock)); ++i) {
        usleep(50000);
        bpf_xdp_query_id(ifindex, XDP_FLAGS_SKB_MODE, &attached);
    }
    ASSERT_NE(attached, 0u) << "xdp-rx did not attach";
    const auto live = run({"cleanup", "--dry-run"});
    EXPECT_NE(live.out.find("in use, left alone: xdp program " + std::to_string(attached) + " (skb) on " + dev + "a"),
              std::string::npos)
        << live.out;
    kill(p.pid(), SIGKILL);
    EXPECT_EQ(p.wait().status, 137);
    bpf_xdp_query_id(ifindex, XDP_FLAGS_SKB_MODE, &attached);
    ASSERT_NE(attached, 0u) << "SIGKILL leaves the program attached: that is what cleanup is for";
    const std::string named = "program " + std::to_string(attached) + " (skb) on " + dev + "a";
    const auto listed = run({"cleanup", "--dry-run"});
    EXPECT_NE(listed.out.find("would detach xdp " + named + " (pid " + std::to_string(p.pid())), std::string::npos)
        << listed.out;
    const auto r = run({"cleanup"});
    EXPECT_EQ(r.status, 0) << r.err;
    EXPECT_NE(r.out.find("detached xdp " + named + " (pid " + std::to_string(p.pid())), std::string::npos) << r.out;
    EXPECT_NE(r.out.find("is gone)"), std::string::npos) << r.out;
    EXPECT_EQ(bpf_xdp_query_id(ifindex, XDP_FLAGS_SKB_MODE, &attached), 0);
    EXPECT_EQ(attached, 0u);
    EXPECT_FALSE(std::filesystem::exists(lock));
    EXPECT_EQ(shell("ip link del " + dev + "a").first, 0) << "the interface itself stays";
}

// What the spec check can tell without measuring is bad input (2); what only the machine can tell
// (an unreachable rate, a missing interface) is a runtime failure (1).
// Where the cycles go: each counted CPU's counters and softnet counts, and the receiving veth's own
// statistics (ethtool -S), stored per sample, shown by `show`, and beside the verdicts in `compare`.
TEST_F(CliLive, PerCpuSoftnetAndDeviceStatisticsAreStoredShownAndComparedBeside)
{
    const auto r = run({"run", "udp-rx", "--reps", "2", "--duration", "0.3", "--interval", "0.1", "--warmup", "0.1",
                        "--variant", "a:batch=8", "--variant", "b:batch=64"});
    ASSERT_EQ(r.status, 0) << r.err;
    const auto show = run({"show", "last", "--format", "json"});
    ASSERT_EQ(show.status, 0) << show.err;
    const auto j = nlohmann::json::parse(show.out);
    std::vector<std::string> metrics;
    for (const auto& m : j["summary"]) {
        metrics.push_back(m["metric"]);
    }
    const auto has = [&](const std::string& prefix, const std::string& suffix) {
        return std::any_of(metrics.begin(), metrics.end(), [&](const std::string& m) {
            return m.rfind(prefix, 0) == 0 && m.size() >= suffix.size() &&
                   m.compare(m.size() - suffix.size(), suffix.size(), suffix) == 0;
        });
    };
    for (const char* cpu : {"cpu0_", "cpu1_"}) {
        EXPECT_TRUE(has(cpu, "softnet_processed_per_sec")) << cpu << " in " << show.out.substr(0, 2000);
        EXPECT_TRUE(has(cpu, "softnet_dropped_per_sec")) << cpu;
        EXPECT_TRUE(has(cpu, "task_clock_per_packet")) << cpu;
    }
    EXPECT_TRUE(has("dev_", "_per_sec")) << "the veth's ethtool statistics";
    // The softnet work the two CPUs did covers the packets received (veth's NAPI counts them).
    const auto exported = nlohmann::json::parse(run({"export", "last", "--format", "json"}).out);
    double packets = 0;
    double processed = 0;
    for (const auto& sample : exported["samples"]) {
        packets += sample["quantities"]["packets"].get<double>();
        processed += sample["quantities"]["cpu0_softnet_processed"].get<double>() +
                     sample["quantities"]["cpu1_softnet_processed"].get<double>();
    }
    EXPECT_GT(packets, 0);
    EXPECT_GE(processed, packets);

    const auto compared = run({"compare", "last", "--verbose"});
    ASSERT_EQ(compared.status, 0) << compared.err;
    EXPECT_NE(compared.out.find("Where the packets and cycles went"), std::string::npos) << compared.out;
    EXPECT_NE(compared.out.find("cpu0_softnet_processed_per_sec"), std::string::npos) << compared.out;
    const auto json = nlohmann::json::parse(run({"compare", "last", "--format", "json"}).out);
    ASSERT_TRUE(json.contains("breakdown"));
    EXPECT_TRUE(json["breakdown"][0]["mean"].contains("a"));
    // Named, a breakdown metric is compared like any other.
    const auto named = run({"compare", "last", "--metric", "cpu1_softnet_processed_per_sec", "--verbose"});
    ASSERT_EQ(named.status, 0) << named.err;
    const auto breakdown = named.out.find("Where the packets");
    const auto verdict = named.out.find("cpu1_softnet_processed_per_sec");
    ASSERT_NE(verdict, std::string::npos) << named.out;
    EXPECT_LT(verdict, breakdown) << "compared above the breakdown, and not listed in it again";
    EXPECT_EQ(named.out.find("cpu1_softnet_processed_per_sec", breakdown), std::string::npos) << named.out;
}

// A watcher sees a live run as it goes: every 0.1 s the samples measured since the last look, in
// both designs; a repetition's stored samples begin with the partial ones, in order.
TEST_F(CliLive, TheEventStreamCarriesPartialSamplesBetweenRepetitions)
{
    for (const std::string chunk : {"0.05", "0"}) {
        SCOPED_TRACE("--chunk " + chunk);
        const auto r = run({"run", "udp-rx", "--variant", "a", "--variant", "b:batch=32", "--reps", "1", "--duration",
                            "1", "--warmup", "0.1", "--chunk", chunk, "--share-cpus", "--events", "jsonl"});
        ASSERT_EQ(r.status, 0) << r.err;
        std::istringstream in(r.out);
        std::string line;
        std::vector<nlohmann::json> partial;
        int partialEvents = 0;
        nlohmann::json stored;
        while (std::getline(in, line)) {
            const auto e = nlohmann::json::parse(line);
            if (e["event"] == "partial_samples") {
                ++partialEvents;
                EXPECT_EQ(e["repetition"], 0);
                for (const auto& s : e["samples"]) {
                    partial.push_back(s);
                }
            } else if (e["event"] == "samples") {
                stored = e["samples"];
            }
        }
        // Two variants x 1 s: at least 4 a second of measuring.
        EXPECT_GE(partialEvents, 8);
        ASSERT_TRUE(stored.is_array());
        ASSERT_LE(partial.size(), stored.size());
        ASSERT_GT(partial.size(), stored.size() / 2);
        for (std::size_t i = 0; i < partial.size(); ++i) {
            EXPECT_EQ(partial[i], stored[i]) << "sample " << i;
        }
    }
    EXPECT_FALSE(anyLinkOf(::getpid()));
}

TEST_F(CliLive, BadLiveInputIsOneLineAndExit1Or2)
{
    struct Case {
        std::vector<std::string> args;
        std::string message;
        int status;
    };
    const std::vector<Case> cases = {
        {{"run", "udp-rx", "-p", "tx_cpu=4000"}, "tx_cpu=4000: CPU 4000 is offline or not allowed", 2},
        {{"run", "udp-rx", "-p", "tx_cpu=0", "-p", "rx_cpu=0"}, "are the same CPU", 2},
        {{"run", "udp-rx", "-p", "rate=900000000", "-p", "share_cpu=1"}, "rate=900000000: unreachable", 1},
        {{"run", "iface-rx", "-p", "iface=nf-no-such"}, "iface=nf-no-such: no such network interface", 1},
        {{"check", "--iface", "nf-no-such"}, "--iface nf-no-such: no such network interface", 1},
    };
    for (const auto& c : cases) {
        const auto r = run(c.args);
        EXPECT_EQ(r.status, c.status) << c.args[1] << ": " << r.err;
        EXPECT_NE(r.err.find(c.message), std::string::npos) << r.err;
        EXPECT_EQ(std::count(r.err.begin(), r.err.end(), '\n'), 1) << r.err;
    }
    EXPECT_EQ(run({"list", "--format", "json"}).out, "[]\n");
    EXPECT_FALSE(anyLinkOf(::getpid()));
}

TEST_F(CliLive, WithoutCapNetAdminStopsBeforeStarting)
{
    if (shell("command -v setpriv").first != 0) {
        GTEST_SKIP() << "setpriv (util-linux) is needed to drop the capability";
    }
    const auto [status, out] = shell("setpriv --inh-caps=-net_admin --bounding-set=-net_admin " +
                                     std::string(NF_CLI_PATH) + " --db " + m_dir.file("runs.db") + " run udp-rx");
    EXPECT_EQ(status, 1) << out;
    EXPECT_NE(out.find("udp-rx needs CAP_NET_ADMIN"), std::string::npos) << out;
}

}  // namespace
}  // namespace nf::test
