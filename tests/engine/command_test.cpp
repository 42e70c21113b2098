// The command workload's process handling: output (and its limit), status, timeout, pinning, its
// PID namespace, and counters opened while the child waits before exec.

#include <gtest/gtest.h>
#include <unistd.h>

#include <csignal>
#include <cstdio>

#include <fstream>
#include <sstream>

#include "engine/catalog/command_config.h"
#include "engine/run/command_experiment.h"
#include "engine/run/command_process.h"
#include "probes/counter_group.h"
#include "probes/event_spec.h"

namespace nf::engine {
namespace {

std::string slurp(const std::string& path)
{
    std::ifstream in(path);
    std::ostringstream text;
    text << in.rdbuf();
    return text.str();
}

TEST(SplitCommand, WordsQuotesAndEscapes)
{
    auto w = catalog::splitCommand(R"(perf stat -e 'a b' "c \"d\"" e\ f  )");
    ASSERT_TRUE(w.ok());
    EXPECT_EQ(*w, (std::vector<std::string>{"perf", "stat", "-e", "a b", "c \"d\"", "e f"}));
    EXPECT_FALSE(catalog::splitCommand("echo 'open").ok());
}

TEST(RunProcess, CapturesOutputAndExitStatus)
{
    auto r = runProcess({{"/bin/sh", "-c", "echo out; echo err >&2; exit 3"}, -1, 10}, {});
    ASSERT_TRUE(r.ok()) << r.error().message;
    EXPECT_TRUE(r->started);
    EXPECT_EQ(r->exitStatus, 3);
    EXPECT_EQ(r->output, "out\n");
    EXPECT_EQ(r->errors, "err\n");
}

TEST(RunProcess, TimeoutKillsTheCommand)
{
    auto r = runProcess({{"sleep", "5"}, -1, 0.2}, {});
    ASSERT_TRUE(r.ok());
    EXPECT_TRUE(r->timedOut);
    EXPECT_EQ(r->exitStatus, 128 + 9);
    EXPECT_LT(r->wallSeconds, 2.0);
}

std::string pgrepCount(const std::string& pattern)
{
    std::string out;
    if (FILE* p = ::popen(("pgrep -c -f '" + pattern + "'").c_str(), "r")) {
        char buf[64] = {};
        while (::fgets(buf, sizeof buf, p) != nullptr) {
            out += buf;
        }
        ::pclose(p);
    }
    return out;
}

// The command is the init of its own PID namespace: what it leaves running dies with it, at its
// exit and at its timeout.
TEST(RunProcess, WhatTheCommandStartsDiesWithIt)
{
    auto done = runProcess({{"/bin/sh", "-c", "sleep 418.25 & echo started"}, -1, 10}, {});
    ASSERT_TRUE(done.ok()) << done.error().message;
    EXPECT_EQ(done->exitStatus, 0);
    EXPECT_EQ(done->output, "started\n");
    auto timedOut = runProcess({{"/bin/sh", "-c", "sleep 418.5 & sleep 418.5"}, -1, 0.3}, {});
    ASSERT_TRUE(timedOut.ok());
    EXPECT_TRUE(timedOut->timedOut);
    usleep(100000);
    EXPECT_EQ(pgrepCount("^sleep 418\\.(25|5)$"), "0\n");
}

TEST(RunProcess, OutputPastTheLimitIsCountedNotKept)
{
    auto r = runProcess({{"/bin/sh", "-c", "head -c 6000000 /dev/zero; echo err >&2"}, -1, 20}, {});
    ASSERT_TRUE(r.ok()) << r.error().message;
    EXPECT_EQ(r->output.size(), kCaptureLimit);
    EXPECT_EQ(r->outputDropped, 6000000 - kCaptureLimit);
    EXPECT_EQ(r->errors, "err\n");
    EXPECT_EQ(r->errorsDropped, 0u);
}

// noisefloor ignores SIGXFSZ (to report EFBIG); the measured command gets the default back.
TEST(RunProcess, TheCommandGetsTheDefaultSigxfsz)
{
    const auto previous = ::signal(SIGXFSZ, SIG_IGN);
    const std::string file = "/tmp/nf-xfsz-" + std::to_string(::getpid());
    auto r = runProcess({{"/bin/sh", "-c", "ulimit -f 1; head -c 8192 /dev/zero > " + file}, -1, 10}, {});
    ::signal(SIGXFSZ, previous);
    ::unlink(file.c_str());
    ASSERT_TRUE(r.ok());
    EXPECT_EQ(r->exitStatus, 128 + SIGXFSZ) << r->errors;
}

TEST(RunProcess, MissingProgramIsReportedNotRun)
{
    auto r = runProcess({{"/nonexistent/program"}, -1, 1}, {});
    ASSERT_TRUE(r.ok());
    EXPECT_FALSE(r->started);
    EXPECT_NE(r->failure.find("No such file or directory"), std::string::npos) << r->failure;
    auto notFound = runProcess({{"no-such-command-noisefloor"}, -1, 1}, {});
    ASSERT_TRUE(notFound.ok());
    EXPECT_EQ(notFound->failure, "no-such-command-noisefloor: command not found");
}

TEST(RunProcess, PinnedToItsCpu)
{
    const int cpu = static_cast<int>(sysconf(_SC_NPROCESSORS_ONLN)) - 1;
    auto r = runProcess({{"grep", "Cpus_allowed_list", "/proc/self/status"}, cpu, 10}, {});
    ASSERT_TRUE(r.ok());
    EXPECT_NE(r->output.find("\t" + std::to_string(cpu) + "\n"), std::string::npos) << r->output;
}

// attach runs while the child is stopped and has not yet exec'd (its /proc/PID/exe is still this
// test binary), so counters opened there count the command from its first instruction.
TEST(RunProcess, CountersAttachBeforeTheFirstInstruction)
{
    auto events = probes::resolveEvents("task-clock,page-faults");
    ASSERT_TRUE(events.ok());
    char self[4096] = {};
    ASSERT_GT(readlink("/proc/self/exe", self, sizeof self - 1), 0);
    std::string state;
    std::string exe;
    std::optional<probes::CounterGroup> group;
    std::vector<std::uint64_t> counts;
    ProcessHooks hooks;
    hooks.attach = [&](pid_t pid) -> Result<void> {
        const auto stat = slurp("/proc/" + std::to_string(pid) + "/stat");
        state = stat.substr(stat.rfind(')') + 2, 1);
        char link[4096] = {};
        if (readlink(("/proc/" + std::to_string(pid) + "/exe").c_str(), link, sizeof link - 1) > 0) {
            exe = link;
        }
        auto g = probes::CounterGroup::open(*events, probes::CounterTarget::thread(pid));
        if (!g) {
            return g.error();
        }
        group.emplace(std::move(*g));
        return {};
    };
    hooks.exited = [&] {
        probes::CounterReading reading = group->reading();
        ASSERT_TRUE(group->read(reading).ok());
        counts = reading.value;
    };
    auto r = runProcess({{"true"}, -1, 10}, hooks);
    ASSERT_TRUE(r.ok()) << r.error().message;
    EXPECT_EQ(r->exitStatus, 0);
    // Blocked on the go byte (S), or still on its way there (R, e.g. under a sanitizer): either way
    // not yet exec'd, which is what the counters must be attached before.
    EXPECT_TRUE(state == "S" || state == "R") << state;
    EXPECT_EQ(exe, self);
    ASSERT_EQ(counts.size(), 2u);
    EXPECT_GT(counts[0], 0u);   // task-clock of exec and the program
    EXPECT_GT(counts[1], 10u);  // page faults of loading /bin/true: only seen from before exec
}

}  // namespace
}  // namespace nf::engine
