#include "probes/event_spec.h"

#include <linux/perf_event.h>

#include <gtest/gtest.h>

#include <filesystem>

namespace nf::probes {
namespace {

TEST(EventSpec, DefaultNamesAllResolve)
{
    const std::vector<std::string> names = defaultEventNames();
    ASSERT_EQ(names.size(), 9U);
    EXPECT_EQ(names.front(), "cycles");
    EXPECT_EQ(names.back(), "page-faults");
    for (const std::string& name : names) {
        Result<EventSpec> spec = resolveEvent(name);
        ASSERT_TRUE(spec.ok()) << name << ": " << spec.error().message;
        EXPECT_EQ(spec->name, name);
    }
}

TEST(EventSpec, GenericHardwareNames)
{
    Result<EventSpec> cycles = resolveEvent("cycles");
    ASSERT_TRUE(cycles.ok());
    EXPECT_EQ(cycles->type, static_cast<std::uint32_t>(PERF_TYPE_HARDWARE));
    EXPECT_EQ(cycles->config, static_cast<std::uint64_t>(PERF_COUNT_HW_CPU_CYCLES));
    EXPECT_TRUE(cycles->hardware);
    EXPECT_EQ(cycles->unit, "");

    Result<EventSpec> misses = resolveEvent("branch-misses");
    ASSERT_TRUE(misses.ok());
    EXPECT_EQ(misses->config, static_cast<std::uint64_t>(PERF_COUNT_HW_BRANCH_MISSES));

    for (const char* name : {"ref-cycles", "bus-cycles", "cache-references", "stalled-cycles-frontend",
                             "stalled-cycles-backend", "instructions", "branches", "cache-misses"}) {
        Result<EventSpec> spec = resolveEvent(name);
        ASSERT_TRUE(spec.ok()) << name;
        EXPECT_EQ(spec->type, static_cast<std::uint32_t>(PERF_TYPE_HARDWARE)) << name;
        EXPECT_TRUE(spec->hardware) << name;
    }
}

TEST(EventSpec, GenericSoftwareNamesAndAliases)
{
    Result<EventSpec> taskClock = resolveEvent("task-clock");
    ASSERT_TRUE(taskClock.ok());
    EXPECT_EQ(taskClock->type, static_cast<std::uint32_t>(PERF_TYPE_SOFTWARE));
    EXPECT_EQ(taskClock->config, static_cast<std::uint64_t>(PERF_COUNT_SW_TASK_CLOCK));
    EXPECT_FALSE(taskClock->hardware);
    EXPECT_EQ(taskClock->unit, "ns");
    EXPECT_EQ(resolveEvent("cpu-clock")->unit, "ns");
    EXPECT_EQ(resolveEvent("page-faults")->unit, "");

    EXPECT_EQ(resolveEvent("cs")->config, resolveEvent("context-switches")->config);
    EXPECT_EQ(resolveEvent("migrations")->config, resolveEvent("cpu-migrations")->config);
    EXPECT_EQ(resolveEvent("faults")->config, resolveEvent("page-faults")->config);
    EXPECT_EQ(resolveEvent("minor-faults")->config, static_cast<std::uint64_t>(PERF_COUNT_SW_PAGE_FAULTS_MIN));
    EXPECT_EQ(resolveEvent("major-faults")->config, static_cast<std::uint64_t>(PERF_COUNT_SW_PAGE_FAULTS_MAJ));
}

TEST(EventSpec, RawHex)
{
    Result<EventSpec> raw = resolveEvent("r01c2");
    ASSERT_TRUE(raw.ok()) << raw.error().message;
    EXPECT_EQ(raw->type, static_cast<std::uint32_t>(PERF_TYPE_RAW));
    EXPECT_EQ(raw->config, 0x1c2U);
    EXPECT_TRUE(raw->hardware);
    EXPECT_EQ(raw->name, "r01c2");

    Result<EventSpec> upper = resolveEvent("r53003C");
    ASSERT_TRUE(upper.ok());
    EXPECT_EQ(upper->config, 0x53003cU);
}

TEST(EventSpec, UnknownNameIsAnErrorNamingIt)
{
    Result<EventSpec> spec = resolveEvent("no-such-counter-xyz");
    ASSERT_FALSE(spec.ok());
    EXPECT_NE(spec.error().message.find("'no-such-counter-xyz'"), std::string::npos) << spec.error().message;
    EXPECT_NE(spec.error().message.find("unknown counter"), std::string::npos) << spec.error().message;

    EXPECT_FALSE(resolveEvent("").ok());
    EXPECT_FALSE(resolveEvent("rxyz").ok());
}

TEST(EventSpec, TscFromMsrPmu)
{
    Result<EventSpec> tsc = resolveEvent("tsc");
    if (!std::filesystem::exists("/sys/bus/event_source/devices/msr/events/tsc")) {
        ASSERT_FALSE(tsc.ok());
        EXPECT_NE(tsc.error().message.find("msr"), std::string::npos);
        return;
    }
    ASSERT_TRUE(tsc.ok()) << tsc.error().message;
    EXPECT_GE(tsc->type, static_cast<std::uint32_t>(PERF_TYPE_MAX));  // a dynamic PMU type
    EXPECT_FALSE(tsc->hardware);
    EXPECT_EQ(tsc->name, "tsc");
}

TEST(EventSpec, ResolveEventsSplitsOnCommasAndSpaces)
{
    Result<std::vector<EventSpec>> specs = resolveEvents(" cycles,instructions  task-clock,,\tpage-faults, ");
    ASSERT_TRUE(specs.ok()) << specs.error().message;
    ASSERT_EQ(specs->size(), 4U);
    EXPECT_EQ((*specs)[0].name, "cycles");
    EXPECT_EQ((*specs)[1].name, "instructions");
    EXPECT_EQ((*specs)[2].name, "task-clock");
    EXPECT_EQ((*specs)[3].name, "page-faults");

    Result<std::vector<EventSpec>> empty = resolveEvents("");
    ASSERT_TRUE(empty.ok());
    EXPECT_TRUE(empty->empty());
}

TEST(EventSpec, ResolveEventsRejectsUnknownAndDuplicates)
{
    Result<std::vector<EventSpec>> unknown = resolveEvents("cycles,bogus-event-name");
    ASSERT_FALSE(unknown.ok());
    EXPECT_NE(unknown.error().message.find("'bogus-event-name'"), std::string::npos);

    Result<std::vector<EventSpec>> twice = resolveEvents("cycles,task-clock,cycles");
    ASSERT_FALSE(twice.ok());
    EXPECT_NE(twice.error().message.find("'cycles'"), std::string::npos) << twice.error().message;

    Result<std::vector<EventSpec>> alias = resolveEvents("context-switches cs");
    ASSERT_FALSE(alias.ok());
    EXPECT_NE(alias.error().message.find("'cs'"), std::string::npos) << alias.error().message;
}

// A named event of the host's core PMU through libpfm4; skipped where libpfm4 (or the build) does not
// know the host PMU.
TEST(EventSpec, LibpfmNamedEvent)
{
    const char* candidates[] = {
        "retired_instructions",  // AMD family 17h and later
        "inst_retired:any_p",    // Intel
        "instruction_retired",   // older Intel
        "inst_retired",          // Arm
    };
    for (const char* name : candidates) {
        Result<EventSpec> spec = resolveEvent(name);
        if (!spec.ok()) {
            continue;
        }
        EXPECT_EQ(spec->name, name);
        EXPECT_TRUE(spec->hardware);
        EXPECT_NE(spec->config, 0U);
        return;
    }
    GTEST_SKIP() << "libpfm4 does not know the host PMU (or the build has no libpfm4): "
                 << resolveEvent(candidates[0]).error().message;
}

TEST(EventSpec, LibpfmInvalidAttributeIsAnError)
{
    Result<EventSpec> spec = resolveEvent("retired_instructions:no_such_modifier");
    ASSERT_FALSE(spec.ok());
    EXPECT_NE(spec.error().message.find("retired_instructions:no_such_modifier"), std::string::npos);
}

}  // namespace
}  // namespace nf::probes
