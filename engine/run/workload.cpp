#include "engine/run/workload.h"

#include <algorithm>

#include "engine/catalog/workload_catalog.h"

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

Result<const WorkloadImplementation*> findImplementation(const WorkloadImplementations& implementations,
                                                         const WorkloadDescriptor& workload)
{
    if (workload.kind == WorkloadKind::External) {
        return nullptr;
    }
    const auto* found = findImplementation(implementations, workload.name);
    const bool usable = found != nullptr && (workload.kind == WorkloadKind::Live ? static_cast<bool>(found->makeLive)
                                                                                 : static_cast<bool>(found->make));
    if (!usable) {
        return Error{"workload " + workload.name + " has no measuring implementation in this build"};
    }
    return found;
}

}  // namespace nf::engine
