#pragma once
// `xdp-rx`: AF_XDP receive (rxdrop or l2fwd) through libxdp's xsk API on the tool's own veth
// testbed (or, only when named, a real interface), fed by a pinned generator; packets per second,
// XDP socket statistics, the application's own statistics and counters per packet.

#include "workload.h"

namespace nf::engine::workloads {

WorkloadInfo xdpRxInfo();

}  // namespace nf::engine::workloads
