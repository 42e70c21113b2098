// `noisefloor check`: each check says what was found, and how to fix what adds noise or is missing.

#include <algorithm>
#include <cstdio>

#include "base/default_counters.h"
#include "engine/run/environment.h"
#include "probes/kernel_identity.h"

namespace nf::engine {

namespace {

using Level = MachineCheck::Level;

bool hasCap(const base::SystemFacts& f, const std::string& cap)
{
    return std::find(f.capabilities.begin(), f.capabilities.end(), cap) != f.capabilities.end();
}

std::string joined(const std::vector<std::string>& xs)
{
    std::string out;
    for (const auto& x : xs) {
        out += (out.empty() ? "" : ", ") + x;
    }
    return out;
}

MachineCheck counterCheck(const char* name, const std::vector<std::string>& events, probes::CounterTarget target,
                          const std::string& fix)
{
    std::vector<probes::EventSpec> specs;
    for (const auto& e : events) {
        if (auto s = probes::resolveEvent(e)) {
            specs.push_back(*s);
        }
    }
    auto group = probes::CounterGroup::open(specs, target);
    if (!group) {
        return {name, Level::Fail, group.error().message, fix};
    }
    if (group->unsupported().empty()) {
        return {name, Level::Ok, joined(group->names()) + " count on " + target.describe(), ""};
    }
    const auto& first = group->unsupported().front();
    std::string detail = "unavailable on " + target.describe() + ": " + first.name + ": " + first.reason;
    if (!group->names().empty()) {
        detail += " (" + joined(group->names()) + " do count)";
    }
    return {name, Level::Fail, detail, fix};
}

MachineCheck tscCheck()
{
    auto tsc = probes::TscClock::calibrate(0.05);
    if (!tsc) {
        return {"TSC", Level::Fail, tsc.error().message, "run on x86-64 with an invariant TSC"};
    }
    if (!tsc->calibration().invariant) {
        return {"TSC", Level::Warn, tsc->describe() + "; not invariant (constant_tsc/nonstop_tsc missing)",
                "tsc_per_op then varies with frequency changes: pin the governor and disable boost"};
    }
    return {"TSC", Level::Ok, tsc->describe(), ""};
}

void addFrequencyChecks(const base::SystemFacts& f, std::vector<MachineCheck>& out)
{
    std::vector<int> notPerformance;
    bool anyGovernor = false;
    for (const auto& c : f.cpus) {
        anyGovernor = anyGovernor || !c.governor.empty();
        if (!c.governor.empty() && c.governor != "performance") {
            notPerformance.push_back(c.id);
        }
    }
    if (!anyGovernor) {
        out.push_back({"frequency governor", Level::Info,
                       "no cpufreq driver: frequency is set by the hypervisor or firmware", ""});
    } else if (!notPerformance.empty()) {
        out.push_back({"frequency governor", Level::Warn,
                       "CPUs " + base::formatCpuList(notPerformance) + " are not on the performance governor",
                       "cpupower frequency-set -g performance"});
    } else {
        out.push_back({"frequency governor", Level::Ok, "performance on every CPU", ""});
    }
    if (f.boost == "on") {
        out.push_back({"turbo/boost", Level::Warn, "boost is on: the clock moves with temperature and load",
                       "echo 0 > /sys/devices/system/cpu/cpufreq/boost (intel_pstate: echo 1 > "
                       "/sys/devices/system/cpu/intel_pstate/no_turbo)"});
    } else if (f.boost == "off") {
        out.push_back({"turbo/boost", Level::Ok, "boost is off", ""});
    } else {
        out.push_back({"turbo/boost", Level::Info, "boost state not exposed on this machine", ""});
    }
}

void addPlacementChecks(const base::SystemFacts& f, std::vector<MachineCheck>& out)
{
    if (f.onlineCpus.size() < 2) {
        out.push_back({"CPUs", Level::Warn, "one CPU online: the worker shares it with everything else",
                       "use a machine with at least 2 CPUs"});
    } else {
        out.push_back({"CPUs", Level::Info,
                       std::to_string(f.onlineCpus.size()) + " online (" + base::formatCpuList(f.onlineCpus) +
                           "), this process may use " + base::formatCpuList(f.allowedCpus),
                       ""});
    }
    if (f.smtActive) {
        out.push_back({"SMT", Level::Warn, "SMT siblings share a core's execution units",
                       "keep the worker's sibling idle (see smt_siblings), or echo off > "
                       "/sys/devices/system/cpu/smt/control"});
    } else {
        out.push_back({"SMT", Level::Ok, "no SMT siblings active", ""});
    }
    if (f.isolatedCpus.empty() && f.nohzFullCpus.empty()) {
        out.push_back({"CPU isolation", Level::Info,
                       "no isolcpus or nohz_full: the scheduler may run other tasks "
                       "and the tick on the measuring CPU",
                       "boot with isolcpus=N nohz_full=N rcu_nocbs=N and measure on CPU N"});
    } else {
        out.push_back(
            {"CPU isolation", Level::Ok,
             "isolated: " + base::formatCpuList(f.isolatedCpus) + ", nohz_full: " + base::formatCpuList(f.nohzFullCpus),
             ""});
    }
    const double perCpu =
        f.onlineCpus.empty() ? f.loadAverage1 : f.loadAverage1 / static_cast<double>(f.onlineCpus.size());
    char load[64];
    (void)std::snprintf(load, sizeof load, "load average %.2f", f.loadAverage1);
    out.push_back({"load", perCpu > 0.5 ? Level::Warn : Level::Ok, load,
                   perCpu > 0.5 ? "other work competes for the CPUs: stop it, or measure on an idle CPU" : ""});
    if (f.hypervisor) {
        out.push_back({"hypervisor", Level::Warn,
                       "running in a virtual machine: host activity and steal time add noise",
                       "compare variants within one run (noisefloor interleaves them); prefer bare metal for "
                       "absolute numbers"});
    }
}

void addPrivilegeChecks(const base::SystemFacts& f, std::vector<MachineCheck>& out)
{
    std::vector<std::string> missing;
    for (const char* cap : {"CAP_PERFMON", "CAP_NET_ADMIN", "CAP_BPF"}) {
        if (!hasCap(f, cap)) {
            missing.emplace_back(cap);
        }
    }
    out.push_back({"capabilities", missing.empty() ? Level::Ok : Level::Warn,
                   missing.empty() ? "holds " + joined(f.capabilities) : "missing " + joined(missing),
                   missing.empty() ? "" : "run as root, or setcap cap_perfmon,cap_net_admin,cap_bpf+ep on the binary"});
    out.push_back({"perf_event_paranoid",
                   f.perfEventParanoid <= 1 || hasCap(f, "CAP_PERFMON") ? Level::Ok : Level::Warn,
                   std::to_string(f.perfEventParanoid) +
                       (f.perfEventParanoid >= 2 ? " (kernel-mode counting needs CAP_PERFMON)" : ""),
                   f.perfEventParanoid >= 2 && !hasCap(f, "CAP_PERFMON") ? "sysctl kernel.perf_event_paranoid=1" : ""});
    if (!f.lockdown.empty() && f.lockdown != "none") {
        out.push_back({"kernel lockdown", Level::Info, "lockdown=" + f.lockdown + ": BPF trampolines are refused", ""});
    }
}

// Which kernel this is (two builds of one release share uname -r), and the spectre_v2 mitigation:
// whether the kernel's indirect calls are retpolines decides what a patch like seed 001's (an
// indirect call made direct) can win at all, which the indirect-call workload models in user space.
void addKernelChecks(std::vector<MachineCheck>& out)
{
    const auto id = probes::readKernelIdentity();
    out.push_back({"kernel build", id.buildId.empty() ? Level::Warn : Level::Ok, id.describe(),
                   id.buildId.empty() ? "without a GNU build-id note, campaigns cannot tell two builds apart" : ""});
    const std::string spectre = id.vulnerabilities.contains("spectre_v2") ? id.vulnerabilities.at("spectre_v2") : "";
    out.push_back({"spectre_v2 (indirect-call)", Level::Info,
                   spectre.empty() ? "not reported by this kernel"
                                   : spectre + (id.spectreV2() == "retpolines"
                                                    ? ": the kernel's indirect calls go through retpolines, as "
                                                      "indirect-call's call=retpoline does"
                                                    : ": no retpolines; the kernel's indirect calls are plain "
                                                      "(call=indirect models them)"),
                   ""});
}

}  // namespace

std::vector<MachineCheck> checkMachine(const base::SystemFacts& f)
{
    std::vector<MachineCheck> out;
    out.push_back(counterCheck("hardware counters", base::defaultCounterNames(true),
                               probes::CounterTarget::callingThread(),
                               "run on bare metal or in a VM with a virtual PMU; until then cycles, IPC and "
                               "branch misses are not measured (TSC and software counters still are). "
                               "--pmu simulated makes counts up to test noisefloor itself: it is not a PMU"));
    out.push_back(counterCheck("software counters", base::defaultCounterNames(false),
                               probes::CounterTarget::callingThread(), "check perf_event_paranoid and CAP_PERFMON"));
    if (!f.onlineCpus.empty()) {
        out.push_back(counterCheck("per-CPU counters", {"task-clock"},
                                   probes::CounterTarget::onCpu(f.onlineCpus.front()),
                                   "needs CAP_PERFMON (or root), or kernel.perf_event_paranoid <= 0"));
    }
    out.push_back(tscCheck());
    addFrequencyChecks(f, out);
    addPlacementChecks(f, out);
    addPrivilegeChecks(f, out);
    addKernelChecks(out);
    return out;
}

}  // namespace nf::engine
