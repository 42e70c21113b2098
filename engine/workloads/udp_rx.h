#pragma once
// `udp-rx`: a UDP receiver pinned to rx_cpu on the tool's own testbed, fed by a pinned generator;
// packets per second, drops, the generator's rate and counters per packet, sampled every interval.

#include "engine/run/workload.h"

namespace nf::engine::workloads {

// The implementation of catalogue entry engine/catalog/udp_rx.cpp: one per variant.
Result<std::unique_ptr<LiveSession>> makeUdpRx(const ParamSet& params);

// Every variant side by side on one testbed (engine/workloads/udp_rx_group.cpp), for runs in
// chunks: the catalogue's chunkBlocker has checked that they differ only in receiver settings.
Result<std::unique_ptr<LiveGroup>> makeUdpRxGroup(const std::vector<ParamSet>& params);

}  // namespace nf::engine::workloads
