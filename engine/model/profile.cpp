#include "engine/model/profile.h"

namespace nf::engine {

std::map<int, std::map<std::string, long long>> RunProfile::foldedByVariant(bool cpuFrame) const
{
    std::map<int, std::map<std::string, long long>> out;
    for (const auto& s : stacks) {
        const std::string prefix = cpuFrame ? "cpu" + std::to_string(s.cpu) + "-" + roleOf(s.cpu) + ";" : "";
        out[s.variant][prefix + s.stack] += s.samples;
    }
    return out;
}

}  // namespace nf::engine
