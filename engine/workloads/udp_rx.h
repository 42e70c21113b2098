#pragma once
// `udp-rx`: a UDP receiver pinned to rx_cpu on the tool's own testbed, fed by a pinned generator;
// packets per second, drops, the generator's rate and counters per packet, sampled every interval.

#include "workload.h"

namespace nf::engine::workloads {

WorkloadInfo udpRxInfo();

}  // namespace nf::engine::workloads
