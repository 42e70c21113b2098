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

// A thread's scheduler statistics (/proc/self/task/TID/schedstat): its time on a CPU, its time
// waiting on a run queue, runnable but not running (beside its CPU time it tells a thread that had
// nothing to do from one that had to wait for the CPU), and how often it was put on a CPU (its
// wakeups and the preemptions it came back from).
struct SchedStat {
    std::uint64_t runNs = 0;
    std::uint64_t waitNs = 0;
    std::uint64_t timeslices = 0;
};

// Unset when it cannot be read (the thread is gone, no schedstats in this kernel).
std::optional<SchedStat> readSchedStat(pid_t tid);

}  // namespace nf::probes
