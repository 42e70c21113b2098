#include "engine/model/profile.h"

namespace nf::engine {

std::map<int, std::map<std::string, long long>> RunProfile::foldedByVariant(bool cpuFrame) const
{
    std::map<int, std::map<std::string, long long>> out;
    for (const auto& s : stacks) {
        // A pooled profile (an import of every CPU, or of --cpu's) has no one CPU: its role names it.
        const std::string cpu = s.cpu >= 0 ? "cpu" + std::to_string(s.cpu) + "-" + roleOf(s.cpu) : roleOf(s.cpu);
        const std::string prefix = cpuFrame ? foldedFrame(cpu) + ";" : "";
        out[s.variant][prefix + s.stack] += s.samples;
    }
    return out;
}

}  // namespace nf::engine
