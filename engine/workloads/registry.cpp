#include "engine/workloads/registry.h"

namespace nf::engine::workloads {

namespace {

WorkloadImplementation listed(WorkloadImplementation implementation, std::string name)
{
    implementation.name = std::move(name);
    return implementation;
}

}  // namespace

const WorkloadImplementations& implementations()
{
#define NF_IMPLEMENTATION_ENTRY_InProcess(function, name) listed(implementation::function(), name),
#define NF_IMPLEMENTATION_ENTRY_Live(function, name) listed(implementation::function(), name),
#define NF_IMPLEMENTATION_ENTRY_External(function, name)
#define NF_IMPLEMENTATION_ENTRY(function, name, kind) NF_IMPLEMENTATION_ENTRY_##kind(function, name)
    static const WorkloadImplementations list = {NF_WORKLOADS(NF_IMPLEMENTATION_ENTRY)};
#undef NF_IMPLEMENTATION_ENTRY
#undef NF_IMPLEMENTATION_ENTRY_External
#undef NF_IMPLEMENTATION_ENTRY_Live
#undef NF_IMPLEMENTATION_ENTRY_InProcess
    return list;
}

}  // namespace nf::engine::workloads
