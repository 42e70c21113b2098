#pragma once
// `xdp-rx`: AF_XDP receive (rxdrop or l2fwd) through libxdp's xsk API on the tool's own veth
// testbed (or, only when named, a real interface), fed by a pinned generator; packets per second,
// XDP socket statistics, the application's own statistics and counters per packet.

#include "engine/run/workload.h"

namespace nf::engine::workloads {

// The implementation of catalogue entry engine/catalog/xdp_rx.cpp: one per variant.
Result<std::unique_ptr<LiveSession>> makeXdpRx(const ParamSet& params);

}  // namespace nf::engine::workloads
