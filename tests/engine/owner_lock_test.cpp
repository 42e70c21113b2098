// The owner lock: a live owner in any PID namespace is "held", a dead one "stale", anything
// without a record "not ours"; a stale lock is taken over with the dead owner's record.

#include "engine/run/owner_lock.h"

#include <gtest/gtest.h>
#include <sched.h>
#include <signal.h>
#include <sys/prctl.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <unistd.h>

#include <atomic>
#include <chrono>
#include <filesystem>
#include <fstream>
#include <thread>

namespace nf::engine {
namespace {

class OwnerLockTest : public ::testing::Test {
protected:
    void SetUp() override
    {
        m_dir = std::filesystem::temp_directory_path() / ("nf-owner-lock-" + std::to_string(::getpid()));
        std::filesystem::remove_all(m_dir);
    }
    void TearDown() override { std::filesystem::remove_all(m_dir); }
    std::string dir() const { return m_dir.string(); }

    std::filesystem::path m_dir;
};

// A child that takes kind/name and then waits on `go` (closed by the parent) or is killed.
pid_t holdInChild(const std::string& dir, const std::string& kind, const std::string& name, int readyFd)
{
    const pid_t pid = fork();
    if (pid == 0) {
        prctl(PR_SET_PDEATHSIG, SIGKILL);
        auto a = OwnerLock::acquire(kind, name, "test child", {{"thing", "42"}}, dir);
        const char ok = (a && a->lock) ? 'y' : 'n';
        (void)!write(readyFd, &ok, 1);
        pause();
        _exit(0);
    }
    return pid;
}

char readByte(int fd)
{
    char c = 0;
    return read(fd, &c, 1) == 1 ? c : '?';
}

TEST_F(OwnerLockTest, RecordsTheOwnerAndWhatItOwns)
{
    auto a = OwnerLock::acquire("xdp", "eth0", "noisefloor run (xdp-rx)", {{"prog_id", "41"}}, dir());
    ASSERT_TRUE(a.ok()) << a.error().message;
    ASSERT_TRUE(a->lock);
    EXPECT_FALSE(a->holder);
    EXPECT_FALSE(a->previous);
    const auto& r = a->lock->record();
    EXPECT_EQ(r.pid, ::getpid());
    EXPECT_GT(r.startTime, 0U);
    struct stat ns {};
    ASSERT_EQ(::stat("/proc/self/ns/pid", &ns), 0);
    EXPECT_EQ(r.pidNamespace, ns.st_ino);
    EXPECT_EQ(r.bootId.size(), 36U);
    EXPECT_EQ(a->lock->path(), dir() + "/xdp/eth0.lock");
    struct stat st {};
    ASSERT_EQ(::stat(a->lock->path().c_str(), &st), 0);
    EXPECT_EQ(st.st_mode & 07777, 0644U);

    auto probe = probeOwner(a->lock->path());
    EXPECT_EQ(probe.state, OwnerState::Held);
    EXPECT_EQ(probe.record.owns.at("prog_id"), "41");
    EXPECT_EQ(probe.record.description, "noisefloor run (xdp-rx)");
    EXPECT_TRUE(probe.record.complete);
    ASSERT_TRUE(liveOwner("xdp", "eth0", dir()));

    ASSERT_TRUE(a->lock->setOwns({{"prog_id", "41"}, {"prog_tag", "a1b2"}}).ok());
    EXPECT_EQ(probeOwner(a->lock->path()).record.owns.at("prog_tag"), "a1b2");

    a->lock->release();
    EXPECT_FALSE(std::filesystem::exists(dir() + "/xdp/eth0.lock"));
    EXPECT_FALSE(liveOwner("xdp", "eth0", dir()));
    EXPECT_EQ(probeOwner(dir() + "/xdp/eth0.lock").state, OwnerState::NotOurs);
}

TEST_F(OwnerLockTest, ASecondAcquireNamesTheHolder)
{
    auto first = OwnerLock::acquire("cpu", "3", "run 12 (spin)", {}, dir());
    ASSERT_TRUE(first.ok() && first->lock);
    auto second = OwnerLock::acquire("cpu", "3", "run 13 (spin)", {}, dir());
    ASSERT_TRUE(second.ok());
    EXPECT_FALSE(second->lock);
    ASSERT_TRUE(second->holder);
    EXPECT_EQ(second->holder->description, "run 12 (spin)");
    EXPECT_NE(describeOwner(*second->holder).find("run 12 (spin)"), std::string::npos);
    auto other = OwnerLock::acquire("cpu", "4", "run 13 (spin)", {}, dir());
    ASSERT_TRUE(other.ok());
    EXPECT_TRUE(other->lock) << "another name is another lock";
}

TEST_F(OwnerLockTest, TheKernelReleasesTheLockOfAKilledOwner)
{
    int pipeFds[2];
    ASSERT_EQ(pipe(pipeFds), 0);
    const pid_t child = holdInChild(dir(), "testbed", "nf1t0", pipeFds[1]);
    ASSERT_EQ(readByte(pipeFds[0]), 'y');
    const std::string path = ownerLockPath("testbed", "nf1t0", dir());
    auto held = probeOwner(path);
    EXPECT_EQ(held.state, OwnerState::Held);
    EXPECT_EQ(held.record.pid, child);
    EXPECT_FALSE(held.claim);

    kill(child, SIGKILL);
    waitpid(child, nullptr, 0);
    {
        auto dropped = probeOwner(path);  // a dry run looks and lets go: the record stays
        EXPECT_EQ(dropped.state, OwnerState::Stale);
    }
    EXPECT_TRUE(std::filesystem::exists(path));
    auto stale = probeOwner(path);
    ASSERT_EQ(stale.state, OwnerState::Stale);
    EXPECT_EQ(stale.record.pid, child);
    EXPECT_EQ(stale.record.owns.at("thing"), "42");
    ASSERT_TRUE(stale.claim);
    // While the stale lock is claimed (its objects being removed), nobody else can take it.
    EXPECT_FALSE(OwnerLock::acquire("testbed", "nf1t0", "x", {}, dir())->lock);
    stale.claim->release();
    EXPECT_FALSE(std::filesystem::exists(path));
    close(pipeFds[0]);
    close(pipeFds[1]);
}

TEST_F(OwnerLockTest, AcquireTakesOverAStaleLockAndGivesThePreviousRecord)
{
    int pipeFds[2];
    ASSERT_EQ(pipe(pipeFds), 0);
    const pid_t child = holdInChild(dir(), "xdp", "eth9", pipeFds[1]);
    ASSERT_EQ(readByte(pipeFds[0]), 'y');
    kill(child, SIGKILL);
    waitpid(child, nullptr, 0);
    auto a = OwnerLock::acquire("xdp", "eth9", "me", {}, dir());
    ASSERT_TRUE(a.ok() && a->lock);
    ASSERT_TRUE(a->previous);
    EXPECT_EQ(a->previous->pid, child);
    EXPECT_EQ(a->previous->owns.at("thing"), "42");
    EXPECT_EQ(a->lock->record().pid, ::getpid());
    close(pipeFds[0]);
    close(pipeFds[1]);
}

// The failure kill(pid, 0) had: an owner in another PID namespace has a pid that means nothing
// here, and it is alive all the same.
TEST_F(OwnerLockTest, AnOwnerInAnotherPidNamespaceIsHeld)
{
    int pipeFds[2];
    ASSERT_EQ(pipe(pipeFds), 0);
    const pid_t outer = fork();
    if (outer == 0) {
        if (unshare(CLONE_NEWPID) != 0) {
            const char no = 'u';
            (void)!write(pipeFds[1], &no, 1);
            _exit(1);
        }
        const pid_t inner = holdInChild(dir(), "xdp", "eth7", pipeFds[1]);  // pid 1 of the new namespace
        waitpid(inner, nullptr, 0);
        _exit(0);
    }
    const char ready = readByte(pipeFds[0]);
    if (ready == 'u') {
        waitpid(outer, nullptr, 0);
        GTEST_SKIP() << "cannot make a PID namespace here";
    }
    ASSERT_EQ(ready, 'y');
    auto probe = probeOwner(ownerLockPath("xdp", "eth7", dir()));
    EXPECT_EQ(probe.state, OwnerState::Held);
    EXPECT_EQ(probe.record.pid, 1) << "the owner's pid in its own namespace";
    struct stat ns {};
    ASSERT_EQ(::stat("/proc/self/ns/pid", &ns), 0);
    EXPECT_NE(probe.record.pidNamespace, ns.st_ino);
    kill(outer, SIGKILL);  // the holder has PR_SET_PDEATHSIG: it dies with `outer`
    waitpid(outer, nullptr, 0);
    for (int i = 0; i < 500 && probeOwner(ownerLockPath("xdp", "eth7", dir())).state == OwnerState::Held; ++i) {
        std::this_thread::sleep_for(std::chrono::milliseconds(10));
    }
    EXPECT_EQ(probeOwner(ownerLockPath("xdp", "eth7", dir())).state, OwnerState::Stale);
    close(pipeFds[0]);
    close(pipeFds[1]);
}

TEST_F(OwnerLockTest, AFileWithoutARecordIsNotOurs)
{
    std::filesystem::create_directories(dir() + "/xdp");
    std::ofstream(dir() + "/xdp/empty.lock").flush();
    std::ofstream(dir() + "/xdp/junk.lock") << "pid=12\nifname=eth0\n";  // the old format: no proof
    const auto probes = probeOwners("xdp", dir());
    ASSERT_EQ(probes.size(), 2U);
    for (const auto& p : probes) {
        EXPECT_EQ(p.state, OwnerState::NotOurs) << p.path;
        EXPECT_FALSE(p.why.empty());
        EXPECT_FALSE(p.claim);
    }
}

TEST_F(OwnerLockTest, NamesAreEscapedIntoOneFolder)
{
    auto a = OwnerLock::acquire("testbed", "../x y\n", "d", {{"k", "two\nlines"}}, dir());
    ASSERT_TRUE(a.ok() && a->lock);
    EXPECT_EQ(std::filesystem::path(a->lock->path()).parent_path(), std::filesystem::path(dir() + "/testbed"));
    auto probe = probeOwner(a->lock->path());
    EXPECT_EQ(probe.record.name, "../x y\n");
    EXPECT_EQ(probe.record.owns.at("k"), "two\nlines");
}

// Release unlinks while holding the lock; an acquirer that opened the old file retries. Two
// threads taking and releasing one lock are never both owners.
TEST_F(OwnerLockTest, NeverTwoOwnersUnderReleaseAndAcquireRaces)
{
    std::atomic<int> owners{0};
    std::atomic<int> overlaps{0};
    std::atomic<int> taken{0};
    auto worker = [&] {
        for (int i = 0; i < 300; ++i) {
            auto a = OwnerLock::acquire("cpu", "0", "race", {}, dir());
            if (a && a->lock) {
                if (owners.fetch_add(1) != 0) {
                    ++overlaps;
                }
                ++taken;
                owners.fetch_sub(1);
                a->lock->release();
            }
        }
    };
    std::thread t1(worker);
    std::thread t2(worker);
    t1.join();
    t2.join();
    EXPECT_EQ(overlaps.load(), 0);
    EXPECT_GT(taken.load(), 300);
}

}  // namespace
}  // namespace nf::engine
