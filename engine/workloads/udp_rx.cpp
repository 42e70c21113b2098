#include "engine/workloads/udp_rx.h"
#include "engine/workloads/registry.h"

#include <netinet/in.h>

#include <chrono>
#include <optional>

#include "base/system_facts.h"
#include "engine/catalog/traffic_params.h"
#include "engine/model/metric.h"
#include "engine/net/cpu_pin.h"
#include "engine/net/ethtool.h"
#include "engine/net/generator.h"
#include "engine/net/remote_generator.h"
#include "engine/net/testbed.h"
#include "engine/net/tested_state.h"
#include "engine/run/pinned_thread.h"
#include "engine/workloads/udp_rx_receiver.h"

namespace nf::engine::workloads {

namespace udp_rx {

Result<Config> readConfig(const ParamSet& p)
{
    Config c;
    c.path = p.text("path") == "loopback" ? net::TestbedPath::Loopback : net::TestbedPath::Veth;
    c.generator = p.text("generator");
    c.txCpu = static_cast<int>(p.integer("tx_cpu"));
    c.rxCpu = static_cast<int>(p.integer("rx_cpu"));
    c.shareCpu = p.integer("share_cpu") != 0;
    c.payload = static_cast<int>(p.integer("size"));
    c.txBatch = static_cast<int>(p.integer("tx_batch"));
    c.rate = p.real("rate");
    c.batch = static_cast<int>(p.integer("batch"));
    c.busyPoll = static_cast<int>(p.integer("busy_poll"));
    c.gro = p.integer("gro") != 0;
    c.rcvbuf = static_cast<int>(p.integer("rcvbuf"));
    c.txHost = p.text("tx_host");
    c.iface = p.text("iface");
    c.txIface = p.text("tx_iface");
    c.sshConfig = p.text("ssh_config");
    auto cpus = NF_TRY(catalog::trafficCpus(p, c.txHost.empty(), net::allowedCpus()));
    c.counterCpus = std::move(cpus.counterCpus);
    return c;
}

namespace {

int setInt(int fd, int level, int name, int value)
{
    return ::setsockopt(fd, level, name, &value, sizeof value);
}

}  // namespace

// The receiving socket, in the receiving namespace (-1: this one), bound to its address.
Result<Fd> openReceiver(const net::Endpoint& rx, const Config& c, std::uint16_t port)
{
    std::optional<net::NetnsGuard> inside;
    if (rx.nsFd >= 0) {
        inside.emplace(NF_TRY(net::NetnsGuard::enter(rx.nsFd)));
    }
    Fd sock(::socket(AF_INET, SOCK_DGRAM | SOCK_CLOEXEC, 0));
    if (!sock.valid()) {
        return Error::fromErrno("cannot open the receiving socket");
    }
    if (c.rcvbuf > 0 && setInt(sock.get(), SOL_SOCKET, SO_RCVBUFFORCE, c.rcvbuf) != 0) {
        return Error::fromErrno("rcvbuf=" + std::to_string(c.rcvbuf) + ": SO_RCVBUFFORCE");
    }
    if (c.busyPoll > 0) {
        if (setInt(sock.get(), SOL_SOCKET, SO_BUSY_POLL, c.busyPoll) != 0) {
            return Error::fromErrno("busy_poll=" + std::to_string(c.busyPoll) + ": SO_BUSY_POLL");
        }
        if (setInt(sock.get(), SOL_SOCKET, SO_PREFER_BUSY_POLL, 1) != 0) {
            return Error::fromErrno("busy_poll=" + std::to_string(c.busyPoll) + ": SO_PREFER_BUSY_POLL");
        }
    }
    timeval timeout{0, 50000};  // a blocked receive notices stop() within 50 ms
    if (::setsockopt(sock.get(), SOL_SOCKET, SO_RCVTIMEO, &timeout, sizeof timeout) != 0) {
        return Error::fromErrno("SO_RCVTIMEO");
    }
    sockaddr_in addr{};
    addr.sin_family = AF_INET;
    addr.sin_port = htons(port);
    addr.sin_addr = rx.addr;
    if (::bind(sock.get(), reinterpret_cast<const sockaddr*>(&addr), sizeof addr) != 0) {  // NOLINT
        return Error::fromErrno("cannot bind the receiving socket");
    }
    return sock;
}

}  // namespace udp_rx

namespace {

using namespace udp_rx;  // NOLINT(google-build-using-namespace)

class UdpRxSession : public LiveSession {
public:
    // `bed` is null on two hosts: `rxEnd` is then the named interface, `remote` the generator host.
    UdpRxSession(Config c, std::unique_ptr<net::Testbed> bed, net::Endpoint rxEnd, std::unique_ptr<net::Generator> gen,
                 Fd sock, const net::RemoteFacts* remote = nullptr)
        : m_c(std::move(c)),
          m_bed(std::move(bed)),
          m_rxEnd(std::move(rxEnd)),
          m_gen(std::move(gen)),
          m_rx(std::move(sock), m_c.rxCpu, m_c.batch),
          m_device(net::deviceStats(m_rxEnd.nsFd, m_rxEnd.ifname)),
          m_remote(remote)
    {
    }
    ~UdpRxSession() override { UdpRxSession::stop(); }
    UdpRxSession(const UdpRxSession&) = delete;
    UdpRxSession& operator=(const UdpRxSession&) = delete;

    std::vector<std::string> quantities() const override
    {
        std::vector<std::string> q = {quantity::kPackets, quantity::kBytes, quantity::kDrops,
                                      quantity::kOfferedPackets};
        if (m_remote != nullptr) {
            q.emplace_back(quantity::kGenOffered);
        }
        for (const auto& name : m_device.names()) {
            q.push_back(quantity::kDevicePrefix + name);
        }
        return q;
    }

    Result<void> start() override
    {
        m_tid = m_rx.start();
        if (auto r = m_gen->start(); !r) {
            m_rx.stop();
            return r;
        }
        if (!m_rateChecked && m_c.rate > 0) {
            m_rateChecked = true;
            return checkRate();
        }
        return {};
    }

    Result<std::vector<double>> sample() override
    {
        std::vector<double> values{static_cast<double>(m_rx.packets()), static_cast<double>(m_rx.bytes()),
                                   static_cast<double>(m_rx.drops()), static_cast<double>(m_gen->sent())};
        if (m_remote != nullptr) {
            values.push_back(static_cast<double>(m_gen->offered()));
            if (auto lost = m_gen->failure(); !lost.empty()) {
                return Error{lost, ECONNABORTED};
            }
        }
        auto device = NF_TRY(m_device.read());
        values.insert(values.end(), device.begin(), device.end());
        return values;
    }

    void stop() override
    {
        m_gen->stop();
        m_rx.stop();
        m_tid = 0;
    }

    pid_t counterThread() const override { return m_tid; }
    std::vector<int> counterCpus() const override { return m_c.counterCpus; }
    TestedState testedState() const override
    {
        if (!m_bed) {
            return net::readTestedState({{m_rxEnd.nsFd, m_rxEnd.ifname}});
        }
        return net::readTestedState({{m_bed->rx().nsFd, m_bed->rx().ifname}, {m_bed->tx().nsFd, m_bed->tx().ifname}});
    }
    std::vector<std::string> warnings() const override { return nonEmpty({m_rx.warning(), m_gen->warning()}); }

    std::vector<std::pair<std::string, std::string>> facts() const override
    {
        if (m_remote != nullptr) {
            auto facts = net::twoHostFacts(m_rxEnd, *m_remote);
            facts.insert(
                facts.end(),
                {{"generator", m_gen->describe()},
                 {"receiver_call", m_c.batch == 1 ? "recvmsg" : "recvmmsg, " + std::to_string(m_c.batch) + " buffers"},
                 {"counter_cpus", base::formatCpuList(m_c.counterCpus)}});
            return facts;
        }
        const auto& rx = m_bed->rx();
        const auto& tx = m_bed->tx();
        return {{"path", m_c.path == net::TestbedPath::Veth ? "veth" : "loopback"},
                {"sender", tx.ifname + " (ifindex " + std::to_string(tx.ifindex) + ")"},
                {"receiver", rx.ifname + " (ifindex " + std::to_string(rx.ifindex) + ")"},
                {"generator", m_gen->describe()},
                {"receiver_call", m_c.batch == 1 ? "recvmsg" : "recvmmsg, " + std::to_string(m_c.batch) + " buffers"},
                {"counter_cpus", base::formatCpuList(m_c.counterCpus)}};
    }

private:
    // A rate limit the generator cannot reach would make every figure meaningless: refuse it.
    Result<void> checkRate()
    {
        const auto before = m_gen->sent();
        const auto t0 = std::chrono::steady_clock::now();
        std::this_thread::sleep_for(std::chrono::milliseconds(300));
        const double seconds = std::chrono::duration<double>(std::chrono::steady_clock::now() - t0).count();
        const double achieved = static_cast<double>(m_gen->sent() - before) / seconds;
        if (achieved < 0.9 * m_c.rate) {
            stop();
            return Error{"rate=" + std::to_string(static_cast<long long>(m_c.rate)) +
                         ": unreachable, the generator reached " + std::to_string(static_cast<long long>(achieved)) +
                         " packets/s on CPU " + std::to_string(m_c.txCpu)};
        }
        return {};
    }

    Config m_c;
    std::unique_ptr<net::Testbed> m_bed;
    net::Endpoint m_rxEnd;
    std::unique_ptr<net::Generator> m_gen;
    Receiver m_rx;
    net::DeviceStats m_device;                   // the receiving device's own statistics
    const net::RemoteFacts* m_remote = nullptr;  // owned by m_gen
    pid_t m_tid = 0;
    bool m_rateChecked = false;
};

// Two hosts: the receiver on `iface` here, the generator on tx_host started over ssh.
Result<std::unique_ptr<LiveSession>> makeTwoHost(Config c, const net::GeneratorOptions& g)
{
    const auto rx = NF_TRY(net::localEndpoint(c.iface).withContext("iface=" + c.iface + ": "));
    auto sock = NF_TRY(openReceiver(rx, c, 0));
    sockaddr_in bound{};
    socklen_t len = sizeof bound;
    if (::getsockname(sock.get(), reinterpret_cast<sockaddr*>(&bound), &len) != 0) {  // NOLINT
        return Error::fromErrno("getsockname");
    }
    net::GeneratorOptions toPort = g;
    toPort.port = ntohs(bound.sin_port);
    auto gen = NF_TRY(net::makeTwoHostGenerator({c.txHost, c.txIface, c.sshConfig}, rx, toPort));
    const net::RemoteFacts* remote = &gen->remote();
    return std::unique_ptr<LiveSession>(
        std::make_unique<UdpRxSession>(std::move(c), nullptr, rx, std::move(gen), std::move(sock), remote));
}

}  // namespace

Result<std::unique_ptr<LiveSession>> makeUdpRx(const ParamSet& params)
{
    NF_TRY(net::requireNetworkCapabilities("udp-rx"));
    auto c = NF_TRY(readConfig(params));
    net::GeneratorOptions g{c.txCpu, c.txBatch, c.payload, c.rate, kPort};
    if (!c.txHost.empty()) {  // no testbed here: the named interface and the generator host
        return makeTwoHost(std::move(c), g);
    }
    auto bed = NF_TRY(net::Testbed::create({c.path, c.gro}));
    auto gen =
        NF_TRY(c.generator == "xdp-live" ? net::makeXdpLiveGenerator(*bed, g) : net::makeSendmmsgGenerator(*bed, g));
    auto sock = NF_TRY(openReceiver(bed->rx(), c, kPort));
    const net::Endpoint rx = bed->rx();
    return std::unique_ptr<LiveSession>(
        std::make_unique<UdpRxSession>(std::move(c), std::move(bed), rx, std::move(gen), std::move(sock)));
}

WorkloadImplementation implementation::udpRx()
{
    return {.makeLive = makeUdpRx, .makeLiveGroup = makeUdpRxGroup};
}

}  // namespace nf::engine::workloads
