#pragma once
// The measuring implementations of the catalogue's workloads (engine/catalog/), for
// prepareExperiment. A new workload: describe it in engine/catalog/NAME.cpp, implement it in
// engine/workloads/NAME.cpp and list it in both indexes.

#include "engine/run/workload.h"

namespace nf::engine::workloads {

const WorkloadImplementations& implementations();

}  // namespace nf::engine::workloads
