// The command workload's process handling: output (and its limit), status, timeout, pinning, its
// PID namespace, counters opened while the child waits before exec, and the environment it gets:
// the inherited one grown by the layout pad of its repetition.

#include <gtest/gtest.h>
#include <unistd.h>

#include <csignal>
#include <cstdio>
#include <cstdlib>

#include <algorithm>
#include <fstream>
#include <set>
#include <sstream>

#include "engine/catalog/command_config.h"
#include "engine/run/command_experiment.h"
#include "engine/run/command_process.h"
#include "engine/run/run_collector.h"
#include "engine/run/schedule.h"
#include "engine/workloads/registry.h"
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

// A variable of this process's environment for one test (no other thread runs meanwhile), then
// unset again.
class SetVariable {
public:
    SetVariable(const char* name, const char* value) : m_name(name)
    {
        ::setenv(name, value, 1);  // NOLINT(concurrency-mt-unsafe): no other thread runs
    }
    ~SetVariable()
    {
        ::unsetenv(m_name);  // NOLINT(concurrency-mt-unsafe): no other thread runs
    }
    SetVariable(const SetVariable&) = delete;
    SetVariable& operator=(const SetVariable&) = delete;

private:
    const char* m_name;
};

// A variable set for the command; otherwise the environment is this process's, byte for byte.
TEST(RunProcess, EnvironmentIsInheritedWithTheSetVariablesInPlace)
{
    const SetVariable user("NF_COMMAND_TEST_VAR", "kept as it is");
    const SetVariable replaced(kCommandLayoutVariable, "from the user");
    const std::string pad = std::string(kCommandLayoutVariable) + "=xx";
    auto r = runProcess({{"env", "-0"}, -1, 10, {pad}}, {});
    ASSERT_TRUE(r.ok()) << r.error().message;
    ASSERT_EQ(r->exitStatus, 0) << r->errors;
    std::multiset<std::string> got;
    for (std::size_t at = 0; at < r->output.size();) {
        const auto end = r->output.find('\0', at);
        got.insert(r->output.substr(at, end - at));
        at = end == std::string::npos ? r->output.size() : end + 1;
    }
    std::multiset<std::string> expected{pad, "NF_COMMAND_TEST_VAR=kept as it is"};
    for (char** e = environ; *e != nullptr; ++e) {
        const std::string entry(*e);
        if (!entry.starts_with(std::string(kCommandLayoutVariable) + "=") &&
            !entry.starts_with("NF_COMMAND_TEST_VAR=")) {
            expected.insert(entry);
        }
    }
    EXPECT_EQ(got, expected);
}

// A RunCollector that keeps the placement of every repetition too.
class LayoutCollector : public RunCollector {
public:
    Result<void> repetitionFinished(const RepetitionResult& rep) override
    {
        layouts.push_back(rep.layouts);
        return RunCollector::repetitionFinished(rep);
    }
    std::vector<std::vector<int>> layouts;  // [repetition][variant]
};

// Each run of the command gets the pad of the placement the run's plan drew for its repetition and
// variant: over 8 repetitions every variant ran every placement once, and the command saw its
// environment grow by that placement's pad (and still had the variables the user set).
TEST(CommandLayout, EveryVariantRunsEveryPadOnceIn8Repetitions)
{
    const SetVariable user("NF_COMMAND_TEST_VAR", "kept");
    ExperimentSpec spec;
    spec.workload = "command";
    spec.params = {{"shell", "yes"},
                   {"metric_regex", "pad: ([0-9]+)"},
                   {"cmd",
                    "test \"$NF_COMMAND_TEST_VAR\" = kept || exit 3; printf 'pad: '; "
                    "printf %s \"$" +
                        std::string(kCommandLayoutVariable) + "\" | wc -c"}};
    spec.variants = {{"a", {}}, {"b", {{"timeout", "30"}}}};
    spec.repetitions = 8;
    spec.seed = 11;
    spec.counters = {"task-clock"};
    spec.shareCpus = true;  // what is measured here is the environment, not the time: another run may be on the CPU
    auto p = prepareExperiment(spec, base::readSystemFacts(), workloads::implementations());
    ASSERT_TRUE(p.ok()) << p.error().message;
    EXPECT_EQ(p->spec.layouts.value_or(0), 0);  // not a factor of the analysis: noisefloor does not build the code
    LayoutCollector collector;
    const auto outcome = runExperiment(*p, collector, {});
    ASSERT_EQ(outcome.status, RunStatus::Complete) << outcome.reason;
    ASSERT_EQ(collector.layouts.size(), 8u);
    const LayoutPlan plan(kMaxLayouts, {std::nullopt, std::nullopt}, 11);
    std::vector<std::set<int>> ran(2);
    for (std::size_t r = 0; r < collector.layouts.size(); ++r) {
        EXPECT_EQ(collector.layouts[r], plan.at(static_cast<int>(r))) << "repetition " << r;
        for (std::size_t v = 0; v < 2 && v < collector.layouts[r].size(); ++v) {
            ran[v].insert(collector.layouts[r][v]);
        }
    }
    const std::set<int> all{0, 1, 2, 3, 4, 5, 6, 7};
    EXPECT_EQ(ran[0], all);
    EXPECT_EQ(ran[1], all);
    std::set<double> pads;
    for (const auto& s : collector.data().samples.toSamples()) {
        EXPECT_EQ(s.values.at(0), 1) << "variant " << s.variant << " repetition " << s.repetition
                                     << " failed: " << ::testing::PrintToString(collector.warnings());
        const int layout =
            collector.layouts.at(static_cast<std::size_t>(s.repetition)).at(static_cast<std::size_t>(s.variant));
        EXPECT_EQ(s.values.at(3), commandLayoutPad(layout)) << "placement " << layout;
        pads.insert(s.values.at(3));
    }
    EXPECT_EQ(pads.size(), 8u);
    const auto& described = collector.start().environment["measurement"]["layouts"];
    EXPECT_EQ(described["variable"], kCommandLayoutVariable);
    EXPECT_EQ(described["pad_bytes"], (nlohmann::json{0, 784, 1568, 2352, 3136, 3920, 608, 1392}));
}

}  // namespace
}  // namespace nf::engine
