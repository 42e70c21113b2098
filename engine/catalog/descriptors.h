#pragma once
// One function per workload, each in its own file of engine/catalog/: the workload's description,
// parameters and checks. A new workload is described here and implemented in engine/workloads/.

#include "engine/catalog/workload_catalog.h"

namespace nf::engine::catalog {

WorkloadDescriptor spin();
WorkloadDescriptor indirectCall();
WorkloadDescriptor pagePool();
WorkloadDescriptor pageFrag();
WorkloadDescriptor udpRx();
WorkloadDescriptor xdpRx();
WorkloadDescriptor ifaceRx();
WorkloadDescriptor command();

}  // namespace nf::engine::catalog
