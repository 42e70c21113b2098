#pragma once
// `noisefloor check --iface NAME`: the network facts that decide a receive test's noise: driver,
// queues, where their interrupts go, GRO and busy polling, irqbalance, RPS and XPS, and what XDP
// and AF_XDP can use there (net/xdp_check.h).

#include <string>
#include <vector>

#include "base/result.h"
#include "engine/run/environment.h"

namespace nf::engine::net {

// Fails only when the interface does not exist.
Result<std::vector<MachineCheck>> checkInterface(const std::string& iface);

}  // namespace nf::engine::net
