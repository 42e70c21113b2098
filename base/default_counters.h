#pragma once
// The counters a run opens when --counters is not given, in the order they are opened: the one
// list every part reads. probes opens them (defaultEventNames), the catalogue lists the metrics a
// workload gives where they open (workloadMetrics), `noisefloor check` tries them, and the GUI says
// which of them a missing metric needed. It lives in nf_base because the GUI links no probes and
// probes cannot see engine/model.

#include <array>
#include <string>
#include <string_view>
#include <vector>

namespace nf::base {

struct DefaultCounter {
    std::string_view name;  // the perf name: "cycles", "task-clock"
    bool hardware = false;  // a PMU counter (absent in most virtual machines), not a kernel software one
};

inline constexpr std::array<DefaultCounter, 9> kDefaultCounters = {{
    {"cycles", true},
    {"instructions", true},
    {"branches", true},
    {"branch-misses", true},
    {"cache-misses", true},
    {"task-clock", false},
    {"context-switches", false},
    {"cpu-migrations", false},
    {"page-faults", false},
}};

// The names of the default counters, in order: all of them, or only the hardware (or software) ones.
inline std::vector<std::string> defaultCounterNames()
{
    std::vector<std::string> names;
    names.reserve(kDefaultCounters.size());
    for (const auto& c : kDefaultCounters) {
        names.emplace_back(c.name);
    }
    return names;
}

inline std::vector<std::string> defaultCounterNames(bool hardware)
{
    std::vector<std::string> names;
    for (const auto& c : kDefaultCounters) {
        if (c.hardware == hardware) {
            names.emplace_back(c.name);
        }
    }
    return names;
}

}  // namespace nf::base
