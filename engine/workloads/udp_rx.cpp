#include "engine/workloads/udp_rx.h"

#include <netinet/in.h>

#include <chrono>

#include "engine/catalog/traffic_params.h"
#include "engine/model/metric.h"
#include "engine/net/cpu_pin.h"
#include "engine/net/ethtool.h"
#include "engine/net/generator.h"
#include "engine/net/testbed.h"
#include "engine/run/pinned_thread.h"
#include "engine/workloads/udp_rx_receiver.h"
#include "probes/system_facts.h"

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
    auto cpus = catalog::trafficCpus(p, true, net::allowedCpus());
    if (!cpus) {
        return cpus.error();
    }
    c.counterCpus = std::move(cpus->counterCpus);
    return c;
}

namespace {

int setInt(int fd, int level, int name, int value)
{
    return ::setsockopt(fd, level, name, &value, sizeof value);
}

}  // namespace

// The receiving socket, in the receiving namespace, bound to the testbed's receive address.
Result<Fd> openReceiver(const net::Testbed& bed, const Config& c, std::uint16_t port)
{
    auto guard = net::NetnsGuard::enter(bed.rx().nsFd);
    if (!guard) {
        return guard.error();
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
    addr.sin_addr = bed.rx().addr;
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
    UdpRxSession(Config c, std::unique_ptr<net::Testbed> bed, std::unique_ptr<net::Generator> gen, Fd sock)
        : m_c(std::move(c)),
          m_bed(std::move(bed)),
          m_gen(std::move(gen)),
          m_rx(std::move(sock), m_c.rxCpu, m_c.batch),
          m_device(net::deviceStats(m_bed->rx().nsFd, m_bed->rx().ifname))
    {
    }
    ~UdpRxSession() override { UdpRxSession::stop(); }
    UdpRxSession(const UdpRxSession&) = delete;
    UdpRxSession& operator=(const UdpRxSession&) = delete;

    std::vector<std::string> quantities() const override
    {
        std::vector<std::string> q = {quantity::kPackets, quantity::kBytes, quantity::kDrops, quantity::kGenPackets};
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
        auto device = m_device.read();
        if (!device) {
            return device.error();
        }
        values.insert(values.end(), device->begin(), device->end());
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
    std::vector<std::string> warnings() const override { return nonEmpty({m_rx.warning(), m_gen->warning()}); }

    std::vector<std::pair<std::string, std::string>> facts() const override
    {
        const auto& rx = m_bed->rx();
        const auto& tx = m_bed->tx();
        return {{"path", m_c.path == net::TestbedPath::Veth ? "veth" : "loopback"},
                {"sender", tx.ifname + " (ifindex " + std::to_string(tx.ifindex) + ")"},
                {"receiver", rx.ifname + " (ifindex " + std::to_string(rx.ifindex) + ")"},
                {"generator", m_gen->describe()},
                {"receiver_call", m_c.batch == 1 ? "recvmsg" : "recvmmsg, " + std::to_string(m_c.batch) + " buffers"},
                {"counter_cpus", probes::formatCpuList(m_c.counterCpus)}};
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
    std::unique_ptr<net::Generator> m_gen;
    Receiver m_rx;
    net::DeviceStats m_device;  // the receiving veth end's own statistics
    pid_t m_tid = 0;
    bool m_rateChecked = false;
};

}  // namespace

Result<std::unique_ptr<LiveSession>> makeUdpRx(const ParamSet& params)
{
    if (auto r = net::requireNetworkCapabilities("udp-rx"); !r) {
        return r.error();
    }
    auto c = readConfig(params);
    if (!c) {
        return c.error();
    }
    auto bed = net::Testbed::create({c->path, c->gro});
    if (!bed) {
        return bed.error();
    }
    net::GeneratorOptions g{c->txCpu, c->txBatch, c->payload, c->rate, kPort};
    auto gen = c->generator == "xdp-live" ? net::makeXdpLiveGenerator(**bed, g) : net::makeSendmmsgGenerator(**bed, g);
    if (!gen) {
        return gen.error();
    }
    auto sock = openReceiver(**bed, *c, kPort);
    if (!sock) {
        return sock.error();
    }
    return std::unique_ptr<LiveSession>(
        std::make_unique<UdpRxSession>(std::move(*c), std::move(*bed), std::move(*gen), std::move(*sock)));
}

}  // namespace nf::engine::workloads
