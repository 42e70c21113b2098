// CPU claims: a run locks the CPUs it measures on; a second claim on a held CPU is refused and
// names the holder, or with share is a warning; a dead holder's lock is taken over.

#include "engine/run/cpu_claim.h"

#include <gtest/gtest.h>
#include <sys/prctl.h>
#include <sys/wait.h>
#include <unistd.h>

#include <csignal>
#include <filesystem>

#include "engine/run/scheduler.h"
#include "engine/workloads/registry.h"

namespace nf::engine {
namespace {

class CpuClaimTest : public ::testing::Test {
protected:
    void SetUp() override
    {
        m_dir = std::filesystem::temp_directory_path() / ("nf-cpu-claim-" + std::to_string(::getpid()));
        std::filesystem::remove_all(m_dir);
    }
    void TearDown() override { std::filesystem::remove_all(m_dir); }
    std::string dir() const { return m_dir.string(); }

    std::filesystem::path m_dir;
};

TEST_F(CpuClaimTest, ASecondRunOnAHeldCpuIsRefusedAndNamesTheFirst)
{
    auto first = claimCpus({0, 1}, "noisefloor run into a.db (udp-rx)", false, dir());
    ASSERT_TRUE(first) << first.error().message;
    EXPECT_EQ(first->locks.size(), 2u);
    EXPECT_TRUE(first->warnings.empty());

    auto second = claimCpus({1}, "noisefloor run into b.db (spin)", false, dir());
    ASSERT_FALSE(second);
    EXPECT_NE(second.error().message.find("CPU 1 is measured by another run"), std::string::npos)
        << second.error().message;
    EXPECT_NE(second.error().message.find("a.db (udp-rx)"), std::string::npos) << second.error().message;
    EXPECT_NE(second.error().message.find("pid " + std::to_string(::getpid())), std::string::npos);

    auto other = claimCpus({2}, "c", false, dir());  // a CPU nobody holds
    ASSERT_TRUE(other);
    EXPECT_EQ(other->locks.size(), 1u);
}

TEST_F(CpuClaimTest, SharingIsAWarningPerHeldCpu)
{
    auto first = claimCpus({1}, "first", false, dir());
    ASSERT_TRUE(first);
    auto shared = claimCpus({0, 1}, "second", true, dir());
    ASSERT_TRUE(shared) << shared.error().message;
    EXPECT_EQ(shared->locks.size(), 1u);  // CPU 0 is its own
    ASSERT_EQ(shared->warnings.size(), 1u);
    EXPECT_NE(shared->warnings[0].find("CPU 1 shared with another run (--share-cpus)"), std::string::npos);
    EXPECT_NE(shared->warnings[0].find("first"), std::string::npos);
}

TEST_F(CpuClaimTest, ReleasedWithTheClaimsAndTakenOverFromADeadRun)
{
    {
        auto first = claimCpus({3}, "first", false, dir());
        ASSERT_TRUE(first);
    }
    EXPECT_TRUE(claimCpus({3}, "after release", false, dir()));

    int ready[2];
    ASSERT_EQ(pipe(ready), 0);
    const pid_t child = fork();
    if (child == 0) {
        prctl(PR_SET_PDEATHSIG, SIGKILL);
        auto held = claimCpus({4}, "child", false, dir());
        const char ok = held ? 'y' : 'n';
        (void)!write(ready[1], &ok, 1);
        pause();
        _exit(0);
    }
    char ok = 0;
    ASSERT_EQ(read(ready[0], &ok, 1), 1);
    EXPECT_EQ(ok, 'y');
    EXPECT_FALSE(claimCpus({4}, "parent", false, dir()));  // the child is alive
    kill(child, SIGKILL);
    waitpid(child, nullptr, 0);
    EXPECT_TRUE(claimCpus({4}, "parent", false, dir()));  // the kernel dropped the dead child's lock
    close(ready[0]);
    close(ready[1]);
}

TEST(MeasuredCpus, WorkerCpuInProcessAndEveryVariantsCpusLive)
{
    base::SystemFacts facts = base::readSystemFacts();
    if (facts.allowedCpus.size() < 2) {
        GTEST_SKIP() << "needs two allowed CPUs";
    }
    ExperimentSpec spin;
    spin.workload = "spin";
    spin.variants = {{"a", {}}};
    spin.cpus = {facts.allowedCpus[1]};
    auto p = prepareExperiment(spin, facts, workloads::implementations());
    ASSERT_TRUE(p) << p.error().message;
    EXPECT_EQ(measuredCpus(*p), std::vector<int>{facts.allowedCpus[1]});

    ExperimentSpec udp;
    udp.workload = "udp-rx";
    udp.variants = {{"a", {{"tx_cpu", std::to_string(facts.allowedCpus[0])}}},
                    {"b", {{"tx_cpu", std::to_string(facts.allowedCpus[1])}, {"share_cpu", "1"}}}};
    udp.params = {{"rx_cpu", std::to_string(facts.allowedCpus[1])}};
    auto live = prepareExperiment(udp, facts, workloads::implementations());
    ASSERT_TRUE(live) << live.error().message;
    EXPECT_EQ(measuredCpus(*live), (std::vector<int>{facts.allowedCpus[0], facts.allowedCpus[1]}));
}

}  // namespace
}  // namespace nf::engine
