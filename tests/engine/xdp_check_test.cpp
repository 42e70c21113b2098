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
#include "engine/net/testbed.h"
#include "engine/net/xdp_check.h"
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

void writeRecord(const std::filesystem::path& path, int pid, const Endpoint& dev, std::uint32_t progId)
{
    std::ofstream out(path);
    out << "pid=" << pid << "\nifname=" << dev.ifname << "\nifindex=" << dev.ifindex << "\nprog_id=" << progId
        << "\nmode=native\n";
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

TEST_F(XdpOnTestbed, CleanupDetachesWhatADeadOwnerRecorded)
{
    const std::uint32_t id = attachPass();
    const int dead = deadPid();
    const std::filesystem::path record = m_dir.file(std::to_string(dead) + "-" + std::to_string(m_bed->rx().ifindex));
    writeRecord(record, dead, m_bed->rx(), id);
    const std::filesystem::path live = m_dir.file("live");
    writeRecord(live, static_cast<int>(::getpid()), m_bed->rx(), id);

    const auto found = findLeftovers(m_dir.path());
    ASSERT_EQ(std::count_if(found.begin(), found.end(), [](const Leftover& l) { return l.kind == "xdp"; }), 1)
        << "a running owner's record is not a leftover";
    const auto report = removeLeftovers(m_dir.path());
    EXPECT_TRUE(report.failures.empty()) << report.failures.front();
    EXPECT_EQ(attachedId(m_bed->rx().ifindex), 0u) << "the recorded program was detached";
    EXPECT_FALSE(std::filesystem::exists(record));
    EXPECT_TRUE(std::filesystem::exists(live));
}

TEST_F(XdpOnTestbed, CleanupLeavesAProgramAttachedSinceTheRecord)
{
    const std::uint32_t recorded = attachPass();
    const std::uint32_t current = attachPass();  // replaces it: someone else's program now
    ASSERT_NE(recorded, current);
    const std::filesystem::path record = m_dir.file("old");
    writeRecord(record, deadPid(), m_bed->rx(), recorded);

    const auto report = removeLeftovers(m_dir.path());
    EXPECT_TRUE(report.failures.empty());
    ASSERT_EQ(report.notes.size(), 1u);
    EXPECT_NE(report.notes[0].find("already detached"), std::string::npos) << report.notes[0];
    EXPECT_EQ(attachedId(m_bed->rx().ifindex), current);
    EXPECT_FALSE(std::filesystem::exists(record));
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
