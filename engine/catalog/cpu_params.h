#pragma once
// Parameters that name CPUs: checked against the CPUs this process may use.

#include <string>
#include <vector>

#include "base/result.h"

namespace nf::engine::catalog {

// Fails with "<param>=<cpu>: CPU <cpu> is offline or not allowed to this process (allowed: 0-1)"
// unless `cpu` is in `allowed`.
Result<void> checkCpu(const std::string& param, int cpu, const std::vector<int>& allowed);

// counter_cpus: "auto" -> `automatic`, "none" -> {}, else a CPU list ("0-3,8") whose CPUs must all
// be in `allowed`.
Result<std::vector<int>> counterCpus(const std::string& text, const std::vector<int>& automatic,
                                     const std::vector<int>& allowed);

}  // namespace nf::engine::catalog
