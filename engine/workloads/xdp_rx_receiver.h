#pragma once
// The pieces of xdp-rx shared by its one-variant session (xdp_rx.cpp) and its variants side by side
// (xdp_rx_group.cpp): the settings, a testbed with its AF_XDP port, and the values of a sample.

#include <cstdint>
#include <memory>
#include <optional>
#include <string>
#include <vector>

#include "base/result.h"
#include "engine/model/parameter.h"
#include "engine/net/ethtool.h"
#include "engine/net/rtnl.h"
#include "engine/net/testbed.h"
#include "engine/net/xsk.h"
#include "engine/workloads/xdp_rx_app.h"

namespace nf::engine::workloads::xdp_rx {

inline constexpr std::uint16_t kPort = 5001;
inline constexpr std::uint32_t kVethRing = 256;  // veth's receive ring (VETH_RING_SIZE)

struct Config {
    std::string iface;  // empty: the testbed's receiving veth end
    net::XskOptions xsk;
    XskAppKind app = XskAppKind::RxDrop;
    std::string generator;
    int txCpu = 0;
    int rxCpu = 1;
    std::vector<int> counterCpus;
    int batch = 64;
    int payload = 64;
    int txBatch = 64;
    double rate = 0;
    // Two hosts: the generator on tx_host, over ssh, sending to `iface` here.
    std::string txHost;
    std::string txIface;
    std::string sshConfig;
};

Result<Config> readConfig(const ParamSet& p);

// A veth testbed (GRO on the receiving end, which gives it NAPI) with one queue on each end, its
// link-statistics sockets, and the AF_XDP port of `c` on its receiving end. Members in teardown
// order, reversed: the port (socket, umem, program) goes before the testbed.
struct TestbedPort {
    std::unique_ptr<net::Testbed> bed;
    std::optional<net::RtnlSocket> rxStats;
    std::optional<net::RtnlSocket> txStats;
    std::unique_ptr<net::XskPort> port;
};
Result<TestbedPort> openTestbedPort(const Config& c);
// The AF_XDP port of `c` on the receiving end of `bed`.
Result<std::unique_ptr<net::XskPort>> openPort(const net::Testbed& bed, Config c);

// The session quantities, the receiving device's own statistics last.
std::vector<std::string> quantities(const net::DeviceStats& device);

// Where a sample's link counters come from: the receiving end (rx_dropped) and, on a testbed, the
// sending end (frames l2fwd returned; sendmmsg's tx_dropped).
struct LinkSources {
    net::RtnlSocket* rxStats = nullptr;
    int rxIndex = 0;
    net::RtnlSocket* txStats = nullptr;
    int txIndex = 0;
};

// One sample's values, in quantities() order: the application's counts, the socket's statistics,
// the generator's count `gen`, the links' drops and the device's statistics.
Result<std::vector<double>> sampleValues(const Config& c, const XskAppCounts& app, const net::XskPort& port, double gen,
                                         const LinkSources& links, const net::DeviceStats& device);

}  // namespace nf::engine::workloads::xdp_rx
