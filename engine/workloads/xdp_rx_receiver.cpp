#include "engine/workloads/xdp_rx_receiver.h"

#include <linux/ethtool.h>

#include "engine/catalog/traffic_params.h"
#include "engine/model/metric.h"
#include "engine/net/cpu_pin.h"
#include "engine/net/netns.h"

namespace nf::engine::workloads::xdp_rx {

namespace {

// One receive and one transmit queue on a testbed veth end (ETHTOOL_SCHANNELS): veth gives each end
// a queue per CPU and picks the receive queue by the sending CPU, so with more than one, traffic from
// a generator on another CPU would land on a queue without the socket.
Result<void> singleQueue(int nsFd, const std::string& ifname)
{
    auto guard = NF_TRY(net::NetnsGuard::enter(nsFd));
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

}  // namespace

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
    x.frameSize = static_cast<std::uint32_t>(p.integer("frame_size"));
    x.ringSize = static_cast<std::uint32_t>(p.integer("ring_size"));
    x.needWakeup = p.integer("need_wakeup") != 0;
    x.busyPoll = p.integer("busy_poll") != 0;
    x.busyPollUs = static_cast<int>(p.integer("busy_poll_us"));
    const auto budget = p.integer("busy_poll_budget");
    x.busyPollBudget = budget > 0 ? static_cast<int>(budget) : c.batch;
    x.txRing = c.app == XskAppKind::L2Fwd;
    x.force = p.integer("force") != 0;
    auto cpus = NF_TRY(catalog::trafficCpus(p, c.iface.empty(), net::allowedCpus()));
    c.counterCpus = std::move(cpus.counterCpus);
    return c;
}

Result<TestbedPort> openTestbedPort(const Config& c)
{
    TestbedPort out;
    out.bed = NF_TRY(net::Testbed::create({net::TestbedPath::Veth, true}));  // GRO gives the veth NAPI
    const auto& rx = out.bed->rx();
    for (const auto* end : {&out.bed->tx(), &rx}) {
        NF_TRY(singleQueue(end->nsFd, end->ifname));
    }
    auto rxStats = net::RtnlSocket::open(rx.nsFd);
    auto txStats = net::RtnlSocket::open(out.bed->tx().nsFd);
    if (!rxStats || !txStats) {
        return rxStats ? txStats.error() : rxStats.error();
    }
    auto queues = rxStats->linkCounters(rx.ifindex);
    if (queues && c.xsk.queue >= queues->rxQueues) {
        return Error{"queue=" + std::to_string(c.xsk.queue) + ": " + rx.ifname + " has " +
                     std::to_string(queues->rxQueues) + " receive queue(s) (0.." +
                     std::to_string(queues->rxQueues - 1) + ")"};
    }
    out.rxStats.emplace(std::move(*rxStats));
    out.txStats.emplace(std::move(*txStats));
    out.port = NF_TRY(openPort(*out.bed, c));
    return out;
}

Result<std::unique_ptr<net::XskPort>> openPort(const net::Testbed& bed, Config c)
{
    const auto& rx = bed.rx();
    c.xsk.nsFd = rx.nsFd;
    c.xsk.ifname = rx.ifname;
    c.xsk.ifindex = rx.ifindex;
    c.xsk.deviceRing = kVethRing;
    return net::XskPort::open(c.xsk);
}

std::vector<std::string> quantities(const net::DeviceStats& device)
{
    std::vector<std::string> q = {quantity::kPackets,
                                  quantity::kBytes,
                                  quantity::kDrops,
                                  quantity::kOfferedPackets,
                                  quantity::kXskRxDropped,
                                  quantity::kXskRxInvalidDescs,
                                  quantity::kXskRxRingFull,
                                  quantity::kXskRxFillRingEmpty,
                                  quantity::kXskTxInvalidDescs,
                                  quantity::kAppEmptyPolls,
                                  quantity::kAppPolls,
                                  quantity::kAppFillFailures,
                                  quantity::kAppTxPackets,
                                  quantity::kReturnedPackets};
    for (const auto& name : device.names()) {
        q.push_back(quantity::kDevicePrefix + name);
    }
    return q;
}

Result<std::vector<double>> sampleValues(const Config& c, const XskAppCounts& app, const net::XskPort& port, double gen,
                                         const LinkSources& links, const net::DeviceStats& device)
{
    auto xsk = NF_TRY(port.stats());
    double deviceDrops = 0;
    double returned = 0;
    if (links.rxStats != nullptr) {
        if (auto s = links.rxStats->linkCounters(links.rxIndex)) {
            deviceDrops += static_cast<double>(s->rxDropped);
        }
    }
    if (links.txStats != nullptr) {
        if (auto s = links.txStats->linkCounters(links.txIndex)) {
            // veth counts a frame sent by XDP that found the receiving ring full on both ends (rx_dropped
            // there, tx_dropped here); a datagram of sendmmsg only here.
            if (c.generator == "sendmmsg") {
                deviceDrops += static_cast<double>(s->txDropped);
            }
            returned = static_cast<double>(s->rxPackets);
        }
    }
    const auto d = [](std::uint64_t v) { return static_cast<double>(v); };
    // In native mode a failed redirect into the socket is also a failed XDP_REDIRECT the driver
    // counts in rx_dropped (veth does); in skb mode only the socket counts it.
    const double socketDrops = c.xsk.mode == net::XdpMode::Skb ? d(xsk.rxDropped + xsk.rxRingFull) : 0;
    std::vector<double> values{d(app.packets),
                               d(app.bytes),
                               socketDrops + deviceDrops,
                               gen,
                               d(xsk.rxDropped),
                               d(xsk.rxInvalidDescs),
                               d(xsk.rxRingFull),
                               d(xsk.rxFillRingEmptyDescs),
                               d(xsk.txInvalidDescs),
                               d(app.emptyPolls),
                               d(app.polls),
                               d(app.fillFailures),
                               d(app.txPackets),
                               returned};
    auto dev = NF_TRY(device.read());
    values.insert(values.end(), dev.begin(), dev.end());
    return values;
}

}  // namespace nf::engine::workloads::xdp_rx
