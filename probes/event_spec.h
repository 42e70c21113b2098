#pragma once
// Names of counters and how they map to perf_event_attr.

#include <cstdint>
#include <string>
#include <string_view>
#include <vector>

#include "base/result.h"

namespace nf::probes {

// One counter a user can ask for, resolved to what perf_event_open needs.
struct EventSpec {
    std::string name;          // as the user wrote it: "cycles", "task-clock", "tsc", "r01c2"
    std::uint32_t type = 0;    // perf_event_attr.type
    std::uint64_t config = 0;  // perf_event_attr.config
    std::uint64_t config1 = 0;
    std::uint64_t config2 = 0;
    bool hardware = false;  // needs a PMU counter (groups of these are limited in size)
    std::string unit;       // "ns" for task-clock, "" for counts
};

// The set `--counters` defaults to: base::kDefaultCounters (cycles, instructions, branches,
// branch-misses, cache-misses, task-clock, context-switches, cpu-migrations, page-faults).
std::vector<std::string> defaultEventNames();

// Resolves a name: the generic hardware and software names above (and a few perf aliases such as
// "ref-cycles", "cpu-clock", "minor-faults"), "tsc" (the msr PMU's TSC event, from sysfs), and
// anything else through libpfm4 (named PMU events like "l1d_pend_miss.pending", raw "r01c2").
// Unknown names give an Error that names the event.
Result<EventSpec> resolveEvent(std::string_view name);

// Splits "cycles,instructions" (also accepts spaces) and resolves each; the first unknown name fails.
Result<std::vector<EventSpec>> resolveEvents(std::string_view commaList);

}  // namespace nf::probes
