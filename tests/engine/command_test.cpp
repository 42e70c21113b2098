// The command workload's process handling: output, status, timeout, pinning, and counters opened
// while the child is stopped before exec.

#include <gtest/gtest.h>
#include <unistd.h>

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
    EXPECT_EQ(state, "T");  // stopped
    EXPECT_EQ(exe, self);   // not yet exec'd
    ASSERT_EQ(counts.size(), 2u);
    EXPECT_GT(counts[0], 0u);   // task-clock of exec and the program
    EXPECT_GT(counts[1], 10u);  // page faults of loading /bin/true: only seen from before exec
}

}  // namespace
}  // namespace nf::engine
