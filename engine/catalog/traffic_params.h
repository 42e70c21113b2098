#pragma once
// The parameters the live receive workloads on the tool's testbed share: which generator feeds
// them, where it and the receiving thread run, what is counted system-wide, and what is sent.

#include <string>
#include <vector>

#include "engine/catalog/workload_catalog.h"
#include "engine/model/parameter.h"

namespace nf::engine::catalog {

// `defaultGenerator` is "sendmmsg" or "xdp-live"; `receiver` names the thread on rx_cpu ("receiver
// thread"); `payload` says what `size` bytes are ("UDP payload per datagram").
std::vector<ParamSpec> trafficParams(const std::string& defaultGenerator, const std::string& receiver,
                                     const std::string& payload);

// Two hosts: iface (the receiving interface here), tx_host (the generator host, as ssh names it;
// "" = the tool's own testbed), tx_iface (the generator host's sending interface) and ssh_config.
// `withIface` false: the workload has its own iface parameter (xdp-rx).
std::vector<ParamSpec> twoHostParams(bool withIface = true);
// tx_host needs iface; with `ifaceNeedsHost`, iface needs tx_host (receive-only on an interface
// is iface-rx).
Result<void> checkTwoHost(const ParamSet& params, bool ifaceNeedsHost = true);

// The CPUs the traffic parameters name, checked: rx_cpu (and tx_cpu when the tool generates the
// traffic) allowed, distinct unless share_cpu=1, and counter_cpus (auto = tx_cpu and rx_cpu).
struct TrafficCpus {
    int txCpu = 0;
    int rxCpu = 1;
    std::vector<int> counterCpus;
};
Result<TrafficCpus> trafficCpus(const ParamSet& params, bool generated, const std::vector<int>& allowed);

}  // namespace nf::engine::catalog
