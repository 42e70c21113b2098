#pragma once
// The measuring half of every workload of engine/catalog/workload_list.h whose kind is measured:
// `implementation::FUNCTION()`, defined in engine/workloads/FILE.cpp beside the workload, and the
// list of them all that prepareExperiment takes. A new workload: a line in workload_list.h, its
// description in engine/catalog/FILE.cpp and its implementation in engine/workloads/FILE.cpp.

#include "engine/catalog/workload_list.h"
#include "engine/run/workload.h"

namespace nf::engine::workloads {

namespace implementation {
#define NF_IMPLEMENTATION_DECLARE_InProcess(function) WorkloadImplementation function();
#define NF_IMPLEMENTATION_DECLARE_Live(function) WorkloadImplementation function();
#define NF_IMPLEMENTATION_DECLARE_External(function)
#define NF_IMPLEMENTATION_DECLARE(function, name, kind) NF_IMPLEMENTATION_DECLARE_##kind(function)
NF_WORKLOADS(NF_IMPLEMENTATION_DECLARE)
#undef NF_IMPLEMENTATION_DECLARE
#undef NF_IMPLEMENTATION_DECLARE_External
#undef NF_IMPLEMENTATION_DECLARE_Live
#undef NF_IMPLEMENTATION_DECLARE_InProcess
}  // namespace implementation

// Every measured workload's implementation, named as the list names it, in the list's order.
const WorkloadImplementations& implementations();

}  // namespace nf::engine::workloads
