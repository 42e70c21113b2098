#pragma once
// Facts about this machine that decide what can be measured and what adds noise.

#include <string>
#include <vector>

namespace nf::base {

struct CpuInfo {
    int id = 0;
    int core = -1;              // topology/core_id
    int package = -1;           // topology/physical_package_id
    std::vector<int> siblings;  // SMT siblings including itself (thread_siblings_list)
    std::string governor;       // cpufreq scaling_governor, "" where cpufreq is absent
};

struct SystemFacts {
    std::string hostname;
    std::string kernelRelease;          // uname -r
    std::string kernelVersion;          // uname -v (build string)
    std::string cpuModel;               // /proc/cpuinfo "model name"
    std::vector<std::string> cpuFlags;  // the flags of interest present: hypervisor, constant_tsc, nonstop_tsc, rdtscp
    bool hypervisor = false;
    std::vector<int> onlineCpus;            // /sys/devices/system/cpu/online
    std::vector<int> allowedCpus;           // this process's affinity mask
    std::vector<CpuInfo> cpus;              // one per online CPU
    bool smtActive = false;                 // /sys/devices/system/cpu/smt/active, or siblings > 1
    std::string boost;                      // "on", "off", or "" when unknown (cpufreq/boost, intel_pstate/no_turbo)
    std::vector<int> isolatedCpus;          // /sys/devices/system/cpu/isolated
    std::vector<int> nohzFullCpus;          // /sys/devices/system/cpu/nohz_full
    std::string kernelCmdline;              // /proc/cmdline
    int perfEventParanoid = 99;             // /proc/sys/kernel/perf_event_paranoid
    std::string lockdown;                   // readKernelLockdown()
    std::vector<std::string> capabilities;  // effective caps of interest held: CAP_NET_ADMIN, CAP_SYS_ADMIN, CAP_BPF,
                                            // CAP_PERFMON, CAP_NET_RAW
    double loadAverage1 = 0;                // /proc/loadavg
    long memTotalKiB = 0;
    bool msrTscEvent = false;  // /sys/bus/event_source/devices/msr/events/tsc exists
    bool hardwarePmu = false;  // a cpu PMU is registered (/sys/bus/event_source/devices/cpu or cpu_core)
};

// CPU `cpu`'s cpufreq scaling governor, "" where cpufreq is absent.
std::string readGovernor(int cpu);
// The boost (turbo) switch: "on", "off", or "" when unknown (cpufreq/boost, intel_pstate/no_turbo).
std::string readBoost();

// The kernel's lockdown mode ("none", "integrity", "confidentiality"), "" when unknown. Reads
// /sys/kernel/security/lockdown; when securityfs is not mounted there and the process holds
// CAP_SYS_ADMIN, reads it in a child's private mount namespace, changing nothing outside it.
std::string readKernelLockdown();

// Reads everything above; a file that is absent leaves its field empty rather than failing.
SystemFacts readSystemFacts();

// Only the CPUs: online, allowed and their topology (what an experiment's check needs). Cheap, and
// starts no process.
SystemFacts readCpuFacts();

// Parses a kernel CPU list such as "0-3,8,10-11" (also used for --cpu). Returns empty on malformed.
std::vector<int> parseCpuList(const std::string& text, bool* ok = nullptr);
std::string formatCpuList(const std::vector<int>& cpus);  // the inverse: "0-3,8"

}  // namespace nf::base
