#pragma once
// `spin`: the calibration workload. Each call runs a chain of `work` dependent integer operations,
// so its cost is linear in `work` and the compiler cannot fold it.

#include "engine/run/workload.h"

namespace nf::engine::workloads {

// The implementation of catalogue entry engine/catalog/spin.cpp: one per variant.
Result<std::unique_ptr<CallLoop>> makeSpin(const ParamSet& params);

}  // namespace nf::engine::workloads
