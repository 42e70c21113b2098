#include "engine/run/workload.h"

#include <algorithm>

namespace nf::engine {

std::vector<std::string> nonEmpty(std::vector<std::string> lines)
{
    std::erase_if(lines, [](const std::string& s) { return s.empty(); });
    return lines;
}

const WorkloadImplementation* findImplementation(const WorkloadImplementations& implementations, std::string_view name)
{
    for (const auto& i : implementations) {
        if (i.name == name) {
            return &i;
        }
    }
    return nullptr;
}

}  // namespace nf::engine
