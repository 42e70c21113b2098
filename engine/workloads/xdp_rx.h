#pragma once
// `xdp-rx`: AF_XDP receive (rxdrop or l2fwd) through libxdp's xsk API on the tool's own veth
// testbed (or, only when named, a real interface), fed by a pinned generator; packets per second,
// XDP socket statistics, the application's own statistics and counters per packet.

#include "engine/run/workload.h"

namespace nf::engine::workloads {

// The implementation of catalogue entry engine/catalog/xdp_rx.cpp: one per variant.
Result<std::unique_ptr<LiveSession>> makeXdpRx(const ParamSet& params);

// Every variant side by side, a testbed each (engine/workloads/xdp_rx_group.cpp), for runs in
// chunks: the catalogue's chunkBlocker has checked that they differ only in AF_XDP application
// settings.
Result<std::unique_ptr<LiveGroup>> makeXdpRxGroup(const std::vector<ParamSet>& params);

}  // namespace nf::engine::workloads
