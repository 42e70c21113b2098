#pragma once
// What the measured CPUs are set to, read with a live test's interfaces before and after each
// repetition: each CPU's cpufreq scaling governor and the machine's boost (turbo) switch. Where
// this machine has no cpufreq (a VM) they read "unavailable", not a value.

#include <vector>

#include "engine/run/workload.h"

namespace nf::engine {

// "cpu1 governor" -> "performance", "boost" -> "on" (base/system_facts.h reads them).
TestedState readCpuSettings(const std::vector<int>& cpus);

}  // namespace nf::engine
