#pragma once
// What the interfaces a live test runs over are set to: offloads, channels, rings, coalescing, XDP
// mode, RPS and XPS masks and IRQ affinity, one entry per setting and interface ("veth1 gro" ->
// "on"). A setting the device or this machine cannot report (veth has no coalescing, a device in
// another network namespace no /sys entries here) reads "unavailable", never a value: a comparison
// of two readings (engine/analysis/validity.h) then sees no change where there was nothing to see.

#include <string>
#include <vector>

#include "engine/run/workload.h"

namespace nf::engine::net {

struct TestedDevice {
    int nsFd = -1;  // its network namespace; -1: the caller's
    std::string ifname{};
};

// The value every setting that cannot be read has.
inline constexpr const char* kUnavailable = "unavailable";

// Reads every device's settings (entering its namespace on the calling thread for the ethtool and
// netlink requests), and those of the CPUs it can (scaling governor and boost, in
// engine/run/environment's cpuState, are not read here).
TestedState readTestedState(const std::vector<TestedDevice>& devices);

}  // namespace nf::engine::net
