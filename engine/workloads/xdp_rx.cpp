#include "engine/workloads/xdp_rx.h"
#include "engine/workloads/registry.h"

#include <linux/ethtool.h>
#include <net/if.h>
#include <sys/socket.h>

#include <cstdio>

#include "base/system_facts.h"
#include "engine/net/cpu_pin.h"
#include "engine/net/ethtool.h"
#include "engine/net/generator.h"
#include "engine/net/napi_defer.h"
#include "engine/net/remote_generator.h"
#include "engine/net/rtnl.h"
#include "engine/net/testbed.h"
#include "engine/net/tested_state.h"
#include "engine/net/xsk.h"
#include "engine/workloads/xdp_rx_receiver.h"

namespace nf::engine::workloads {

namespace {

using namespace xdp_rx;  // NOLINT(google-build-using-namespace)

// A real interface's receive ring (ETHTOOL_GRINGPARAM rx_pending), or 0 when it does not say.
std::uint32_t deviceRing(const std::string& ifname)
{
    ethtool_ringparam ring{};
    ring.cmd = ETHTOOL_GRINGPARAM;
    return net::ethtool(ifname, &ring) ? ring.rx_pending : 0;
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

    std::vector<std::string> quantities() const override { return xdp_rx::quantities(m_device); }

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
        const double gen = m_gen ? static_cast<double>(m_gen->sent()) : 0;
        if (m_remote != nullptr) {
            if (auto lost = m_gen->failure(); !lost.empty()) {
                return Error{lost, ECONNABORTED};
            }
        }
        LinkSources links;
        links.rxIndex = m_bed ? m_bed->rx().ifindex : m_c.xsk.ifindex;
        links.rxStats = m_rxStats ? &*m_rxStats : nullptr;
        if (m_txStats) {
            links.txStats = &*m_txStats;
            links.txIndex = m_bed->tx().ifindex;
        }
        return sampleValues(m_c, m_app.counts(), *m_port, gen, links, m_device);
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
    TestedState testedState() const override
    {
        if (!m_bed) {
            return net::readTestedState({{m_rxEnd.nsFd, m_c.xsk.ifname}});
        }
        return net::readTestedState({{m_bed->rx().nsFd, m_bed->rx().ifname}, {m_bed->tx().nsFd, m_bed->tx().ifname}});
    }

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
        out.emplace_back("counter_cpus", base::formatCpuList(m_c.counterCpus));
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
    auto side = NF_TRY(openTestbedPort(c));
    net::GeneratorOptions g{c.txCpu, c.txBatch, c.payload, c.rate, kPort};
    auto gen = NF_TRY(c.generator == "sendmmsg" ? net::makeSendmmsgGenerator(*side.bed, g)
                                                : net::makeXdpLiveGenerator(*side.bed, g));
    c.xsk = side.port->options();
    return std::unique_ptr<LiveSession>(std::make_unique<XdpRxSession>(std::move(c), std::move(side.bed),
                                                                       std::move(gen), std::move(side.rxStats),
                                                                       std::move(side.txStats), std::move(side.port)));
}

Result<std::unique_ptr<LiveSession>> makeOnInterface(Config c)
{
    const auto& name = c.iface;
    const unsigned index = name.size() < IFNAMSIZ ? if_nametoindex(name.c_str()) : 0;
    if (index == 0) {
        return Error{"iface=" + name + ": no such network interface"};
    }
    auto stats = NF_TRY(net::RtnlSocket::open(-1));
    auto queues = stats.linkCounters(static_cast<int>(index));
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
    if (c.xsk.busyPoll) {
        static_cast<void>(std::fprintf(
            stderr,
            "xdp-rx: busy_poll=1: setting napi_defer_hard_irqs=%lld and gro_flush_timeout=%llu ns on %s for the "
            "run; the old values are recorded in %s and put back at the end (or by 'noisefloor cleanup')\n",
            static_cast<long long>(net::kBusyPollNapi.deferHardIrqs),
            static_cast<unsigned long long>(net::kBusyPollNapi.groFlushTimeoutNs), name.c_str(),
            ownerLockPath("napi", name).c_str()));
    }
    auto port = NF_TRY(net::XskPort::open(c.xsk));
    if (c.txHost.empty()) {
        return std::unique_ptr<LiveSession>(std::make_unique<XdpRxSession>(
            std::move(c), nullptr, nullptr, std::move(stats), std::nullopt, std::move(port)));
    }
    const auto rx = NF_TRY(net::localEndpoint(name).withContext("iface=" + name + ": "));
    auto gen = NF_TRY(net::makeTwoHostGenerator({c.txHost, c.txIface, c.sshConfig}, rx,
                                                {c.txCpu, c.txBatch, c.payload, c.rate, kPort}));
    const net::RemoteFacts* remote = &gen->remote();
    auto session = std::make_unique<XdpRxSession>(std::move(c), nullptr, std::move(gen), std::move(stats), std::nullopt,
                                                  std::move(port));
    session->setRemote(remote, rx);
    return std::unique_ptr<LiveSession>(std::move(session));
}

}  // namespace

Result<std::unique_ptr<LiveSession>> makeXdpRx(const ParamSet& params)
{
    NF_TRY(net::requireNetworkCapabilities("xdp-rx"));
    auto c = NF_TRY(readConfig(params));
    return c.iface.empty() ? makeOnTestbed(std::move(c)) : makeOnInterface(std::move(c));
}

WorkloadImplementation implementation::xdpRx()
{
    return {.makeLive = makeXdpRx, .makeLiveGroup = makeXdpRxGroup};
}

}  // namespace nf::engine::workloads
