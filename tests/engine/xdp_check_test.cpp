// XDP facts for `check --iface` and the XDP part of `cleanup`, on the tool's own veth testbed.
// Needs CAP_NET_ADMIN, CAP_SYS_ADMIN and CAP_BPF (root in CI); skips without them.

#include <bpf/bpf.h>
#include <bpf/libbpf.h>
#include <gtest/gtest.h>
#include <linux/bpf.h>
#include <linux/capability.h>
#include <linux/if_link.h>
#include <sys/wait.h>
#include <unistd.h>

#include <algorithm>
#include <filesystem>
#include <fstream>
#include <memory>
#include <set>

#include "engine/net/cleanup.h"
#include "engine/net/cpu_pin.h"
#include "engine/net/iface_check.h"
#include "engine/net/napi_defer.h"
#include "engine/net/testbed.h"
#include "engine/net/xdp_check.h"
#include "engine/net/xdp_owner.h"
#include "tests/engine/held_netns.h"
#include "tests/support/temp_dir.h"

namespace nf::engine::net {
namespace {

using test::heldNetns;

#define NF_REQUIRE_XDP_PRIVILEGES()                                                                        \
    if (!hasCapability(CAP_NET_ADMIN) || !hasCapability(CAP_SYS_ADMIN) || !hasCapability(CAP_BPF)) {       \
        GTEST_SKIP() << "needs CAP_NET_ADMIN, CAP_SYS_ADMIN and CAP_BPF to make a testbed and attach XDP"; \
    }

// `r0 = XDP_PASS; exit`, loaded under a name the test can look for.
int loadPassProgram()
{
    const bpf_insn insns[] = {
        {BPF_ALU64 | BPF_MOV | BPF_K, 0, 0, 0, XDP_PASS},
        {BPF_JMP | BPF_EXIT, 0, 0, 0, 0},
    };
    return bpf_prog_load(BPF_PROG_TYPE_XDP, "nf_test_pass", "GPL", insns, 2, nullptr);
}

std::uint32_t attachedId(int ifindex)
{
    std::uint32_t id = 0;
    EXPECT_EQ(bpf_xdp_query_id(ifindex, XDP_FLAGS_DRV_MODE, &id), 0);
    return id;
}

std::uint32_t programId(int fd)
{
    bpf_prog_info info{};
    std::uint32_t len = sizeof info;
    EXPECT_EQ(bpf_obj_get_info_by_fd(fd, &info, &len), 0);
    return info.id;
}

int deadPid()
{
    const pid_t child = ::fork();
    if (child == 0) {
        ::_exit(0);
    }
    ::waitpid(child, nullptr, 0);
    return child;
}

// A run that recorded `mark` under an owner lock in `dir` and then died: the lock is stale.
void recordAndDie(const std::string& dir, const XdpProgramMark& mark, const std::string& tag = "")
{
    const pid_t child = ::fork();
    if (child == 0) {
        XdpProgramMark m = mark;
        if (!tag.empty()) {
            m.tag = tag;
        }
        auto lock = OwnerLock::acquire("xdp", m.ifname, "test run",
                                       {{"ifindex", std::to_string(m.ifindex)},
                                        {"prog_id", std::to_string(m.progId)},
                                        {"prog_tag", m.tag},
                                        {"prog_name", m.name},
                                        {"mode", m.mode}},
                                       dir);
        ::_exit(lock && lock->lock ? 0 : 1);  // dies holding it: the kernel drops the lock, the file stays
    }
    int status = 0;
    ::waitpid(child, &status, 0);
    ASSERT_EQ(status, 0);
}

std::size_t countState(const std::vector<Leftover>& found, const std::string& kind, LeftoverState state)
{
    return static_cast<std::size_t>(std::count_if(
        found.begin(), found.end(), [&](const Leftover& l) { return l.kind == kind && l.state == state; }));
}

class XdpOnTestbed : public ::testing::Test {
protected:
    void SetUp() override
    {
        NF_REQUIRE_XDP_PRIVILEGES();
        auto bed = Testbed::create({TestbedPath::Veth, true});
        ASSERT_TRUE(bed.ok()) << bed.error().message;
        m_bed = std::move(*bed);
        auto guard = NetnsGuard::enter(m_bed->rx().nsFd);
        ASSERT_TRUE(guard.ok()) << guard.error().message;
        m_inRx = std::make_unique<NetnsGuard>(std::move(*guard));
    }
    void TearDown() override
    {
        if (m_prog >= 0) {
            ::close(m_prog);
        }
        m_inRx.reset();
        m_bed.reset();
    }
    // Attaches a fresh XDP_PASS program in native mode to the receiving end; returns its id.
    std::uint32_t attachPass()
    {
        if (m_prog >= 0) {
            ::close(m_prog);
        }
        m_prog = loadPassProgram();
        EXPECT_GE(m_prog, 0) << "BPF_PROG_LOAD: " << errno;
        EXPECT_EQ(bpf_xdp_attach(m_bed->rx().ifindex, m_prog, XDP_FLAGS_DRV_MODE, nullptr), 0);
        return programId(m_prog);
    }

    std::unique_ptr<Testbed> m_bed;
    std::unique_ptr<NetnsGuard> m_inRx;
    int m_prog = -1;
    test::TempDir m_dir;
};

TEST_F(XdpOnTestbed, VethReportsNativeModeWithoutZeroCopy)
{
    auto features = queryXdpFeatures(m_bed->rx().ifindex);
    if (!features && features.error().message.find("no netdev") != std::string::npos) {
        GTEST_SKIP() << features.error().message;
    }
    ASSERT_TRUE(features.ok()) << features.error().message;
    EXPECT_TRUE(features->basic);
    EXPECT_TRUE(features->redirect);
    EXPECT_FALSE(features->zeroCopy) << "veth has no AF_XDP zero-copy";
}

TEST_F(XdpOnTestbed, CheckNamesTheAttachedProgramAndWarns)
{
    auto before = checkInterface(m_bed->rx().ifname);
    ASSERT_TRUE(before.ok()) << before.error().message;
    const auto find = [](const std::vector<MachineCheck>& checks, const std::string& suffix) {
        for (const auto& c : checks) {
            if (c.name.size() >= suffix.size() &&
                c.name.compare(c.name.size() - suffix.size(), suffix.size(), suffix) == 0) {
                return c;
            }
        }
        ADD_FAILURE() << "no check named *" << suffix;
        return MachineCheck{};
    };
    EXPECT_EQ(find(*before, "XDP program").level, MachineCheck::Level::Ok);
    EXPECT_NE(find(*before, "AF_XDP zero-copy").detail.find("not supported"), std::string::npos);

    const std::uint32_t id = attachPass();
    const auto programs = attachedXdpPrograms(m_bed->rx().ifindex);
    ASSERT_EQ(programs.size(), 1u);
    EXPECT_EQ(programs[0].id, id);
    EXPECT_EQ(programs[0].name, "nf_test_pass");
    EXPECT_EQ(programs[0].mode, "native");
    auto after = checkInterface(m_bed->rx().ifname);
    ASSERT_TRUE(after.ok());
    const auto attached = find(*after, "XDP program");
    EXPECT_EQ(attached.level, MachineCheck::Level::Warn);
    EXPECT_NE(attached.detail.find("nf_test_pass"), std::string::npos) << attached.detail;
}

TEST_F(XdpOnTestbed, CleanupDetachesWhatADeadOwnerRecordedAndNothingOfALiveOne)
{
    const std::uint32_t id = attachPass();
    auto mark = programMark(m_prog, m_bed->rx().ifname, m_bed->rx().ifindex, "native");
    ASSERT_TRUE(mark.ok()) << mark.error().message;
    EXPECT_EQ(mark->progId, id);
    EXPECT_EQ(mark->tag.size(), 16U);
    {
        auto live = claimXdp(*mark, m_dir.path());  // a live owner: this process
        ASSERT_TRUE(live.ok()) << live.error().message;
        const auto found = findLeftovers(m_dir.path());
        EXPECT_EQ(countState(found, "xdp", LeftoverState::InUse), 1U);
        const auto report = removeLeftovers(m_dir.path());
        EXPECT_TRUE(report.removed.empty());
        EXPECT_EQ(attachedId(m_bed->rx().ifindex), id) << "a live owner's program stays";
        auto second = claimXdp(*mark, m_dir.path());
        ASSERT_FALSE(second.ok());
        EXPECT_NE(second.error().message.find("in use by a live run: pid " + std::to_string(::getpid())),
                  std::string::npos)
            << second.error().message;
    }
    recordAndDie(m_dir.path(), *mark);
    const auto found = findLeftovers(m_dir.path());
    ASSERT_EQ(countState(found, "xdp", LeftoverState::Remove), 1U);
    EXPECT_EQ(attachedId(m_bed->rx().ifindex), id) << "--dry-run changes nothing";
    const auto report = removeLeftovers(m_dir.path());
    EXPECT_TRUE(report.failures.empty()) << report.failures.front();
    ASSERT_EQ(report.removed.size(), 1U);
    EXPECT_NE(report.removed[0].find("is gone"), std::string::npos) << report.removed[0];
    EXPECT_EQ(attachedId(m_bed->rx().ifindex), 0u) << "the recorded program was detached";
    EXPECT_FALSE(std::filesystem::exists(ownerLockPath("xdp", m_bed->rx().ifname, m_dir.path())));
}

TEST_F(XdpOnTestbed, CleanupLeavesAProgramAttachedSinceTheRecord)
{
    attachPass();
    auto recorded = programMark(m_prog, m_bed->rx().ifname, m_bed->rx().ifindex, "native");
    ASSERT_TRUE(recorded.ok());
    recordAndDie(m_dir.path(), *recorded);
    const std::uint32_t current = attachPass();  // replaces it: someone else's program now
    ASSERT_NE(recorded->progId, current);

    const auto report = removeLeftovers(m_dir.path());
    EXPECT_TRUE(report.failures.empty());
    ASSERT_EQ(report.notes.size(), 1u);
    EXPECT_NE(report.notes[0].find("not the recorded one: left alone"), std::string::npos) << report.notes[0];
    EXPECT_EQ(attachedId(m_bed->rx().ifindex), current);
}

TEST_F(XdpOnTestbed, CleanupLeavesAProgramWhoseTagIsNotTheRecordedOne)
{
    const std::uint32_t id = attachPass();
    auto mark = programMark(m_prog, m_bed->rx().ifname, m_bed->rx().ifindex, "native");
    ASSERT_TRUE(mark.ok());
    recordAndDie(m_dir.path(), *mark, "00000000000000ff");
    const auto report = removeLeftovers(m_dir.path());
    EXPECT_TRUE(report.removed.empty());
    ASSERT_EQ(report.notes.size(), 1u);
    EXPECT_NE(report.notes[0].find("another tag or name"), std::string::npos) << report.notes[0];
    EXPECT_EQ(attachedId(m_bed->rx().ifindex), id);
}

TEST_F(XdpOnTestbed, CleanupLeavesARecordWithoutALockAlone)
{
    const std::uint32_t id = attachPass();
    std::filesystem::create_directories(m_dir.path() + "/xdp");
    const std::string old =
        m_dir.path() + "/xdp/" + std::to_string(deadPid()) + "-" + std::to_string(m_bed->rx().ifindex);
    std::ofstream(old) << "pid=" << deadPid() << "\nifname=" << m_bed->rx().ifname
                       << "\nifindex=" << m_bed->rx().ifindex << "\nprog_id=" << id << "\nmode=native\n";
    const auto report = removeLeftovers(m_dir.path());
    EXPECT_TRUE(report.removed.empty());
    EXPECT_EQ(countState(report.found, "record", LeftoverState::NotOurs), 1U);
    EXPECT_EQ(attachedId(m_bed->rx().ifindex), id) << "a dead pid in a record proves nothing";
    EXPECT_TRUE(std::filesystem::exists(old));
}

// Busy polling's device settings on the testbed's receiving end: set for the port's life, read
// through the namespace's own sysfs, and put back when it ends.
TEST_F(XdpOnTestbed, NapiDeferSetsTheDeviceAndPutsTheOldValuesBack)
{
    const auto& rx = m_bed->rx();
    const auto before = readNapiSettings(rx.nsFd, rx.ifname);
    ASSERT_TRUE(before.ok()) << before.error().message;
    ASSERT_NE(*before, kBusyPollNapi) << "a fresh veth defers nothing";
    const auto here = readNapiSettings(-1, rx.ifname);  // this thread is in the testbed's namespace
    ASSERT_TRUE(here.ok()) << here.error().message;
    EXPECT_EQ(*here, *before);
    {
        auto napi = NapiDefer::apply(rx.nsFd, rx.ifname, rx.ifindex, kBusyPollNapi, false, m_dir.path());
        ASSERT_TRUE(napi.ok()) << napi.error().message;
        EXPECT_EQ((*napi)->before(), *before);
        EXPECT_EQ((*napi)->set(), kBusyPollNapi);
        const auto during = readNapiSettings(rx.nsFd, rx.ifname);
        ASSERT_TRUE(during.ok());
        EXPECT_EQ(*during, kBusyPollNapi);
        const auto facts = (*napi)->facts();
        ASSERT_EQ(facts.size(), 2U);
        EXPECT_EQ(facts[0].first, "napi_defer_hard_irqs");
        EXPECT_EQ(facts[0].second, "2 (was " + std::to_string(before->deferHardIrqs) + "; put back at the end)");
        EXPECT_EQ(facts[1].second,
                  "200000 ns (was " + std::to_string(before->groFlushTimeoutNs) + " ns; put back at the end)");
        EXPECT_TRUE(probeOwners("napi", m_dir.path()).empty()) << "the tool's own testbed needs no record";
    }
    const auto after = readNapiSettings(rx.nsFd, rx.ifname);
    ASSERT_TRUE(after.ok());
    EXPECT_EQ(*after, *before);
}

// A run that set the busy-poll values on a device under an owner record in `dir` and was killed
// (it exits without running a destructor, as after SIGKILL): the values stay, the lock is stale.
void setBusyPollAndDie(const std::string& dir, const std::string& ifname, int ifindex)
{
    const pid_t child = ::fork();
    if (child == 0) {
        auto napi = NapiDefer::apply(-1, ifname, ifindex, kBusyPollNapi, true, dir);
        ::_exit(napi.ok() ? 0 : 1);
    }
    int status = 0;
    ::waitpid(child, &status, 0);
    ASSERT_EQ(status, 0);
}

TEST_F(XdpOnTestbed, CleanupPutsBackTheBusyPollSettingsOfADeadOwnerAndNotOfALiveOne)
{
    const auto& rx = m_bed->rx();
    const auto before = readNapiSettings(-1, rx.ifname);
    ASSERT_TRUE(before.ok()) << before.error().message;
    {
        auto live = NapiDefer::apply(-1, rx.ifname, rx.ifindex, kBusyPollNapi, true, m_dir.path());
        ASSERT_TRUE(live.ok()) << live.error().message;
        const auto probe = probeOwner(ownerLockPath("napi", rx.ifname, m_dir.path()));
        ASSERT_EQ(probe.state, OwnerState::Held);
        EXPECT_EQ(probe.record.owns.at("defer_hard_irqs_before"), std::to_string(before->deferHardIrqs));
        EXPECT_EQ(probe.record.owns.at("gro_flush_timeout_set"), "200000");
        EXPECT_EQ(countState(findLeftovers(m_dir.path()), "napi", LeftoverState::InUse), 1U);
        EXPECT_TRUE(removeLeftovers(m_dir.path()).removed.empty());
        EXPECT_EQ(*readNapiSettings(-1, rx.ifname), kBusyPollNapi) << "a live owner's values stay";
        auto second = NapiDefer::apply(-1, rx.ifname, rx.ifindex, kBusyPollNapi, true, m_dir.path());
        ASSERT_FALSE(second.ok());
        EXPECT_NE(second.error().message.find("in use by a live run"), std::string::npos) << second.error().message;
    }
    EXPECT_EQ(*readNapiSettings(-1, rx.ifname), *before);

    setBusyPollAndDie(m_dir.path(), rx.ifname, rx.ifindex);
    EXPECT_EQ(*readNapiSettings(-1, rx.ifname), kBusyPollNapi) << "killed: nothing was put back";
    const auto found = findLeftovers(m_dir.path());
    ASSERT_EQ(countState(found, "napi", LeftoverState::Remove), 1U);
    EXPECT_EQ(*readNapiSettings(-1, rx.ifname), kBusyPollNapi) << "--dry-run changes nothing";
    const auto report = removeLeftovers(m_dir.path());
    EXPECT_TRUE(report.failures.empty()) << report.failures.front();
    ASSERT_EQ(report.removed.size(), 1U);
    EXPECT_EQ(report.removed[0].rfind("put back busy-poll settings of " + rx.ifname, 0), 0U) << report.removed[0];
    EXPECT_EQ(*readNapiSettings(-1, rx.ifname), *before);
    EXPECT_FALSE(std::filesystem::exists(ownerLockPath("napi", rx.ifname, m_dir.path())));
}

TEST_F(XdpOnTestbed, CleanupLeavesBusyPollSettingsChangedSinceTheRecord)
{
    const auto& rx = m_bed->rx();
    setBusyPollAndDie(m_dir.path(), rx.ifname, rx.ifindex);
    const NapiSettings someoneElses{5, 1000};
    ASSERT_TRUE(writeNapiSettings(-1, rx.ifname, someoneElses).ok());
    const auto report = removeLeftovers(m_dir.path());
    EXPECT_TRUE(report.failures.empty());
    EXPECT_TRUE(report.removed.empty());
    ASSERT_EQ(report.notes.size(), 1U);
    EXPECT_NE(report.notes[0].find("changed since, left alone"), std::string::npos) << report.notes[0];
    EXPECT_EQ(*readNapiSettings(-1, rx.ifname), someoneElses);
}

TEST(XdpProbe, LibxdpSaysHowItAttachesAndLeavesNothing)
{
    NF_REQUIRE_XDP_PRIVILEGES();
    const auto before = heldNetns();
    auto how = probeLibxdpDispatcher();
    ASSERT_TRUE(how.ok()) << how.error().message;
    EXPECT_TRUE(how->rfind("multi-program dispatcher", 0) == 0 || how->rfind("single program", 0) == 0) << *how;
    EXPECT_EQ(heldNetns(), before) << "the probe's namespaces, and the veth in them, are gone";
}

}  // namespace
}  // namespace nf::engine::net
