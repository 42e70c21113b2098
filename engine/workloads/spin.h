#pragma once
// `spin`: the calibration workload. Each call runs a chain of `work` dependent integer operations,
// so its cost is linear in `work` and the compiler cannot fold it.

#include "workload.h"

namespace nf::engine::workloads {

WorkloadInfo spinInfo();

}  // namespace nf::engine::workloads
