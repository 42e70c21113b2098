#pragma once
// The CPUs a live test may run its threads on, pinning, and the capabilities it needs.

#include <string>
#include <vector>

#include "base/result.h"

namespace nf::engine::net {

// CPUs this process may run on (its affinity mask: offline CPUs are never in it).
std::vector<int> allowedCpus();

// Pins the calling thread to `cpu`.
Result<void> pinThread(int cpu);

// Whether the process holds an effective capability (CAP_NET_ADMIN, CAP_SYS_ADMIN, ...).
bool hasCapability(int cap);

// An error naming the missing capabilities a live workload needs, or ok.
Result<void> requireNetworkCapabilities(const std::string& workload);

}  // namespace nf::engine::net
