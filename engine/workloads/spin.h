#pragma once
// `spin`: the calibration workload. Each call runs a chain of `work` dependent integer operations,
// so its cost is linear in `work` and the compiler cannot fold it.

#include <cstddef>
#include <cstdint>

#include "engine/run/workload.h"

namespace nf::engine::workloads {

// The implementation of catalogue entry engine/catalog/spin.cpp: one per variant.
// `placement`: the code placement to run in (engine/workloads/placement.h).
Result<std::unique_ptr<CallLoop>> makeSpin(const ParamSet& params, std::size_t placement = 0);

// Test hook: the value after `calls` calls from 1 in placement `placement`'s copy of the loop.
std::uint64_t spinSelfCheck(std::uint64_t work, std::uint64_t calls, std::size_t placement);

}  // namespace nf::engine::workloads
