#pragma once
// `iface-rx`: what a real interface receives from an external sender (sar -n DEV's job): the
// interface's packet, byte and drop counters and per-CPU counters, sampled every interval. Sends
// nothing.

#include "workload.h"

namespace nf::engine::workloads {

WorkloadInfo ifaceRxInfo();

}  // namespace nf::engine::workloads
