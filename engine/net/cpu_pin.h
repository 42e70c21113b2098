#pragma once
// Checks and pinning of the CPUs a live test runs its threads on.

#include <string>
#include <vector>

#include "result.h"

namespace nf::engine::net {

// CPUs this process may run on (its affinity mask: offline CPUs are never in it).
std::vector<int> allowedCpus();

// Fails with "<param>=<cpu>: CPU <cpu> is offline or not allowed (allowed: 0-1)" unless allowed.
Result<void> checkCpu(const std::string& param, int cpu);

// "auto" -> `automatic`, "none" -> {}, else a CPU list ("0-3,8") whose CPUs must all be allowed.
Result<std::vector<int>> parseCounterCpus(const std::string& text, const std::vector<int>& automatic);

// Pins the calling thread to `cpu`.
Result<void> pinThread(int cpu);

// Whether the process holds an effective capability (CAP_NET_ADMIN, CAP_SYS_ADMIN, ...).
bool hasCapability(int cap);

// An error naming the missing capabilities a live workload needs, or ok.
Result<void> requireNetworkCapabilities(const std::string& workload);

}  // namespace nf::engine::net
