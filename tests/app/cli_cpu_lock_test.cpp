// Runs that do not silently share CPUs, through the `noisefloor` binary: while another process
// holds the lock of a CPU (/run/noisefloor/cpu/<n>.lock), a run on it refuses to start and names
// the holder, stores nothing, and with --share-cpus runs and stores the sharing as a warning.

#include <gtest/gtest.h>
#include <sys/stat.h>
#include <unistd.h>

#include <csignal>
#include <filesystem>

#include <nlohmann/json.hpp>

#include "base/system_facts.h"
#include "engine/run/cpu_claim.h"
#include "tests/app/cli_process.h"

namespace nf::test {
namespace {

class CliCpuLocks : public CliTest {
protected:
    void SetUp() override
    {
        if (::geteuid() != 0) {
            GTEST_SKIP() << "the CPU locks live in /run/noisefloor: needs root";
        }
        const auto facts = base::readSystemFacts();
        ASSERT_FALSE(facts.allowedCpus.empty());
        m_cpu = std::to_string(facts.allowedCpus.back());
    }
    std::string m_cpu;
};

TEST_F(CliCpuLocks, ARunOnAHeldCpuRefusesAndNamesTheHolderUnlessToldToShare)
{
    auto held = engine::claimCpus({std::stoi(m_cpu)}, "the test's other run", false);
    ASSERT_TRUE(held) << held.error().message;
    ASSERT_EQ(held->locks.size(), 1u) << "CPU " << m_cpu << " is held by another process already";

    const std::vector<std::string> spin = {"run", "spin", "--cpu", m_cpu, "--reps", "2", "--duration", "0.05"};
    const auto refused = run(spin);
    EXPECT_EQ(refused.status, 1) << refused.err;
    EXPECT_NE(refused.err.find("CPU " + m_cpu + " is measured by another run, pid " + std::to_string(::getpid()) +
                               " (the test's other run)"),
              std::string::npos)
        << refused.err;
    EXPECT_EQ(run({"list", "--format", "json"}).out.find("\"id\""), std::string::npos);  // nothing stored

    auto args = spin;
    args.push_back("--share-cpus");
    const auto shared = run(args);
    ASSERT_EQ(shared.status, 0) << shared.err;
    const auto j = nlohmann::json::parse(run({"show", "1", "--format", "json"}).out);
    EXPECT_EQ(j["spec"]["share_cpus"], true) << j.dump();
    EXPECT_NE(j.dump().find("CPU " + m_cpu + " shared with another run (--share-cpus)"), std::string::npos) << j.dump();

    held->locks.clear();  // released: the next run takes the CPU itself
    held->keys.clear();
    const auto after = run(spin);
    EXPECT_EQ(after.status, 0) << after.err;
    EXPECT_EQ(nlohmann::json::parse(run({"show", "2", "--format", "json"}).out).dump().find("shared with"),
              std::string::npos);
}

// `check` names the runs measuring now, CPU by CPU (the Environment tab shows it), and no longer a
// run that has ended.
TEST_F(CliCpuLocks, CheckNamesTheCpusOtherRunsMeasureOn)
{
    auto held = engine::claimCpus({std::stoi(m_cpu)}, "the test's other run", false);
    ASSERT_TRUE(held) << held.error().message;
    const auto checked = run({"check", "--format", "json"});
    ASSERT_EQ(checked.status, 0) << checked.err;
    nlohmann::json inUse;
    for (const auto& c : nlohmann::json::parse(checked.out)) {
        if (c["name"] == "CPUs in use") {
            inUse = c;
        }
    }
    ASSERT_TRUE(inUse.is_object()) << checked.out;
    EXPECT_EQ(inUse["level"], "info");
    const std::string detail = inUse["detail"];
    EXPECT_NE(detail.find("CPU " + m_cpu + ": pid " + std::to_string(::getpid())), std::string::npos) << detail;
    EXPECT_NE(inUse["fix"].get<std::string>().find("--share-cpus"), std::string::npos);
    held->keys.clear();
    held->locks.clear();
    const auto free = nlohmann::json::parse(run({"check", "--format", "json"}).out);
    for (const auto& c : free) {
        if (c["name"] == "CPUs in use") {
            EXPECT_EQ(c["detail"].get<std::string>().find("CPU " + m_cpu + ":"), std::string::npos) << c.dump();
        }
    }
}

// Deleting a live run's lock file does not let a second run measure on its CPU: the CPU's key
// (an abstract socket) has no file to delete.
TEST_F(CliCpuLocks, DeletingTheLockFileOfALiveRunDoesNotFreeItsCpu)
{
    auto held = engine::claimCpus({std::stoi(m_cpu)}, "the test's other run", false);
    ASSERT_TRUE(held) << held.error().message;
    ASSERT_EQ(held->locks.size(), 1u) << "CPU " << m_cpu << " is held by another process already";
    ASSERT_EQ(::unlink(held->locks.front().path().c_str()), 0);
    const auto refused = run({"run", "spin", "--cpu", m_cpu, "--reps", "2", "--duration", "0.05"});
    EXPECT_EQ(refused.status, 1) << refused.err;
    EXPECT_NE(refused.err.find("CPU " + m_cpu + " is measured by another run, pid " + std::to_string(::getpid())),
              std::string::npos)
        << refused.err;
    EXPECT_EQ(run({"list", "--format", "json"}).out.find("\"id\""), std::string::npos);  // nothing stored
}

// A lock file held by something that is not noisefloor (`flock FILE sleep`) is named as what it
// is, not as "pid 0".
TEST_F(CliCpuLocks, AHolderThatIsNotNoisefloorIsNamed)
{
    const std::string file = engine::ownerLockPath("cpu", m_cpu);
    const std::string pidFile = m_dir.file("flock.pid");
    ASSERT_EQ(shell("mkdir -p /run/noisefloor/cpu && (flock -o " + file + " sleep 30 >/dev/null 2>&1 & echo $! > " +
                    pidFile + ")")
                  .first,
              0);
    ::usleep(300000);
    const auto refused = run({"run", "spin", "--cpu", m_cpu, "--reps", "2", "--duration", "0.05"});
    (void)shell("kill $(cat " + pidFile + ")");
    EXPECT_EQ(refused.status, 1) << refused.err;
    EXPECT_NE(refused.err.find("(flock -o " + file + " sleep 30), not a noisefloor run"), std::string::npos)
        << refused.err;
    EXPECT_EQ(refused.err.find("pid 0"), std::string::npos) << refused.err;
}

// A run that shares a CPU (--share-cpus) is seen by every later run on it, also once the run
// whose CPU it shared has ended: one that does not share is refused and names it, one that shares
// stores a warning naming it.
TEST_F(CliCpuLocks, ASharingRunIsSeenByEveryLaterRunOnItsCpu)
{
    auto held = engine::claimCpus({std::stoi(m_cpu)}, "the test's other run", false);
    ASSERT_TRUE(held) << held.error().message;
    CliProcess sharing({"--db", m_dir.file("first.db"), "run", "spin", "--cpu", m_cpu, "--reps", "400", "--duration",
                        "0.05", "--warmup", "0", "--share-cpus"},
                       m_dir);
    ASSERT_TRUE(waitForStoredRepetitions(m_dir.file("first.db"), m_dir, 1));
    held->locks.clear();  // the run it shared with ends; the sharing run goes on
    held->keys.clear();
    const auto refused = run({"run", "spin", "--cpu", m_cpu, "--reps", "2", "--duration", "0.05"});
    EXPECT_EQ(refused.status, 1) << refused.err;
    EXPECT_NE(refused.err.find("pid " + std::to_string(sharing.pid())), std::string::npos) << refused.err;
    EXPECT_NE(refused.err.find("which shares it (--share-cpus)"), std::string::npos) << refused.err;
    const auto shared = run({"run", "spin", "--cpu", m_cpu, "--reps", "2", "--duration", "0.05", "--share-cpus"});
    ASSERT_EQ(shared.status, 0) << shared.err;
    const auto j = nlohmann::json::parse(run({"show", "1", "--format", "json"}).out);
    EXPECT_NE(j.dump().find("shared with another run (--share-cpus): pid " + std::to_string(sharing.pid())),
              std::string::npos)
        << j.dump();
    ::kill(sharing.pid(), SIGTERM);
    EXPECT_EQ(sharing.wait().status, 143);
}

// The run that holds a CPU is told when a --share-cpus run joins it later: it looks for sharers
// while it runs and stores a warning naming each, with the repetitions they overlapped. Before,
// only the sharer's run said so, and the holder's figures were stored as if measured alone.
TEST_F(CliCpuLocks, AHolderIsToldOfARunThatJoinsItsCpuLater)
{
    CliProcess holder({"--db", m_dir.file("holder.db"), "run", "spin", "--cpu", m_cpu, "--reps", "400", "--duration",
                       "0.05", "--warmup", "0"},
                      m_dir);
    ASSERT_TRUE(waitForStoredRepetitions(m_dir.file("holder.db"), m_dir, 1));
    CliProcess sharer({"--db", m_dir.file("sharer.db"), "run", "spin", "--cpu", m_cpu, "--reps", "6", "--duration",
                       "0.05", "--warmup", "0", "--share-cpus"},
                      m_dir);
    const pid_t sharerPid = sharer.pid();
    const auto shared = sharer.wait();
    ASSERT_EQ(shared.status, 0) << shared.err;
    EXPECT_NE(shared.err.find("shared with another run (--share-cpus): pid " + std::to_string(holder.pid())),
              std::string::npos)
        << shared.err;
    ::kill(holder.pid(), SIGTERM);
    const auto held = holder.wait();
    ASSERT_EQ(held.status, 143) << held.err;
    const std::string line = "CPU " + m_cpu + " was shared by pid " + std::to_string(sharerPid);
    EXPECT_NE(held.err.find(line), std::string::npos) << held.err;
    const auto show = runCli({"--db", m_dir.file("holder.db"), "show", "1"}, m_dir);
    EXPECT_NE(show.out.find(line), std::string::npos) << show.out;
    EXPECT_NE(show.out.find("a run that joined it with --share-cpus, during repetition"), std::string::npos)
        << show.out;
    const auto j =
        nlohmann::json::parse(runCli({"--db", m_dir.file("holder.db"), "show", "1", "--format", "json"}, m_dir).out);
    EXPECT_NE(j.dump().find(line), std::string::npos) << j.dump();
}

// Without root the system lock directory cannot be made: the run locks its CPU in the user's own
// runtime directory, and its key still keeps every other user's run off that CPU.
TEST_F(CliCpuLocks, AUserWithoutRootLocksInTheirRuntimeDirectory)
{
    const std::string home = m_dir.file("nobody");
    std::filesystem::create_directories(home + "/run");
    ASSERT_EQ(::chown(home.c_str(), 65534, 65534), 0);
    ASSERT_EQ(::chown((home + "/run").c_str(), 65534, 65534), 0);
    ASSERT_EQ(::chmod(m_dir.path().c_str(), 0755), 0);
    const std::string as = "XDG_RUNTIME_DIR=" + home + "/run setpriv --reuid=65534 --regid=65534 --clear-groups ";
    const std::string args =
        " --db " + home + "/runs.db run spin --cpu " + m_cpu + " --reps 200 --duration 0.05 --warmup 0";
    const auto [status, out] = shell("cd /; " + as + NF_CLI_PATH + args + " >" + home + "/out 2>" + home +
                                     "/err & p=$!; sleep 1.5; " + NF_CLI_PATH + " --db " + m_dir.file("root.db") +
                                     " run spin --cpu " + m_cpu + " --reps 2 --duration 0.05 2>&1; kill $p; wait");
    EXPECT_NE(out.find("CPU " + m_cpu + " is measured by another run"), std::string::npos)
        << out << readFile(home + "/err");
    EXPECT_TRUE(std::filesystem::exists(home + "/run/noisefloor/cpu")) << readFile(home + "/err");
    EXPECT_EQ(readFile(home + "/err").find("cannot lock"), std::string::npos) << readFile(home + "/err");
}

}  // namespace
}  // namespace nf::test
