#include "engine/workloads/xdp_rx.h"

#include <linux/ethtool.h>
#include <net/if.h>
#include <sys/socket.h>

#include <algorithm>
#include <bit>
#include <cstdio>
#include <cstring>

#include "engine/catalog/traffic_params.h"
#include "engine/model/metric.h"
#include "engine/net/cpu_pin.h"
#include "engine/net/ethtool.h"
#include "engine/net/generator.h"
#include "engine/net/netns.h"
#include "engine/net/remote_generator.h"
#include "engine/net/rtnl.h"
#include "engine/net/testbed.h"
#include "engine/net/xsk.h"
#include "engine/workloads/xdp_rx_app.h"
#include "probes/system_facts.h"

namespace nf::engine::workloads {

namespace {

constexpr std::uint16_t kPort = 5001;
constexpr std::uint32_t kVethRing = 256;  // veth's receive ring (VETH_RING_SIZE)

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

Result<Config> readConfig(const ParamSet& p)
{
    Config c;
    c.iface = p.text("iface");
    c.app = p.text("app") == "l2fwd" ? XskAppKind::L2Fwd : XskAppKind::RxDrop;
    c.generator = p.text("generator");
    c.txCpu = static_cast<int>(p.integer("tx_cpu"));
    c.rxCpu = static_cast<int>(p.integer("rx_cpu"));
    c.batch = static_cast<int>(p.integer("batch"));
    c.payload = static_cast<int>(p.integer("size"));
    c.txBatch = static_cast<int>(p.integer("tx_batch"));
    c.rate = p.real("rate");
    c.txHost = p.text("tx_host");
    c.txIface = p.text("tx_iface");
    c.sshConfig = p.text("ssh_config");
    auto& x = c.xsk;
    x.mode = p.text("xdp_mode") == "native" ? net::XdpMode::Native : net::XdpMode::Skb;
    const auto& bind = p.text("bind");
    x.bind = bind == "copy" ? net::XskBind::Copy : bind == "zerocopy" ? net::XskBind::ZeroCopy : net::XskBind::Auto;
    x.queue = static_cast<int>(p.integer("queue"));
    const auto frameSize = p.integer("frame_size");
    const auto ringSize = p.integer("ring_size");
    x.frameSize = static_cast<std::uint32_t>(frameSize);
    x.ringSize = static_cast<std::uint32_t>(ringSize);
    x.needWakeup = p.integer("need_wakeup") != 0;
    x.busyPoll = p.integer("busy_poll") != 0;
    x.busyPollBudget = c.batch;
    x.txRing = c.app == XskAppKind::L2Fwd;
    x.force = p.integer("force") != 0;
    auto cpus = catalog::trafficCpus(p, c.iface.empty(), net::allowedCpus());
    if (!cpus) {
        return cpus.error();
    }
    c.counterCpus = std::move(cpus->counterCpus);
    return c;
}

// A real interface's receive ring (ETHTOOL_GRINGPARAM rx_pending), or 0 when it does not say.
std::uint32_t deviceRing(const std::string& ifname)
{
    ethtool_ringparam ring{};
    ring.cmd = ETHTOOL_GRINGPARAM;
    return net::ethtool(ifname, &ring) ? ring.rx_pending : 0;
}

// One receive and one transmit queue on a testbed veth end (ETHTOOL_SCHANNELS): veth gives each end
// a queue per CPU and picks the receive queue by the sending CPU, so with more than one, traffic from
// a generator on another CPU would land on a queue without the socket.
Result<void> singleQueue(int nsFd, const std::string& ifname)
{
    auto guard = net::NetnsGuard::enter(nsFd);
    if (!guard) {
        return guard.error();
    }
    ethtool_channels ch{};
    ch.cmd = ETHTOOL_GCHANNELS;
    if (auto r = net::ethtool(ifname, &ch); !r) {
        return Error::fromErrno("cannot read the channels of " + ifname, r.error().errnum);
    }
    if (ch.rx_count == 1 && ch.tx_count == 1) {
        return {};
    }
    ch.cmd = ETHTOOL_SCHANNELS;
    ch.rx_count = 1;
    ch.tx_count = 1;
    if (auto r = net::ethtool(ifname, &ch); !r) {
        return Error::fromErrno("cannot set one receive and one transmit queue on " + ifname, r.error().errnum);
    }
    return {};
}

class XdpRxSession : public LiveSession {
public:
    XdpRxSession(Config c, std::unique_ptr<net::Testbed> bed, std::unique_ptr<net::Generator> gen,
                 std::optional<net::RtnlSocket> rxStats, std::optional<net::RtnlSocket> txStats,
                 std::unique_ptr<net::XskPort> port)
        : m_c(std::move(c)),
          m_bed(std::move(bed)),
          m_gen(std::move(gen)),
          m_rxStats(std::move(rxStats)),
          m_txStats(std::move(txStats)),
          m_port(std::move(port)),
          m_app(*m_port, m_c.app, m_c.rxCpu, m_c.batch),
          m_device(net::deviceStats(m_bed ? m_bed->rx().nsFd : -1, m_c.xsk.ifname))
    {
    }
    ~XdpRxSession() override { XdpRxSession::stop(); }
    // Two hosts: what the generator host (m_gen's) said about itself.
    void setRemote(const net::RemoteFacts* remote, const net::Endpoint& rx)
    {
        m_remote = remote;
        m_rxEnd = rx;
    }
    XdpRxSession(const XdpRxSession&) = delete;
    XdpRxSession& operator=(const XdpRxSession&) = delete;

    std::vector<std::string> quantities() const override
    {
        std::vector<std::string> q = {quantity::kPackets,
                                      quantity::kBytes,
                                      quantity::kDrops,
                                      quantity::kGenPackets,
                                      quantity::kXskRxDropped,
                                      quantity::kXskRxInvalidDescs,
                                      quantity::kXskRxRingFull,
                                      quantity::kXskRxFillRingEmpty,
                                      quantity::kXskTxInvalidDescs,
                                      quantity::kAppEmptyPolls,
                                      quantity::kAppFillFailures,
                                      quantity::kAppTxPackets,
                                      quantity::kReturnedPackets};
        for (const auto& name : m_device.names()) {
            q.push_back(quantity::kDevicePrefix + name);
        }
        return q;
    }

    Result<void> start() override
    {
        m_tid = m_app.start();
        if (m_gen) {
            if (auto r = m_gen->start(); !r) {
                m_app.stop();
                return r;
            }
        }
        return {};
    }

    std::vector<std::string> warnings() const override
    {
        return nonEmpty({m_app.warning(), m_gen ? m_gen->warning() : std::string()});
    }

    Result<std::vector<double>> sample() override
    {
        const auto app = m_app.counts();
        auto xsk = m_port->stats();
        if (!xsk) {
            return xsk.error();
        }
        const double gen = m_gen ? static_cast<double>(m_gen->sent()) : 0;
        if (m_remote != nullptr) {
            if (auto lost = m_gen->failure(); !lost.empty()) {
                return Error{lost, ECONNABORTED};
            }
        }
        double deviceDrops = 0;
        double returned = 0;
        const int rxIndex = m_bed ? m_bed->rx().ifindex : m_c.xsk.ifindex;
        if (m_rxStats) {
            if (auto s = m_rxStats->linkCounters(rxIndex)) {
                deviceDrops += static_cast<double>(s->rxDropped);
            }
        }
        if (m_txStats) {
            if (auto s = m_txStats->linkCounters(m_bed->tx().ifindex)) {
                // veth counts a frame sent by XDP that found the receiving ring full on both ends (rx_dropped
                // there, tx_dropped here); a datagram of sendmmsg only here.
                if (m_c.generator == "sendmmsg") {
                    deviceDrops += static_cast<double>(s->txDropped);
                }
                returned = static_cast<double>(s->rxPackets);
            }
        }
        const auto d = [](std::uint64_t v) { return static_cast<double>(v); };
        // In native mode a failed redirect into the socket is also a failed XDP_REDIRECT the driver
        // counts in rx_dropped (veth does); in skb mode only the socket counts it.
        const double socketDrops = m_c.xsk.mode == net::XdpMode::Skb ? d(xsk->rxDropped + xsk->rxRingFull) : 0;
        std::vector<double> values{d(app.packets),
                                   d(app.bytes),
                                   socketDrops + deviceDrops,
                                   gen,
                                   d(xsk->rxDropped),
                                   d(xsk->rxInvalidDescs),
                                   d(xsk->rxRingFull),
                                   d(xsk->rxFillRingEmptyDescs),
                                   d(xsk->txInvalidDescs),
                                   d(app.emptyPolls),
                                   d(app.fillFailures),
                                   d(app.txPackets),
                                   returned};
        auto device = m_device.read();
        if (!device) {
            return device.error();
        }
        values.insert(values.end(), device->begin(), device->end());
        return values;
    }

    void stop() override
    {
        if (m_gen) {
            m_gen->stop();
        }
        m_app.stop();
        m_tid = 0;
    }

    pid_t counterThread() const override { return m_tid; }
    std::vector<int> counterCpus() const override { return m_c.counterCpus; }

    std::vector<std::pair<std::string, std::string>> facts() const override
    {
        std::vector<std::pair<std::string, std::string>> out;
        if (m_bed) {
            const auto& rx = m_bed->rx();
            const auto& tx = m_bed->tx();
            out = {{"path", "veth"},
                   {"sender", tx.ifname + " (ifindex " + std::to_string(tx.ifindex) + ")"},
                   {"receiver", rx.ifname + " (ifindex " + std::to_string(rx.ifindex) + ")"},
                   {"generator", m_gen->describe()}};
        } else if (m_remote != nullptr) {
            out = net::twoHostFacts(m_rxEnd, *m_remote);
            out.emplace_back("generator", m_gen->describe());
        } else {
            out = {{"path", "iface " + m_c.iface + " (ifindex " + std::to_string(m_c.xsk.ifindex) + ")"},
                   {"generator", "none: traffic comes from outside"}};
        }
        out.emplace_back("app", std::string(m_c.app == XskAppKind::L2Fwd ? "l2fwd" : "rxdrop") + ", batch " +
                                    std::to_string(m_c.batch) + ", CPU " + std::to_string(m_c.rxCpu));
        for (auto& f : m_port->facts()) {
            out.push_back(std::move(f));
        }
        out.emplace_back("counter_cpus", probes::formatCpuList(m_c.counterCpus));
        return out;
    }

private:
    // Member order is teardown order in reverse: the app thread stops first, then the port goes
    // (socket, umem, program), then the generator and the testbed.
    Config m_c;
    std::unique_ptr<net::Testbed> m_bed;
    std::unique_ptr<net::Generator> m_gen;
    const net::RemoteFacts* m_remote = nullptr;  // owned by m_gen
    net::Endpoint m_rxEnd;                       // two hosts: the receiving interface
    std::optional<net::RtnlSocket> m_rxStats;
    std::optional<net::RtnlSocket> m_txStats;
    std::unique_ptr<net::XskPort> m_port;
    XskApp m_app;
    net::DeviceStats m_device;  // the receiving device's own statistics (after m_port: the same device)
    pid_t m_tid = 0;
};

Result<std::unique_ptr<LiveSession>> makeOnTestbed(Config c)
{
    auto bed = net::Testbed::create({net::TestbedPath::Veth, true});  // GRO gives the veth NAPI
    if (!bed) {
        return bed.error();
    }
    for (const auto* end : {&(*bed)->tx(), &(*bed)->rx()}) {
        if (auto r = singleQueue(end->nsFd, end->ifname); !r) {
            return r.error();
        }
    }
    net::GeneratorOptions g{c.txCpu, c.txBatch, c.payload, c.rate, kPort};
    auto gen = c.generator == "sendmmsg" ? net::makeSendmmsgGenerator(**bed, g) : net::makeXdpLiveGenerator(**bed, g);
    if (!gen) {
        return gen.error();
    }
    auto rxStats = net::RtnlSocket::open((*bed)->rx().nsFd);
    auto txStats = net::RtnlSocket::open((*bed)->tx().nsFd);
    if (!rxStats || !txStats) {
        return rxStats ? txStats.error() : rxStats.error();
    }
    auto queues = rxStats->linkCounters((*bed)->rx().ifindex);
    if (queues && c.xsk.queue >= queues->rxQueues) {
        return Error{"queue=" + std::to_string(c.xsk.queue) + ": " + (*bed)->rx().ifname + " has " +
                     std::to_string(queues->rxQueues) + " receive queue(s) (0.." +
                     std::to_string(queues->rxQueues - 1) + ")"};
    }
    c.xsk.nsFd = (*bed)->rx().nsFd;
    c.xsk.ifname = (*bed)->rx().ifname;
    c.xsk.ifindex = (*bed)->rx().ifindex;
    c.xsk.deviceRing = kVethRing;
    auto port = net::XskPort::open(c.xsk);
    if (!port) {
        return port.error();
    }
    return std::unique_ptr<LiveSession>(std::make_unique<XdpRxSession>(
        std::move(c), std::move(*bed), std::move(*gen), std::move(*rxStats), std::move(*txStats), std::move(*port)));
}

Result<std::unique_ptr<LiveSession>> makeOnInterface(Config c)
{
    const auto& name = c.iface;
    const unsigned index = name.size() < IFNAMSIZ ? if_nametoindex(name.c_str()) : 0;
    if (index == 0) {
        return Error{"iface=" + name + ": no such network interface"};
    }
    auto stats = net::RtnlSocket::open(-1);
    if (!stats) {
        return stats.error();
    }
    auto queues = stats->linkCounters(static_cast<int>(index));
    if (queues && c.xsk.queue >= queues->rxQueues) {
        return Error{"queue=" + std::to_string(c.xsk.queue) + ": " + name + " has " + std::to_string(queues->rxQueues) +
                     " receive queue(s) (0.." + std::to_string(queues->rxQueues - 1) + ")"};
    }
    c.xsk.ifname = name;
    c.xsk.ifindex = static_cast<int>(index);
    c.xsk.deviceRing = deviceRing(name);
    c.xsk.ownerRecord = true;
    // Outside the tool's own namespaces: say what is attached where before doing it.
    static_cast<void>(
        std::fprintf(stderr,
                     "xdp-rx: attaching XDP program nf_xsk_redirect (%s mode) and an AF_XDP socket to %s "
                     "(ifindex %u) queue %d; every frame of that queue goes to the socket and is dropped\n",
                     net::xdpModeName(c.xsk.mode), name.c_str(), index, c.xsk.queue));
    auto port = net::XskPort::open(c.xsk);
    if (!port) {
        return port.error();
    }
    if (c.txHost.empty()) {
        return std::unique_ptr<LiveSession>(std::make_unique<XdpRxSession>(
            std::move(c), nullptr, nullptr, std::move(*stats), std::nullopt, std::move(*port)));
    }
    auto rx = net::localEndpoint(name);
    if (!rx) {
        return Error{"iface=" + name + ": " + rx.error().message};
    }
    auto gen = net::makeTwoHostGenerator({c.txHost, c.txIface, c.sshConfig}, *rx,
                                         {c.txCpu, c.txBatch, c.payload, c.rate, kPort});
    if (!gen) {
        return gen.error();
    }
    const net::RemoteFacts* remote = &(*gen)->remote();
    auto session = std::make_unique<XdpRxSession>(std::move(c), nullptr, std::move(*gen), std::move(*stats),
                                                  std::nullopt, std::move(*port));
    session->setRemote(remote, *rx);
    return std::unique_ptr<LiveSession>(std::move(session));
}

}  // namespace

Result<std::unique_ptr<LiveSession>> makeXdpRx(const ParamSet& params)
{
    if (auto r = net::requireNetworkCapabilities("xdp-rx"); !r) {
        return r.error();
    }
    auto c = readConfig(params);
    if (!c) {
        return c.error();
    }
    return c->iface.empty() ? makeOnTestbed(std::move(*c)) : makeOnInterface(std::move(*c));
}

}  // namespace nf::engine::workloads
