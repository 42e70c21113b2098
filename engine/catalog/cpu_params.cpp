#include "engine/catalog/cpu_params.h"

#include <algorithm>

#include "base/system_facts.h"

namespace nf::engine::catalog {

Result<void> checkCpu(const std::string& param, int cpu, const std::vector<int>& allowed)
{
    if (std::find(allowed.begin(), allowed.end(), cpu) == allowed.end()) {
        return Error{param + "=" + std::to_string(cpu) + ": CPU " + std::to_string(cpu) +
                     " is offline or not allowed to this process (allowed: " + base::formatCpuList(allowed) + ")"};
    }
    return {};
}

Result<std::vector<int>> counterCpus(const std::string& text, const std::vector<int>& automatic,
                                     const std::vector<int>& allowed)
{
    if (text == "auto") {
        return automatic;
    }
    if (text == "none") {
        return std::vector<int>{};
    }
    bool ok = false;
    auto cpus = base::parseCpuList(text, &ok);
    if (!ok || cpus.empty()) {
        return Error{"counter_cpus=" + text + ": expected auto, none or a CPU list such as 0-3,8"};
    }
    for (int cpu : cpus) {
        NF_TRY(checkCpu("counter_cpus", cpu, allowed));
    }
    return cpus;
}

}  // namespace nf::engine::catalog
