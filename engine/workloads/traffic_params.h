#pragma once
// The parameters the live receive workloads on the tool's testbed share: which generator feeds
// them, where it and the receiving thread run, what is counted system-wide, and what is sent.

#include <string>
#include <vector>

#include "parameter.h"

namespace nf::engine::workloads {

// `defaultGenerator` is "sendmmsg" or "xdp-live"; `receiver` names the thread on rx_cpu ("receiver
// thread"); `payload` says what `size` bytes are ("UDP payload per datagram").
std::vector<ParamSpec> trafficParams(const std::string& defaultGenerator, const std::string& receiver,
                                     const std::string& payload);

}  // namespace nf::engine::workloads
