#pragma once
// The environment of a run as JSON, and `noisefloor check`: what this machine can measure and what
// adds noise, each with the reason and how to fix it.

#include <nlohmann/json.hpp>
#include <string>
#include <string_view>
#include <vector>

#include "base/system_facts.h"
#include "probes/counter_group.h"
#include "probes/kernel_identity.h"
#include "probes/tsc_clock.h"

namespace nf::engine {

nlohmann::json systemFactsJson(const base::SystemFacts& facts);
// The CPUs a run could measure on, for a front end choosing them on another host (`check --cpus`):
// {"online", "allowed", "cpus": [{"id", "core", "package", "siblings"}]}, lists as "0-3,8".
nlohmann::json cpuTopologyJson(const base::SystemFacts& facts);
// The running kernel's identity (probes/kernel_identity.h), as every run and campaign boot stores it
// (environment "kernel"): build_id, boot_id, release, version, config_sha256, config_source,
// cmdline, microcode, vulnerabilities (file -> text), sysroot ("" on a real system).
nlohmann::json kernelIdentityJson(const probes::KernelIdentity& identity);
nlohmann::json tscJson(const probes::TscCalibration& cal);
// What opened, what did not and why, where they count, in which mode the hardware events count
// ("mode": "user" or "all", --counters-mode) and which counted user mode only because the kernel
// refused more, and with the simulated PMU its settings and rates.
nlohmann::json countersJson(const probes::CounterGroup& group, const probes::SimulatedPmu* simulated = nullptr);

struct MachineCheck {
    enum class Level { Ok, Info, Warn, Fail };
    std::string name;  // "hardware counters"
    Level level = Level::Info;
    std::string detail;  // what was found
    std::string fix;     // what to do about it; "" when nothing is needed
};

std::string_view toString(MachineCheck::Level level);

// Runs the checks: opens test counters (thread and per-CPU), calibrates the TSC, reads the facts.
std::vector<MachineCheck> checkMachine(const base::SystemFacts& facts);
nlohmann::json toJson(const std::vector<MachineCheck>& checks);

}  // namespace nf::engine
