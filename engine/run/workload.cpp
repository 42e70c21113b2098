#include "engine/run/workload.h"

namespace nf::engine {

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
