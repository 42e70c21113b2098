#include "probes/counter_group.h"

#include <sys/mman.h>
#include <sys/syscall.h>
#include <unistd.h>

#include <gtest/gtest.h>

#include <algorithm>
#include <atomic>
#include <chrono>
#include <filesystem>
#include <fstream>
#include <thread>

namespace nf::probes {
namespace {

std::vector<EventSpec> specs(const char* list)
{
    Result<std::vector<EventSpec>> resolved = resolveEvents(list);
    EXPECT_TRUE(resolved.ok()) << resolved.error().message;
    return resolved.ok() ? resolved.value() : std::vector<EventSpec>{};
}

CounterGroup openOrFail(const char* list, CounterTarget target = CounterTarget::callingThread())
{
    Result<CounterGroup> group = CounterGroup::open(specs(list), target);
    if (!group.ok()) {
        ADD_FAILURE() << group.error().message;
        std::abort();
    }
    return std::move(group).value();
}

std::vector<std::string> baseNames(const CounterGroup& group)
{
    return group.names();
}

// Index of `name` in names(), or -1.
int indexOf(const CounterGroup& group, const std::string& name)
{
    const std::vector<std::string>& names = group.names();
    const auto it = std::find(names.begin(), names.end(), name);
    return it == names.end() ? -1 : static_cast<int>(it - names.begin());
}

std::string reasonFor(const CounterGroup& group, const std::string& name)
{
    for (const UnsupportedEvent& event : group.unsupported()) {
        if (event.name == name) {
            return event.reason;
        }
    }
    return "";
}

void spinFor(std::chrono::milliseconds duration)
{
    const auto end = std::chrono::steady_clock::now() + duration;
    volatile std::uint64_t sink = 0;
    while (std::chrono::steady_clock::now() < end) {
        for (int i = 0; i < 1000; ++i) {
            sink = sink + static_cast<std::uint64_t>(i);
        }
    }
}

CounterReading readOrFail(const CounterGroup& group)
{
    CounterReading reading = group.reading();
    Result<void> ok = group.read(reading);
    EXPECT_TRUE(ok.ok()) << ok.error().message;
    return reading;
}

// The scaled value of every counter from `a` to `b`.
std::vector<double> delta(const CounterReading& a, const CounterReading& b)
{
    std::vector<ScaledCount> scaled;
    scaledDeltas(a, b, scaled);
    std::vector<double> out;
    for (const ScaledCount& c : scaled) {
        out.push_back(c.value);
    }
    return out;
}

std::vector<double> countedShares(const CounterReading& a, const CounterReading& b)
{
    std::vector<ScaledCount> scaled;
    scaledDeltas(a, b, scaled);
    std::vector<double> out;
    for (const ScaledCount& c : scaled) {
        out.push_back(c.counted);
    }
    return out;
}

TEST(CounterGroup, SoftwareEventsCount)
{
    CounterGroup group = openOrFail("task-clock,page-faults,context-switches");
    ASSERT_EQ(baseNames(group), (std::vector<std::string>{"task-clock", "page-faults", "context-switches"}))
        << (group.unsupported().empty() ? "" : group.unsupported().front().reason);
    const CounterReading before = readOrFail(group);

    spinFor(std::chrono::milliseconds(20));
    constexpr std::size_t kPages = 256;
    const auto pageSize = static_cast<std::size_t>(sysconf(_SC_PAGESIZE));
    void* memory = mmap(nullptr, kPages * pageSize, PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
    ASSERT_NE(memory, MAP_FAILED);
    madvise(memory, kPages * pageSize, MADV_NOHUGEPAGE);  // one fault per page, not per huge page
    for (std::size_t page = 0; page < kPages; ++page) {
        static_cast<volatile char*>(memory)[page * pageSize] = 1;
    }
    munmap(memory, kPages * pageSize);

    const CounterReading after = readOrFail(group);
    const std::vector<double> d = delta(before, after);
    ASSERT_EQ(d.size(), 3U);
    EXPECT_GT(d[0], 1e6);  // task-clock: well over 1 ms of the 20 ms spin, in ns
    EXPECT_GE(d[1], static_cast<double>(kPages) * 0.9) << "context-switches " << d[2];  // page-faults
    EXPECT_GE(d[2], 0.0);
    for (double share : countedShares(before, after)) {
        EXPECT_DOUBLE_EQ(share, 1.0);  // software events are never multiplexed
    }
}

TEST(CounterGroup, EmptyEventListOpensAndReads)
{
    CounterGroup group = openOrFail("");
    EXPECT_TRUE(group.names().empty());
    EXPECT_TRUE(group.unsupported().empty());
    const CounterReading reading = readOrFail(group);
    EXPECT_TRUE(reading.value.empty());
    EXPECT_TRUE(reading.enabled.empty());
}

TEST(CounterGroup, HardwareEventOpensOrIsReportedWithReason)
{
    CounterGroup group = openOrFail("cycles,instructions,branch-misses,task-clock");
    EXPECT_EQ(group.names().size() + group.unsupported().size(), 4U);  // never silently dropped
    EXPECT_NE(indexOf(group, "task-clock"), -1);
    for (const char* name : {"cycles", "instructions", "branch-misses"}) {
        const bool opened = indexOf(group, name) >= 0;
        const std::string reason = reasonFor(group, name);
        EXPECT_NE(opened, !reason.empty()) << name;
        if (!opened) {
            EXPECT_NE(reason.find("perf_event_open: "), std::string::npos) << reason;
        }
    }
    for (const UnsupportedEvent& event : group.unsupported()) {
        std::cout << "[ info     ] unsupported " << event.name << ": " << event.reason << '\n';
    }
    CounterReading reading = group.reading();
    EXPECT_TRUE(group.read(reading).ok());
}

TEST(CounterGroup, HardwareEventsCountWherePmuExists)
{
    CounterGroup group = openOrFail("cycles,instructions,branches,branch-misses,cache-misses,ref-cycles");
    const int cycles = indexOf(group, "cycles");
    if (cycles < 0) {
        GTEST_SKIP() << "no hardware PMU: " << reasonFor(group, "cycles");
    }
    const CounterReading before = readOrFail(group);
    spinFor(std::chrono::milliseconds(20));
    const CounterReading after = readOrFail(group);
    const std::vector<double> d = delta(before, after);
    EXPECT_GT(d[static_cast<std::size_t>(cycles)], 0.0);
    for (double share : countedShares(before, after)) {
        EXPECT_GE(share, 0.0);
        EXPECT_LE(share, 1.0);
    }
}

TEST(CounterGroup, UnsupportedEventsDoNotStopTheOthers)
{
    CounterGroup group = openOrFail("cycles,r01c2,task-clock,instructions");
    const int taskClock = indexOf(group, "task-clock");
    ASSERT_GE(taskClock, 0);
    const CounterReading before = readOrFail(group);
    spinFor(std::chrono::milliseconds(5));
    const CounterReading after = readOrFail(group);
    EXPECT_GT(delta(before, after)[static_cast<std::size_t>(taskClock)], 0.0);
    EXPECT_EQ(after.value.size(), group.names().size());
}

TEST(CounterGroup, CountsAnotherThread)
{
    std::atomic<pid_t> tid{0};
    std::atomic<bool> stop{false};
    std::thread worker([&] {
        tid = static_cast<pid_t>(syscall(SYS_gettid));
        while (!stop) {
            spinFor(std::chrono::milliseconds(1));
        }
    });
    while (tid == 0) {
        std::this_thread::yield();
    }
    Result<CounterGroup> group = CounterGroup::open(specs("task-clock"), CounterTarget::thread(tid));
    ASSERT_TRUE(group.ok()) << group.error().message;
    EXPECT_EQ(group->target().describe(), "thread " + std::to_string(tid.load()));
    ASSERT_EQ(group->names().size(), 1U);
    const CounterReading before = readOrFail(*group);
    std::this_thread::sleep_for(std::chrono::milliseconds(20));
    const CounterReading after = readOrFail(*group);
    stop = true;
    worker.join();
    EXPECT_GT(delta(before, after)[0], 0.0);
}

TEST(CounterGroup, PerCpuTarget)
{
    Result<CounterGroup> group = CounterGroup::open(specs("cpu-clock,context-switches"), CounterTarget::onCpu(0));
    ASSERT_TRUE(group.ok()) << group.error().message;
    EXPECT_EQ(group->target().describe(), "cpu 0");
    if (group->names().empty()) {
        GTEST_SKIP() << "per-CPU counting not permitted: " << group->unsupported().front().reason;
    }
    const CounterReading before = readOrFail(*group);
    std::this_thread::sleep_for(std::chrono::milliseconds(20));
    const CounterReading after = readOrFail(*group);
    EXPECT_GT(delta(before, after)[0], 0.0);
}

TEST(CounterGroup, InvalidTargetsFail)
{
    EXPECT_FALSE(CounterGroup::open(specs("task-clock"), CounterTarget::onCpu(9999)).ok());
    EXPECT_FALSE(CounterGroup::open(specs("task-clock"), CounterTarget::onCpu(-2)).ok());
    EXPECT_FALSE(CounterGroup::open(specs("task-clock"), CounterTarget::thread(-5)).ok());

    long pidMax = 4194304;
    std::ifstream("/proc/sys/kernel/pid_max") >> pidMax;  // thread ids are below pid_max
    Result<CounterGroup> noThread =
        CounterGroup::open(specs("task-clock"), CounterTarget::thread(static_cast<pid_t>(pidMax)));
    ASSERT_FALSE(noThread.ok());
    EXPECT_NE(noThread.error().message.find(std::to_string(pidMax)), std::string::npos) << noThread.error().message;
}

TEST(CounterGroup, MoveKeepsCountersValid)
{
    CounterGroup first = openOrFail("task-clock,page-faults");
    const CounterReading before = readOrFail(first);
    CounterGroup second(std::move(first));
    CounterReading unused;
    EXPECT_FALSE(first.read(unused).ok());  // NOLINT(bugprone-use-after-move): moved-from reports an error
    EXPECT_TRUE(first.names().empty());
    CounterGroup third = openOrFail("context-switches");
    third = std::move(second);
    ASSERT_EQ(baseNames(third), (std::vector<std::string>{"task-clock", "page-faults"}));
    spinFor(std::chrono::milliseconds(5));
    const CounterReading after = readOrFail(third);
    EXPECT_GT(delta(before, after)[0], 0.0);
}

TEST(CounterGroup, TscEventOpensWhereMsrPmuExists)
{
    if (!std::filesystem::exists("/sys/bus/event_source/devices/msr/events/tsc")) {
        GTEST_SKIP() << "no msr PMU with a tsc event";
    }
    CounterGroup group = openOrFail("task-clock,tsc,context-switches");
    const int tsc = indexOf(group, "tsc");
    const int taskClock = indexOf(group, "task-clock");
    if (tsc < 0 && reasonFor(group, "tsc").find("not permitted") != std::string::npos) {
        GTEST_SKIP() << "tsc event not permitted: " << reasonFor(group, "tsc");
    }
    ASSERT_GE(tsc, 0) << reasonFor(group, "tsc");
    ASSERT_GE(taskClock, 0);
    const CounterReading before = readOrFail(group);
    spinFor(std::chrono::milliseconds(20));
    const CounterReading after = readOrFail(group);
    const std::vector<double> d = delta(before, after);
    EXPECT_GT(d[static_cast<std::size_t>(tsc)], 0.0);
    EXPECT_DOUBLE_EQ(countedShares(before, after)[static_cast<std::size_t>(tsc)], 1.0);
    // Both count while this thread runs: TSC ticks per task-clock ns is the TSC rate in GHz.
    const double ghz = d[static_cast<std::size_t>(tsc)] / d[static_cast<std::size_t>(taskClock)];
    EXPECT_GT(ghz, 0.1);
    EXPECT_LT(ghz, 20.0);

    CounterGroup alone = openOrFail("tsc");
    EXPECT_EQ(alone.names(), (std::vector<std::string>{"tsc"}));
}

// Without privilege and with perf_event_paranoid >= 2 the kernel refuses kernel-mode counting; the
// counter is then opened user-only, keeps its name and is listed in userOnly(). Checked in a child
// that drops root.
TEST(CounterGroup, KernelRefusalFallsBackToUserOnly)
{
    int paranoid = -1;
    std::ifstream("/proc/sys/kernel/perf_event_paranoid") >> paranoid;
    if (geteuid() != 0 || paranoid < 2) {
        GTEST_SKIP() << "needs root (to drop privileges in a child) and perf_event_paranoid >= 2";
    }
    GTEST_FLAG_SET(death_test_style, "threadsafe");
    EXPECT_EXIT(
        {
            if (setresgid(65534, 65534, 65534) != 0 || setresuid(65534, 65534, 65534) != 0) {
                std::_Exit(2);
            }
            Result<CounterGroup> group = CounterGroup::open(specs("task-clock"), CounterTarget::callingThread());
            const bool marked = group.ok() && group->names() == std::vector<std::string>{"task-clock"} &&
                                group->userOnly() == std::vector<std::string>{"task-clock"};
            CounterReading reading = marked ? group->reading() : CounterReading{};
            std::_Exit(marked && group->read(reading).ok() ? 0 : 1);
        },
        ::testing::ExitedWithCode(0), "");
}

// In user mode only hardware events exclude the kernel: the software events the clean-chunk rule
// reads (context-switches above all) happen in the kernel and would count 0 with exclude_kernel,
// which would silently switch the rule off. The thread sleeps inside the counted region, so it is
// switched out at every sleep.
TEST(CounterGroup, UserModeStillCountsContextSwitchesAndTaskClock)
{
    Result<CounterGroup> group =
        CounterGroup::open(specs("cycles,context-switches,cpu-migrations,task-clock,page-faults"),
                           CounterTarget::callingThread(), nullptr, CounterMode::User);
    ASSERT_TRUE(group.ok()) << group.error().message;
    EXPECT_EQ(group->mode(), CounterMode::User);
    EXPECT_TRUE(group->userOnly().empty()) << "user mode was asked for, nothing was refused";
    const int switches = indexOf(*group, "context-switches");
    const int taskClock = indexOf(*group, "task-clock");
    ASSERT_GE(switches, 0) << reasonFor(*group, "context-switches");
    ASSERT_GE(taskClock, 0) << reasonFor(*group, "task-clock");
    const CounterReading before = readOrFail(*group);
    constexpr int kSleeps = 20;
    for (int i = 0; i < kSleeps; ++i) {
        std::this_thread::sleep_for(std::chrono::microseconds(200));
    }
    const CounterReading after = readOrFail(*group);
    const std::vector<double> d = delta(before, after);
    EXPECT_GE(d[static_cast<std::size_t>(switches)], kSleeps) << "every sleep switches the thread out";
    EXPECT_GT(d[static_cast<std::size_t>(taskClock)], 0.0);
}

// The same with the simulated PMU: its made-up hardware events take the mode as stated, and the
// kernel's software events still count the switches.
TEST(CounterGroup, UserModeWithSimulatedPmuStillCountsContextSwitches)
{
    std::atomic<std::uint64_t> operations{0};
    SimulatedPmu pmu;
    pmu.tscHz = 1e9;
    pmu.operations = &operations;
    Result<CounterGroup> group =
        CounterGroup::open(specs("cycles,context-switches"), CounterTarget::callingThread(), &pmu, CounterMode::User);
    ASSERT_TRUE(group.ok()) << group.error().message;
    EXPECT_TRUE(group->simulated());
    EXPECT_EQ(group->mode(), CounterMode::User);
    const int switches = indexOf(*group, "context-switches");
    ASSERT_GE(switches, 0);
    ASSERT_GE(indexOf(*group, "cycles"), 0);
    const CounterReading before = readOrFail(*group);
    for (int i = 0; i < 10; ++i) {
        std::this_thread::sleep_for(std::chrono::microseconds(200));
    }
    const CounterReading after = readOrFail(*group);
    EXPECT_GE(delta(before, after)[static_cast<std::size_t>(switches)], 10.0);
}

// Where a PMU exists: cycles in user mode leave out the kernel's cycles of a loop of system calls,
// which in user and kernel mode are most of them.
TEST(CounterGroup, UserModeLeavesTheKernelsCyclesOut)
{
    Result<CounterGroup> user =
        CounterGroup::open(specs("cycles"), CounterTarget::callingThread(), nullptr, CounterMode::User);
    Result<CounterGroup> all =
        CounterGroup::open(specs("cycles"), CounterTarget::callingThread(), nullptr, CounterMode::UserAndKernel);
    ASSERT_TRUE(user.ok() && all.ok());
    if (indexOf(*user, "cycles") < 0 || indexOf(*all, "cycles") < 0) {
        GTEST_SKIP() << "no hardware PMU: " << reasonFor(*all, "cycles");
    }
    const CounterReading userBefore = readOrFail(*user);
    const CounterReading allBefore = readOrFail(*all);
    for (int i = 0; i < 200000; ++i) {
        static_cast<void>(syscall(SYS_getppid));
    }
    const double userCycles = delta(userBefore, readOrFail(*user))[0];
    const double allCycles = delta(allBefore, readOrFail(*all))[0];
    EXPECT_GT(userCycles, 0.0);
    EXPECT_LT(userCycles, 0.5 * allCycles) << "user " << userCycles << ", user and kernel " << allCycles;
}

TEST(CounterGroup, DeltaSubtractsPerCounter)
{
    CounterReading a{{1, 10, 100}, {5, 5, 5}, {5, 5, 5}, {}};
    CounterReading b{{3, 15, 100}, {9, 9, 9}, {9, 9, 9}, {}};
    EXPECT_EQ(delta(a, b), (std::vector<double>{2, 5, 0}));
    EXPECT_TRUE(delta(CounterReading{}, b).empty());
}

TEST(CounterTarget, Describes)
{
    EXPECT_EQ(CounterTarget::thread(1234).describe(), "thread 1234");
    EXPECT_EQ(CounterTarget::onCpu(3).describe(), "cpu 3");
    EXPECT_FALSE(CounterTarget::callingThread().describe().empty());
}

}  // namespace
}  // namespace nf::probes
