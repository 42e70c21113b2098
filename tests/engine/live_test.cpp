// Live receive tests on the tool's own testbed. These make network namespaces and veth devices,
// so they need CAP_NET_ADMIN and CAP_SYS_ADMIN (root in CI) and skip without them.

#include <arpa/inet.h>
#include <fcntl.h>
#include <gtest/gtest.h>
#include <linux/capability.h>
#include <sys/socket.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <unistd.h>

#include <algorithm>
#include <cmath>
#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <functional>
#include <map>
#include <optional>
#include <set>
#include <string>
#include <thread>

#include "engine/analysis/chunk_cut.h"
#include "engine/model/metric.h"
#include "engine/net/cleanup.h"
#include "engine/net/cpu_pin.h"
#include "engine/net/rtnl.h"
#include "engine/net/testbed.h"
#include "engine/run/owner_lock.h"
#include "engine/run/run_collector.h"
#include "engine/run/scheduler.h"
#include "engine/workloads/registry.h"
#include "tests/engine/held_netns.h"
#include "tests/support/temp_dir.h"

namespace nf::engine {
namespace {

using test::heldNetns;
using test::TempDir;

#define NF_REQUIRE_NET_ADMIN()                                                                       \
    if (!net::hasCapability(CAP_NET_ADMIN) || !net::hasCapability(CAP_SYS_ADMIN)) {                  \
        GTEST_SKIP() << "needs CAP_NET_ADMIN and CAP_SYS_ADMIN to make namespaces and veth devices"; \
    }

// Links in the calling namespace whose name carries this process's pid.
std::vector<std::string> ownLinks()
{
    std::vector<std::string> out;
    auto sock = net::RtnlSocket::open();
    EXPECT_TRUE(sock.ok());
    for (const auto& name : sock->linkNames()) {
        if (name.rfind(net::Testbed::namePrefix(), 0) == 0) {
            out.push_back(name);
        }
    }
    return out;
}

TEST(LiveMetrics, PpsFirstThenCountersPerPacket)
{
    const std::vector<std::string> q = {"packets",    "bytes",     "drops",         "offered_packets",
                                        "elapsed_ns", "tsc_ticks", "rx_task-clock", "rx_instructions",
                                        "rx_cycles",  "cpu_cycles"};
    const auto metrics = liveMetrics(q);
    ASSERT_GE(metrics.size(), 8u);
    EXPECT_EQ(metrics[0].name, "pps");
    EXPECT_TRUE(metrics[0].higherIsBetter);
    std::set<std::string> names;
    for (const auto& m : metrics) {
        names.insert(m.name);
    }
    for (const char* n :
         {"offered_pps", "drops_per_sec", "rx_task_clock_per_packet", "rx_ipc", "cpu_cycles_per_packet"}) {
        EXPECT_EQ(names.count(n), 1u) << n;
    }
    EXPECT_EQ(names.count("cpu_ipc"), 0u);  // no cpu_instructions
}

TEST(Cleanup, ToolNamesAreRecognisedButProveNothing)
{
    EXPECT_TRUE(net::looksLikeToolName("nf1234t0"));
    EXPECT_TRUE(net::looksLikeToolName("nf77rx"));
    EXPECT_FALSE(net::looksLikeToolName("nf1234"));
    EXPECT_FALSE(net::looksLikeToolName("eth0"));
    EXPECT_FALSE(net::looksLikeToolName("nf12x0"));
    EXPECT_FALSE(net::looksLikeToolName("xnf12t0"));
}

TEST(Testbed, ComesUpCarriesUdpAndLeavesNothing)
{
    NF_REQUIRE_NET_ADMIN();
    const auto before = heldNetns();
    {
        auto bed = net::Testbed::create({});
        ASSERT_TRUE(bed.ok()) << bed.error().message;
        const auto& tx = (*bed)->tx();
        const auto& rx = (*bed)->rx();
        EXPECT_GT(tx.ifindex, 0);
        EXPECT_GT(rx.ifindex, 0);
        EXPECT_EQ(heldNetns().size(), before.size() + 2);
        EXPECT_TRUE(ownLinks().empty()) << "devices live only inside the testbed's namespaces";

        // One datagram from the sending namespace arrives in the receiving one.
        net::Fd rxSock;
        {
            auto g = net::NetnsGuard::enter(rx.nsFd);
            ASSERT_TRUE(g.ok());
            rxSock = net::Fd(::socket(AF_INET, SOCK_DGRAM, 0));
            sockaddr_in a{AF_INET, htons(7777), rx.addr, {}};
            ASSERT_EQ(::bind(rxSock.get(), reinterpret_cast<sockaddr*>(&a), sizeof a), 0);
            timeval t{2, 0};
            ::setsockopt(rxSock.get(), SOL_SOCKET, SO_RCVTIMEO, &t, sizeof t);
        }
        {
            auto g = net::NetnsGuard::enter(tx.nsFd);
            ASSERT_TRUE(g.ok());
            net::Fd txSock(::socket(AF_INET, SOCK_DGRAM, 0));
            sockaddr_in a{AF_INET, htons(7777), rx.addr, {}};
            ASSERT_EQ(::sendto(txSock.get(), "ping", 4, 0, reinterpret_cast<sockaddr*>(&a), sizeof a), 4);
        }
        char buf[16] = {};
        EXPECT_EQ(::recv(rxSock.get(), buf, sizeof buf, 0), 4);
        EXPECT_EQ(std::string(buf), "ping");
    }
    EXPECT_EQ(heldNetns(), before);
    EXPECT_TRUE(ownLinks().empty());
    EXPECT_FALSE(std::filesystem::exists("/run/netns/" + net::Testbed::namePrefix() + "tx"));
}

// The attack that once worked: devices and a namespace named like the tool's, of a pid that is not
// running. Nothing proves they are the tool's, so cleanup lists them and leaves them.
TEST(Cleanup, LeavesWhatOnlyLooksLikeTheToolsAlone)
{
    NF_REQUIRE_NET_ADMIN();
    const pid_t child = ::fork();
    if (child == 0) {
        ::_exit(0);
    }
    ASSERT_GT(child, 0);
    ::waitpid(child, nullptr, 0);
    const std::string dead = "nf" + std::to_string(child);
    auto sock = net::RtnlSocket::open();
    ASSERT_TRUE(sock.ok());
    ASSERT_TRUE(sock->addVeth(dead + "t0", {2, 0, 0, 0, 0, 1}, dead + "r0", {2, 0, 0, 0, 0, 2}, -1).ok());

    const auto report = net::removeLeftovers();
    EXPECT_TRUE(report.failures.empty());
    std::set<std::string> notOurs;
    for (const auto& l : report.found) {
        if (l.state == net::LeftoverState::NotOurs) {
            notOurs.insert(l.name);
        }
        EXPECT_NE(l.state == net::LeftoverState::Remove ? l.name : "", dead + "t0");
    }
    EXPECT_EQ(notOurs.count(dead + "t0"), 1u);
    EXPECT_EQ(notOurs.count(dead + "r0"), 1u);
    EXPECT_TRUE(sock->ifindex(dead + "t0").ok()) << "left alone";
    EXPECT_TRUE(sock->deleteLink(dead + "t0").ok());
}

// True when one of `lines` holds `text`.
bool mentions(const std::vector<std::string>& lines, const std::string& text)
{
    return std::any_of(lines.begin(), lines.end(),
                       [&](const std::string& l) { return l.find(text) != std::string::npos; });
}

// A child process that does `take` (true when it succeeded), then waits to be killed with what it
// took: its pid, or -1 if `take` failed.
pid_t childHolding(const std::function<bool()>& take)
{
    int ready[2];
    if (::pipe(ready) != 0) {
        return -1;
    }
    const pid_t child = ::fork();
    if (child == 0) {
        const char c = take() ? 'y' : 'n';
        (void)!::write(ready[1], &c, 1);
        ::pause();
        ::_exit(0);
    }
    char c = 0;
    const bool took = child > 0 && ::read(ready[0], &c, 1) == 1 && c == 'y';
    ::close(ready[0]);
    ::close(ready[1]);
    if (child > 0 && !took) {
        ::kill(child, SIGKILL);
        ::waitpid(child, nullptr, 0);
    }
    return took ? child : -1;
}

void killAndReap(pid_t child)
{
    ::kill(child, SIGKILL);
    ::waitpid(child, nullptr, 0);
}

// A testbed whose process was SIGKILLed: its lock is stale, its namespaces went with the process,
// and cleanup forgets the record without touching anything else.
TEST(Cleanup, ForgetsTheStaleLockOfAKilledTestbed)
{
    NF_REQUIRE_NET_ADMIN();
    std::unique_ptr<net::Testbed> bed;
    const pid_t child = childHolding([&] {
        auto made = net::Testbed::create({net::TestbedPath::Veth, true});
        bed = made ? std::move(*made) : nullptr;
        return bed != nullptr;
    });
    ASSERT_GT(child, 0);
    const std::string name = "nf" + std::to_string(child) + "t0";
    const std::string lock = ownerLockPath("testbed", name);
    auto held = probeOwner(lock);
    EXPECT_EQ(held.state, OwnerState::Held);
    EXPECT_EQ(held.record.owns.at("rx_link"), "nf" + std::to_string(child) + "r0");
    held = {};
    killAndReap(child);
    const auto report = net::removeLeftovers();
    EXPECT_TRUE(report.failures.empty());
    EXPECT_TRUE(mentions(report.notes, "testbed " + name + ": went with its namespaces"));
    EXPECT_FALSE(std::filesystem::exists(lock));
}

// A named namespace with the inode a dead testbed's record gives, as when the kernel has handed a
// gone testbed namespace's inode to one someone else made; with `testbedLinks`, the record's two
// links are in it too, as when someone pinned the testbed's namespace. Removed at the end.
class ReusedInode {
public:
    ReusedInode(const std::string& dir, bool testbedLinks)
        : m_netns("nf" + std::to_string(::getpid()) + "rx7"),
          m_link("nf" + std::to_string(::getpid()) + "t7"),
          m_peer("nf" + std::to_string(::getpid()) + "r7")
    {
        EXPECT_EQ(std::system(("ip netns add " + m_netns).c_str()), 0);
        if (testbedLinks) {
            EXPECT_EQ(std::system(("ip link add " + m_link + " netns " + m_netns + " type veth peer name " + m_peer +
                                   " netns " + m_netns)
                                      .c_str()),
                      0);
        }
        net::Fd ns(::open(netnsPath().c_str(), O_RDONLY | O_CLOEXEC));
        const auto inode = std::to_string(net::netnsInode(ns.get()));
        std::optional<OwnerLock> lock;
        const pid_t child = childHolding([&] {
            auto taken = OwnerLock::acquire(
                "testbed", m_link, "noisefloor live testbed",
                {{"tx_netns", inode}, {"rx_netns", inode}, {"tx_link", m_link}, {"rx_link", m_peer}}, dir);
            lock = taken ? std::move(taken->lock) : std::nullopt;
            return lock.has_value();
        });
        EXPECT_GT(child, 0);
        if (child > 0) {
            killAndReap(child);  // the record stays, its owner gone
        }
    }
    ~ReusedInode() { (void)std::system(("ip netns del " + m_netns + " 2>/dev/null").c_str()); }
    ReusedInode(const ReusedInode&) = delete;
    ReusedInode& operator=(const ReusedInode&) = delete;

    std::string netnsPath() const { return "/run/netns/" + m_netns; }
    const std::string& link() const { return m_link; }
    bool hasLink() const
    {
        net::Fd ns(::open(netnsPath().c_str(), O_RDONLY | O_CLOEXEC));
        auto sock = net::RtnlSocket::open(ns.get());
        return sock && sock->ifindex(m_link).ok();
    }

private:
    std::string m_netns;
    std::string m_link;
    std::string m_peer;
};

// A namespace that only has the inode a dead testbed recorded is someone else's: listed as not
// the tool's, never searched or covered for the testbed, whose record is forgotten.
TEST(Cleanup, ANamespaceWithADeadTestbedsInodeButNotItsLinksIsNotTheTestbeds)
{
    NF_REQUIRE_NET_ADMIN();
    TempDir dir;
    ReusedInode other(dir.path(), false);
    const auto report = net::removeLeftovers(dir.path());
    EXPECT_TRUE(report.failures.empty());
    bool listed = false;
    for (const auto& l : report.found) {
        listed = listed || (l.name == other.netnsPath() && l.state == net::LeftoverState::NotOurs);
    }
    EXPECT_TRUE(listed) << "the namespace was taken for the dead testbed's";
    EXPECT_TRUE(mentions(report.notes, "testbed " + other.link() + ": went with its namespaces"));
    EXPECT_TRUE(report.removed.empty());
    EXPECT_TRUE(std::filesystem::exists(other.netnsPath()));
}

// A dead testbed's namespace that someone pinned (its inode, and its links in it): the links are
// removed and the namespace is not listed as someone else's.
TEST(Cleanup, RemovesTheLinksOfADeadTestbedsPinnedNamespace)
{
    NF_REQUIRE_NET_ADMIN();
    TempDir dir;
    ReusedInode pinned(dir.path(), true);
    ASSERT_TRUE(pinned.hasLink());
    const auto report = net::removeLeftovers(dir.path());
    EXPECT_TRUE(report.failures.empty());
    EXPECT_TRUE(mentions(report.removed, "removed testbed " + pinned.link()));
    for (const auto& l : report.found) {
        EXPECT_NE(l.name, pinned.netnsPath());
    }
    EXPECT_FALSE(pinned.hasLink());
}

ExperimentSpec udpSpec()
{
    ExperimentSpec spec;
    spec.workload = "udp-rx";
    spec.variants = {{"b1", {{"batch", "1"}}}, {"b64", {{"batch", "64"}}}};
    spec.repetitions = 2;
    spec.duration = 0.3;
    spec.interval = 0.1;
    spec.chunk = 0.0;  // repetitions sampled every interval; side by side in chunks: cli_live_chunk_test
    spec.warmup = 0.05;
    spec.counters = {"task-clock", "context-switches"};
    const auto cpus = net::allowedCpus();
    spec.params = {{"tx_cpu", std::to_string(cpus.front())},
                   {"rx_cpu", std::to_string(cpus.back())},
                   {"share_cpu", cpus.size() == 1 ? "1" : "0"}};
    return spec;
}

TEST(LiveRun, TwoVariantsStorePpsPerInterval)
{
    NF_REQUIRE_NET_ADMIN();
    auto prepared = prepareExperiment(udpSpec(), base::readSystemFacts(), workloads::implementations());
    ASSERT_TRUE(prepared.ok()) << prepared.error().message;
    RunCollector collector;
    const auto outcome = runExperiment(*prepared, collector, {});
    ASSERT_EQ(outcome.status, RunStatus::Complete) << outcome.reason;
    const auto& data = collector.data();
    EXPECT_EQ(data.layout.metrics.front().name, "pps");
    const int packets = data.layout.quantityIndex(quantity::kPackets);
    const int sent = data.layout.quantityIndex(quantity::kOfferedPackets);
    const int elapsed = data.layout.quantityIndex(quantity::kElapsedNs);
    ASSERT_GE(packets, 0);
    ASSERT_GE(sent, 0);
    ASSERT_GE(data.layout.quantityIndex("rx_task-clock"), 0);
    ASSERT_EQ(data.samples.size(), 2u * 2u * 3u);  // variants x repetitions x intervals
    // Boundaries keep to their schedule: one woken late (this VM has stalled a thread by 70 ms) makes
    // its interval long and the next short, so each is bounded loosely and their mean tightly.
    double total = 0;
    for (const auto& s : data.samples.toSamples()) {
        EXPECT_GT(s.values[static_cast<std::size_t>(packets)], 0) << "variant " << s.variant;
        EXPECT_GE(s.values[static_cast<std::size_t>(sent)], s.values[static_cast<std::size_t>(packets)] * 0.5);
        EXPECT_GT(s.values[static_cast<std::size_t>(elapsed)], 0.0);
        EXPECT_LT(s.values[static_cast<std::size_t>(elapsed)], 0.25e9);
        total += s.values[static_cast<std::size_t>(elapsed)];
    }
    EXPECT_NEAR(total / static_cast<double>(data.samples.size()), 0.1e9, 0.02e9);
    for (int v = 0; v < 2; ++v) {
        const auto pps = repetitionValues(data, chunkCut(data), v, data.layout.metrics.front());
        ASSERT_EQ(pps.size(), 2u);
        EXPECT_GT(pps[0], 100);
    }
    EXPECT_TRUE(ownLinks().empty());
}

TEST(LiveRun, XdpLiveFeedsTheReceiverWithGroAndWithItsXdpPassProgram)
{
    NF_REQUIRE_NET_ADMIN();
    auto spec = udpSpec();
    spec.params["generator"] = "xdp-live";
    spec.variants = {{"gro", {{"gro", "1"}}}, {"xdp_pass", {{"gro", "0"}}}};
    spec.repetitions = 1;
    spec.duration = 0.2;
    auto prepared = prepareExperiment(spec, base::readSystemFacts(), workloads::implementations());
    ASSERT_TRUE(prepared.ok()) << prepared.error().message;
    RunCollector collector;
    const auto outcome = runExperiment(*prepared, collector, {});
    ASSERT_EQ(outcome.status, RunStatus::Complete) << outcome.reason;
    const auto& data = collector.data();
    const auto packets = static_cast<std::size_t>(data.layout.quantityIndex(quantity::kPackets));
    const auto sent = static_cast<std::size_t>(data.layout.quantityIndex(quantity::kOfferedPackets));
    ASSERT_EQ(data.samples.size(), 2u * 2u);
    for (const auto& s : data.samples.toSamples()) {
        EXPECT_GT(s.values[sent], 0) << "variant " << s.variant;
        EXPECT_GT(s.values[packets], 0) << "variant " << s.variant << ": frames sent by XDP need NAPI on the receiver";
    }
    const auto facts = collector.start().environment["measurement"]["variant_facts"];
    EXPECT_NE(facts["xdp_pass"]["generator"].get<std::string>().find("XDP_PASS"), std::string::npos);
    EXPECT_EQ(facts["gro"]["generator"].get<std::string>().find("XDP_PASS"), std::string::npos);
}

// Every thread of this process and the CPUs it may run on ("0", "1", "0-1"), read while a run runs.
std::vector<std::string> threadCpus()
{
    std::vector<std::string> out;
    for (const auto& task : std::filesystem::directory_iterator("/proc/self/task")) {
        std::ifstream status(task.path() / "status");
        for (std::string line; std::getline(status, line);) {
            if (line.rfind("Cpus_allowed_list:", 0) == 0) {
                out.push_back(line.substr(line.find_first_not_of(" \t", 18)));
            }
        }
    }
    return out;
}

// A collector that looks, at the end of each repetition (on the recording thread, while the
// worker goes on to the next), where every thread of the process may run.
class ThreadPlaces : public RunCollector {
public:
    Result<void> repetitionFinished(const RepetitionResult& rep) override
    {
        const auto cpus = threadCpus();
        m_seen.insert(cpus.begin(), cpus.end());
        m_recorder.insert(base::formatCpuList(net::allowedCpus()));  // this thread's own mask
        for (const auto& c : m_seen) {
            m_most[c] = std::max(m_most[c], static_cast<std::size_t>(std::count(cpus.begin(), cpus.end(), c)));
        }
        return RunCollector::repetitionFinished(rep);
    }
    const std::set<std::string>& recorder() const { return m_recorder; }
    // The most threads seen at once that could run on `cpus` alone.
    std::size_t mostOn(const std::string& cpus) const { return m_most.count(cpus) ? m_most.at(cpus) : 0; }

private:
    std::set<std::string> m_seen;
    std::set<std::string> m_recorder;
    std::map<std::string, std::size_t> m_most;
};

double columnSum(const RunData& data, const char* quantity)
{
    const int q = data.layout.quantityIndex(quantity);
    double sum = 0;
    for (const double v : data.samples.column(static_cast<std::size_t>(std::max(q, 0)))) {
        sum += q >= 0 && std::isfinite(v) ? v : 0;
    }
    return q >= 0 ? sum : -1;
}

// The receiver and the generator on the last CPU, --housekeeping the first: the recorder (this
// thread) and the sampler (the worker) run there alone, and this thread has its CPUs back after
// the run.
TEST(LiveRun, HarnessThreadsRunOnTheHousekeepingCpus)
{
    NF_REQUIRE_NET_ADMIN();
    const auto cpus = net::allowedCpus();
    if (cpus.size() < 2) {
        GTEST_SKIP() << "needs two CPUs";
    }
    auto spec = udpSpec();
    spec.params = {
        {"tx_cpu", std::to_string(cpus.back())}, {"rx_cpu", std::to_string(cpus.back())}, {"share_cpu", "1"}};
    spec.housekeeping = {cpus.front()};
    spec.chunk = 0.02;  // side by side: the guards and chunk reads are the sampler's
    spec.repetitions = 2;
    spec.duration = 0.2;
    auto prepared = prepareExperiment(spec, base::readSystemFacts(), workloads::implementations());
    ASSERT_TRUE(prepared.ok()) << prepared.error().message;
    ThreadPlaces collector;
    const auto outcome = runExperiment(*prepared, collector, {});
    ASSERT_EQ(outcome.status, RunStatus::Complete) << outcome.reason;
    EXPECT_EQ(collector.recorder(), std::set<std::string>{std::to_string(cpus.front())});
    EXPECT_GE(collector.mostOn(std::to_string(cpus.front())), 2u);  // the recorder and the sampler
    EXPECT_EQ(net::allowedCpus(), cpus);
    EXPECT_EQ(collector.start().environment["measurement"]["harness"], "on CPU " + std::to_string(cpus.front()));
    EXPECT_GT(columnSum(collector.data(), quantity::kHarnessWakeups), 0);
    EXPECT_GT(columnSum(collector.data(), quantity::kHarnessCpuNs), 0);
}

// With no CPU left over the harness stays where it may run, and says so.
TEST(LiveRun, HarnessOnTheMeasuredCpusIsSaid)
{
    NF_REQUIRE_NET_ADMIN();
    auto spec = udpSpec();
    const auto cpus = net::allowedCpus();
    spec.params = {{"tx_cpu", std::to_string(cpus.front())},
                   {"rx_cpu", std::to_string(cpus.back())},
                   {"share_cpu", cpus.size() == 1 ? "1" : "0"}};
    spec.repetitions = 1;
    auto facts = base::readSystemFacts();
    facts.allowedCpus = {cpus.front(), cpus.back()};
    auto prepared = prepareExperiment(spec, facts, workloads::implementations());
    ASSERT_TRUE(prepared.ok()) << prepared.error().message;
    RunCollector collector;
    const auto outcome = runExperiment(*prepared, collector, {});
    ASSERT_EQ(outcome.status, RunStatus::Complete) << outcome.reason;
    const auto harness = collector.start().environment["measurement"]["harness"].get<std::string>();
    EXPECT_EQ(harness.rfind("on the measured CPUs", 0), 0u) << harness;
    EXPECT_GT(columnSum(collector.data(), quantity::kHarnessWakeups), 0);  // the sampler woke for each sample
}

TEST(LiveRun, StopTearsDownAtOnceAndAborts)
{
    NF_REQUIRE_NET_ADMIN();
    auto spec = udpSpec();
    spec.repetitions = 100;
    auto prepared = prepareExperiment(spec, base::readSystemFacts(), workloads::implementations());
    ASSERT_TRUE(prepared.ok()) << prepared.error().message;
    const auto before = heldNetns();
    std::stop_source stop;
    std::jthread stopper([&] {
        std::this_thread::sleep_for(std::chrono::milliseconds(2500));
        stop.request_stop();
    });
    RunCollector collector;
    const auto outcome = runExperiment(*prepared, collector, {stop.get_token(), nullptr, ""});
    EXPECT_EQ(outcome.status, RunStatus::Aborted);
    EXPECT_LT(outcome.repetitionsDone, 100);
    EXPECT_EQ(collector.repetitions(), outcome.repetitionsDone);
    EXPECT_EQ(heldNetns(), before);
}

}  // namespace
}  // namespace nf::engine
