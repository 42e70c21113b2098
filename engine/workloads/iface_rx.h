#pragma once
// `iface-rx`: what a real interface receives from an external sender (sar -n DEV's job): the
// interface's packet, byte and drop counters and per-CPU counters, sampled every interval. Sends
// nothing.

#include "engine/run/workload.h"

namespace nf::engine::workloads {

// The implementation of catalogue entry engine/catalog/iface_rx.cpp: one per variant.
Result<std::unique_ptr<LiveSession>> makeIfaceRx(const ParamSet& params);

}  // namespace nf::engine::workloads
