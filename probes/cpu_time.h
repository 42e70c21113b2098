#pragma once
// Where each CPU's time went, from /proc/stat: in the application and the kernel on its behalf
// (user, nice, system), in interrupts and softirqs (irq, softirq), and idle (idle, iowait). Live
// tests keep it per counted CPU, so a report can say which CPU did the receive work and whether
// the CPU that should be the bottleneck had time to spare.

#include <sys/types.h>

#include <cstdint>
#include <optional>
#include <string>
#include <vector>

namespace nf::probes {

struct CpuTime {
    int cpu = -1;
    std::uint64_t taskNs = 0;     // user + nice + system
    std::uint64_t softirqNs = 0;  // irq + softirq
    std::uint64_t idleNs = 0;     // idle + iowait
};

// Parses /proc/stat's text: the "cpuN" lines (the summed "cpu" line is skipped), their columns in
// clock ticks of `ticksPerSecond` (sysconf(_SC_CLK_TCK)). Lines that do not parse are skipped.
std::vector<CpuTime> parseCpuTimes(const std::string& text, long ticksPerSecond);

// Reads /proc/stat. Empty when it cannot be read.
std::vector<CpuTime> readCpuTimes();

// How long a thread of this process waited on a run queue, runnable but not running
// (/proc/self/task/TID/schedstat, its second field, in ns): beside its CPU time it tells a thread
// that had nothing to do from one that had to wait for the CPU. Unset when it cannot be read.
std::optional<std::uint64_t> readRunDelayNs(pid_t tid);

}  // namespace nf::probes
