// xdp-rx on the tool's own testbed: AF_XDP receive in skb and native mode, l2fwd, teardown, and the
// refusals. These make namespaces, veth devices and attach XDP programs, so they need root (as in
// CI) and skip otherwise.

#include <bpf/bpf.h>
#include <bpf/libbpf.h>
#include <gtest/gtest.h>
#include <linux/capability.h>
#include <linux/if_link.h>
#include <net/if.h>
#include <unistd.h>

#include <cmath>
#include <filesystem>
#include <fstream>
#include <set>
#include <sstream>

#include "engine/model/metric.h"
#include "engine/net/cpu_pin.h"
#include "engine/net/libbpf_opts.h"
#include "engine/net/rtnl.h"
#include "engine/net/testbed.h"
#include "engine/net/xdp_owner.h"
#include "engine/run/run_collector.h"
#include "engine/run/scheduler.h"
#include "engine/run/workload.h"
#include "engine/workloads/registry.h"
#include "engine/workloads/xdp_rx.h"
#include "tests/support/temp_dir.h"

namespace nf::engine {
namespace {

#define NF_REQUIRE_ROOT_CAPS()                                                                                   \
    if (!net::hasCapability(CAP_NET_ADMIN) || !net::hasCapability(CAP_SYS_ADMIN)) {                              \
        GTEST_SKIP() << "needs CAP_NET_ADMIN and CAP_SYS_ADMIN to make namespaces, veth devices and attach XDP"; \
    }

// Frames counted as sent but not yet received or dropped at a sampling instant, at most: the
// xdp-live generator adds its count after each BPF_PROG_RUN call of up to 16384 frames (which are
// delivered while the call runs), plus what sits in the veth ring (256), the RX ring (2048) and the
// receive backlog (net.core.netdev_max_backlog, 1000 by default). A sample is the difference of two
// instants and a repetition's sum telescopes to the difference of its two ends, so the same bound
// holds for every sample and every repetition.
constexpr double kInFlight = 16384 + 256 + 2048 + 1000;

std::set<std::string> fdTargets(const std::string& prefix)
{
    std::set<std::string> out;
    for (const auto& e : std::filesystem::directory_iterator("/proc/self/fd")) {
        std::error_code ec;
        const auto target = std::filesystem::read_symlink(e.path(), ec).string();
        if (target.rfind(prefix, 0) == 0) {
            out.insert(target);
        }
    }
    return out;
}

// Whether a BPF program with this id is still loaded (the kernel frees it once nothing holds it:
// no descriptor and no attachment). Other runs may load programs of the same name at the same time,
// so the check is by the id the run recorded.
bool programLoaded(std::uint32_t id)
{
    const int fd = bpf_prog_get_fd_by_id(id);
    if (fd < 0) {
        return false;
    }
    ::close(fd);
    return true;
}

// The id in the `xdp_program` fact: "nf_xsk_redirect (id 685, native mode) on ...".
std::uint32_t recordedProgramId(const nlohmann::json& facts)
{
    const auto text = facts["xdp_program"].get<std::string>();
    const auto at = text.find("(id ");
    return at == std::string::npos ? 0 : static_cast<std::uint32_t>(std::stoul(text.substr(at + 4)));
}

ExperimentSpec xdpSpec(const std::vector<VariantSpec>& variants)
{
    ExperimentSpec spec;
    spec.workload = "xdp-rx";
    spec.variants = variants;
    spec.repetitions = 1;
    spec.duration = 0.5;
    spec.interval = 0.1;
    spec.warmup = 0.1;
    spec.counters = {"task-clock"};
    const auto cpus = net::allowedCpus();
    spec.params = {{"tx_cpu", std::to_string(cpus.front())},
                   {"rx_cpu", std::to_string(cpus.back())},
                   {"share_cpu", cpus.size() == 1 ? "1" : "0"}};
    return spec;
}

RunCollector runXdp(const ExperimentSpec& spec, RunOutcome& outcome)
{
    RunCollector collector;
    auto prepared = prepareExperiment(spec, base::readSystemFacts(), workloads::implementations());
    EXPECT_TRUE(prepared.ok()) << prepared.error().message;
    if (prepared) {
        outcome = runExperiment(*prepared, collector, {});
    }
    return collector;
}

double value(const Sample& s, const RunLayout& layout, const char* quantity)
{
    const int i = layout.quantityIndex(quantity);
    EXPECT_GE(i, 0) << quantity;
    return i < 0 ? std::nan("") : s.values[static_cast<std::size_t>(i)];
}

TEST(XdpRxMetrics, SocketAndAppStatisticsAreRates)
{
    std::vector<std::string> q = {quantity::kPackets,       quantity::kOfferedPackets, quantity::kXskRxDropped,
                                  quantity::kXskRxRingFull, quantity::kAppEmptyPolls,  quantity::kElapsedNs};
    std::set<std::string> names;
    for (const auto& m : liveMetrics(q)) {
        names.insert(m.name);
    }
    for (const char* n :
         {"pps", "offered_pps", "xsk_rx_dropped_per_sec", "xsk_rx_ring_full_per_sec", "app_empty_polls_per_sec"}) {
        EXPECT_EQ(names.count(n), 1u) << n;
    }
    EXPECT_EQ(names.count("xsk_tx_invalid_descs_per_sec"), 0u) << "only quantities that are present";
    ASSERT_NE(findWorkload("xdp-rx"), nullptr);
    EXPECT_EQ(findWorkload("xdp-rx")->primaryMetric, "pps");
}

TEST(XdpRx, RxdropInSkbAndNativeModeReceivesAndTheCountsAddUp)
{
    NF_REQUIRE_ROOT_CAPS();
    const auto netnsBefore = fdTargets("net:[");
    const auto socketsBefore = fdTargets("socket:[");
    RunOutcome outcome;
    const auto collector =
        runXdp(xdpSpec({{"skb", {{"xdp_mode", "skb"}}}, {"native", {{"xdp_mode", "native"}}}}), outcome);
    ASSERT_EQ(outcome.status, RunStatus::Complete) << outcome.reason;
    const auto& data = collector.data();
    ASSERT_EQ(data.layout.metrics.front().name, "pps");
    ASSERT_EQ(data.samples.size(), 2u * 5u);
    double sent[2] = {0, 0};
    double accounted[2] = {0, 0};
    for (const auto& s : data.samples.toSamples()) {
        const double packets = value(s, data.layout, quantity::kPackets);
        const double drops = value(s, data.layout, quantity::kDrops);
        const double gen = value(s, data.layout, quantity::kOfferedPackets);
        EXPECT_GT(packets, 0) << "variant " << s.variant;
        EXPECT_NEAR(gen, packets + drops, kInFlight) << "variant " << s.variant << " sample " << s.index;
        sent[s.variant] += gen;
        accounted[s.variant] += packets + drops;
    }
    for (int v = 0; v < 2; ++v) {
        EXPECT_NEAR(sent[v], accounted[v], kInFlight) << "variant " << v << " over the repetition";
    }
    const auto facts = collector.start().environment["measurement"]["variant_facts"];
    for (const char* v : {"skb", "native"}) {
        const auto bind = facts[v]["xsk_bind"].get<std::string>();
        EXPECT_EQ(bind.rfind("copy", 0), 0u) << bind;
        EXPECT_NE(bind.find("EOPNOTSUPP"), std::string::npos) << "veth refuses zero-copy: " << bind;
        EXPECT_NE(facts[v]["xdp_program"].get<std::string>().find(std::string(v) + " mode"), std::string::npos);
    }
    // Teardown: no namespace, no socket, no program left.
    EXPECT_EQ(fdTargets("net:["), netnsBefore);
    EXPECT_EQ(fdTargets("socket:["), socketsBefore);
    for (const char* v : {"skb", "native"}) {
        const auto id = recordedProgramId(facts[v]);
        EXPECT_GT(id, 0u);
        EXPECT_FALSE(programLoaded(id)) << "variant " << v << ": program " << id << " is still loaded";
    }
}

TEST(XdpRx, L2fwdSendsTheFramesBackToTheSender)
{
    NF_REQUIRE_ROOT_CAPS();
    RunOutcome outcome;
    auto spec = xdpSpec({{"l2fwd", {{"app", "l2fwd"}}}});
    spec.params["rate"] = "50000";  // a rate copy-mode TX keeps up with, so every frame should come back
    const auto collector = runXdp(spec, outcome);
    ASSERT_EQ(outcome.status, RunStatus::Complete) << outcome.reason;
    const auto& data = collector.data();
    double received = 0;
    double completed = 0;
    double returned = 0;
    for (const auto& s : data.samples.toSamples()) {
        received += value(s, data.layout, quantity::kPackets);
        completed += value(s, data.layout, quantity::kAppTxPackets);
        returned += value(s, data.layout, quantity::kReturnedPackets);
    }
    EXPECT_GT(received, 0);
    EXPECT_NEAR(completed, received, kInFlight);
    EXPECT_NEAR(returned, completed, kInFlight) << "what l2fwd sent arrives on the sending end";
    EXPECT_GT(returned, 0.5 * received);
    const auto id = recordedProgramId(collector.start().environment["measurement"]["variant_facts"]["l2fwd"]);
    EXPECT_GT(id, 0u);
    EXPECT_FALSE(programLoaded(id));
}

// busy_poll=1 is preferred busy polling as napi.rst describes it: the socket options with the
// given time and budget, and the receiving device's napi_defer_hard_irqs and gro_flush_timeout,
// set for the run (the facts say what was set and what it was before) and put back after it.
TEST(XdpRx, BusyPollSetsTheDevicesNapiSettingsForTheRun)
{
    NF_REQUIRE_ROOT_CAPS();
    RunOutcome outcome;
    auto spec = xdpSpec({{"busy", {}}});
    spec.params["busy_poll"] = "1";
    spec.params["busy_poll_us"] = "50";
    spec.params["busy_poll_budget"] = "16";
    const auto collector = runXdp(spec, outcome);
    ASSERT_EQ(outcome.status, RunStatus::Complete) << outcome.reason;
    double received = 0;
    for (const auto& s : collector.data().samples.toSamples()) {
        received += value(s, collector.data().layout, quantity::kPackets);
    }
    EXPECT_GT(received, 0);
    const auto facts = collector.start().environment["measurement"]["variant_facts"]["busy"];
    EXPECT_EQ(facts.value("xsk_busy_poll", ""), "SO_PREFER_BUSY_POLL, SO_BUSY_POLL 50 us, SO_BUSY_POLL_BUDGET 16");
    const auto defer = facts.value("napi_defer_hard_irqs", "");
    const auto flush = facts.value("gro_flush_timeout", "");
    EXPECT_NE(defer.find(": 2 (was 0; put back at the end)"), std::string::npos) << facts.dump();
    EXPECT_NE(flush.find(": 200000 ns (was 0 ns; put back at the end)"), std::string::npos) << facts.dump();
}

TEST(XdpRx, BadQueueIsOneClearError)
{
    NF_REQUIRE_ROOT_CAPS();
    const auto* w = findWorkload("xdp-rx");
    ASSERT_NE(w, nullptr);
    std::map<std::string, std::string> overrides = {{"queue", "3"}};
    auto params = ParamSet::resolve(w->params, {&overrides}, "xdp-rx");
    ASSERT_TRUE(params.ok());
    auto session = workloads::makeXdpRx(*params);
    ASSERT_FALSE(session.ok());
    EXPECT_NE(session.error().message.find("queue=3: "), std::string::npos) << session.error().message;
    EXPECT_NE(session.error().message.find(" receive queue(s) (0.."), std::string::npos) << session.error().message;
}

Result<std::unique_ptr<LiveSession>> makeSession(std::map<std::string, std::string> overrides)
{
    const auto* w = findWorkload("xdp-rx");
    auto params = ParamSet::resolve(w->params, {&overrides}, "xdp-rx");
    if (!params) {
        return params.error();
    }
    return workloads::makeXdpRx(*params);
}

// A device pair in this (the root) namespace, named like the tool's, down and without addresses:
// nothing is ever sent on it. Deleted on destruction.
class RootVeth {
public:
    RootVeth()
    {
        auto sock = net::RtnlSocket::open();
        m_name = net::Testbed::namePrefix() + "x0";
        m_peer = net::Testbed::namePrefix() + "y0";
        m_ok = sock.ok() && sock->addVeth(m_name, {2, 0, 0, 0, 0, 5}, m_peer, {2, 0, 0, 0, 0, 6}, -1).ok();
        m_ifindex = static_cast<int>(if_nametoindex(m_name.c_str()));
    }
    ~RootVeth()
    {
        if (auto sock = net::RtnlSocket::open()) {
            static_cast<void>(sock->deleteLink(m_name));
        }
    }
    RootVeth(const RootVeth&) = delete;
    RootVeth& operator=(const RootVeth&) = delete;
    bool ok() const { return m_ok && m_ifindex > 0; }
    const std::string& name() const { return m_name; }
    int ifindex() const { return m_ifindex; }

private:
    std::string m_name;
    std::string m_peer;
    int m_ifindex = 0;
    bool m_ok = false;
};

// Loads `return XDP_PASS` named nf_test_pass; the caller closes the descriptor.
int loadPassProgram()
{
    const bpf_insn insns[] = {
        {BPF_ALU64 | BPF_MOV | BPF_K, BPF_REG_0, 0, 0, XDP_PASS},
        {BPF_JMP | BPF_EXIT, 0, 0, 0, 0},
    };
    return bpf_prog_load(BPF_PROG_TYPE_XDP, "nf_test_pass", "GPL", insns, 2, nullptr);
}

std::uint32_t attachedSkbProgram(int ifindex)
{
    bpf_xdp_query_opts q;
    nf::engine::net::initOpts(q);
    return bpf_xdp_query(ifindex, 0, &q) == 0 ? q.skb_prog_id : 0;
}

TEST(XdpRx, RefusesAnInterfaceWithAProgramUnlessForcedAndRecordsItsOwnAttach)
{
    NF_REQUIRE_ROOT_CAPS();
    RootVeth veth;
    ASSERT_TRUE(veth.ok());
    const int pass = loadPassProgram();
    ASSERT_GE(pass, 0) << "cannot load a test XDP program";
    ASSERT_EQ(bpf_xdp_attach(veth.ifindex(), pass, XDP_FLAGS_SKB_MODE, nullptr), 0);
    const std::uint32_t existing = attachedSkbProgram(veth.ifindex());
    ASSERT_NE(existing, 0u);

    auto refused = makeSession({{"iface", veth.name()}, {"xdp_mode", "skb"}});
    ASSERT_FALSE(refused.ok());
    EXPECT_NE(refused.error().message.find(veth.name() + " already has an XDP program"), std::string::npos)
        << refused.error().message;
    EXPECT_NE(refused.error().message.find("force=1"), std::string::npos) << refused.error().message;
    EXPECT_EQ(attachedSkbProgram(veth.ifindex()), existing) << "a refusal changes nothing";

    const auto record = ownerLockPath("xdp", veth.name());
    {
        auto forced = makeSession({{"iface", veth.name()}, {"xdp_mode", "skb"}, {"force", "1"}});
        ASSERT_TRUE(forced.ok()) << forced.error().message;
        const auto ours = attachedSkbProgram(veth.ifindex());
        EXPECT_NE(ours, existing);
        const auto probe = probeOwner(record);  // the owner lock, held by this (live) process
        ASSERT_EQ(probe.state, OwnerState::Held);
        EXPECT_EQ(probe.record.pid, ::getpid());
        EXPECT_EQ(probe.record.owns.at("prog_id"), std::to_string(ours));
        EXPECT_EQ(probe.record.owns.at("ifindex"), std::to_string(veth.ifindex()));
        EXPECT_EQ(probe.record.owns.at("mode"), "skb");
        EXPECT_EQ(probe.record.owns.at("prog_name"), "nf_xsk_redirect");
        EXPECT_EQ(probe.record.owns.at("prog_tag").size(), 16U);
    }
    EXPECT_EQ(attachedSkbProgram(veth.ifindex()), 0u) << "nothing is left attached";
    EXPECT_FALSE(std::filesystem::exists(record));
    ::close(pass);
}

std::string sysfsValue(const std::string& ifname, const char* name)
{
    std::string value;
    std::ifstream("/sys/class/net/" + ifname + "/" + name) >> value;
    return value;
}

// On a real interface (here a veth in the root namespace, down, named like the tool's) busy_poll=1
// records the old values under the owner lock napi/IFNAME before it changes them, and puts them back
// when the session ends.
TEST(XdpRx, BusyPollOnAnInterfaceRecordsAndPutsBackItsNapiSettings)
{
    NF_REQUIRE_ROOT_CAPS();
    RootVeth veth;
    ASSERT_TRUE(veth.ok());
    const auto defer = sysfsValue(veth.name(), "napi_defer_hard_irqs");
    const auto flush = sysfsValue(veth.name(), "gro_flush_timeout");
    ASSERT_FALSE(defer.empty());
    const auto record = ownerLockPath("napi", veth.name());
    {
        auto session = makeSession({{"iface", veth.name()}, {"xdp_mode", "skb"}, {"busy_poll", "1"}});
        ASSERT_TRUE(session.ok()) << session.error().message;
        EXPECT_EQ(sysfsValue(veth.name(), "napi_defer_hard_irqs"), "2");
        EXPECT_EQ(sysfsValue(veth.name(), "gro_flush_timeout"), "200000");
        const auto probe = probeOwner(record);
        ASSERT_EQ(probe.state, OwnerState::Held);
        EXPECT_EQ(probe.record.pid, ::getpid());
        EXPECT_EQ(probe.record.owns.at("ifindex"), std::to_string(veth.ifindex()));
        EXPECT_EQ(probe.record.owns.at("defer_hard_irqs_before"), defer);
        EXPECT_EQ(probe.record.owns.at("gro_flush_timeout_before"), flush);
        EXPECT_EQ(probe.record.owns.at("defer_hard_irqs_set"), "2");
    }
    EXPECT_EQ(sysfsValue(veth.name(), "napi_defer_hard_irqs"), defer);
    EXPECT_EQ(sysfsValue(veth.name(), "gro_flush_timeout"), flush);
    EXPECT_FALSE(std::filesystem::exists(record));
    EXPECT_EQ(attachedSkbProgram(veth.ifindex()), 0u);
}

TEST(XdpRx, InterfaceWithoutNativeXdpIsOneClearErrorAndLeavesNothing)
{
    NF_REQUIRE_ROOT_CAPS();
    // A bridge has no driver-mode XDP; made here, down, nothing on it.
    const std::string name = net::Testbed::namePrefix() + "b0";
    ASSERT_EQ(std::system(("ip link add " + name + " type bridge").c_str()), 0);
    const int ifindex = static_cast<int>(if_nametoindex(name.c_str()));
    auto session = makeSession({{"iface", name}, {"xdp_mode", "native"}});
    ASSERT_FALSE(session.ok());
    EXPECT_NE(session.error().message.find("no native XDP support"), std::string::npos) << session.error().message;
    bpf_xdp_query_opts q;
    nf::engine::net::initOpts(q);
    EXPECT_EQ(bpf_xdp_query(ifindex, 0, &q), 0);
    EXPECT_EQ(q.prog_id, 0u);
    EXPECT_FALSE(std::filesystem::exists(ownerLockPath("xdp", name)));
    if (auto sock = net::RtnlSocket::open()) {
        EXPECT_TRUE(sock->deleteLink(name).ok());
    }
}

}  // namespace
}  // namespace nf::engine
