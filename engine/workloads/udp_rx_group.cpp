// udp-rx variants side by side: one testbed and one generator, a socket on its own port and a
// receiver thread per variant, every receiver pinned to the same rx_cpu. The generator's traffic
// goes to one variant's port at a time (Generator::setPort), so the variant offered has the
// receiving CPU to itself while the others sleep in recvmmsg: each is measured on the same CPU, the
// same device and the same generator, with its own receive call. The variants trade ports between
// phases of a run (place()), so that what differs between the ports is no variant's.

#include <algorithm>
#include <chrono>
#include <thread>

#include "base/system_facts.h"
#include "engine/model/metric.h"
#include "engine/net/cpu_pin.h"
#include "engine/net/ethtool.h"
#include "engine/net/generator.h"
#include "engine/net/testbed.h"
#include "engine/net/tested_state.h"
#include "engine/workloads/group_view.h"
#include "engine/workloads/udp_rx.h"
#include "engine/workloads/udp_rx_receiver.h"

namespace nf::engine::workloads {

namespace {

using namespace udp_rx;  // NOLINT(google-build-using-namespace)

class UdpRxGroup : public LiveGroup {
public:
    UdpRxGroup(std::vector<Config> configs, std::unique_ptr<net::Testbed> bed, std::unique_ptr<net::Generator> gen,
               std::vector<Fd> socks)
        : m_c(std::move(configs)),
          m_bed(std::move(bed)),
          m_gen(std::move(gen)),
          m_device(net::deviceStats(m_bed->rx().nsFd, m_bed->rx().ifname))
    {
        for (std::size_t v = 0; v < socks.size(); ++v) {
            m_rx.push_back(std::make_unique<Receiver>(std::move(socks[v]), m_c[v].rxCpu, m_c[v].batch));
            m_views.push_back(std::make_unique<GroupView<UdpRxGroup>>(*this, v));
        }
        m_tids.assign(m_rx.size(), 0);
    }
    ~UdpRxGroup() override { UdpRxGroup::stop(); }
    UdpRxGroup(const UdpRxGroup&) = delete;
    UdpRxGroup& operator=(const UdpRxGroup&) = delete;

    LiveSession& variant(std::size_t v) override { return *m_views[v]; }
    TestedState testedState() const override
    {
        return net::readTestedState({{m_bed->rx().nsFd, m_bed->rx().ifname}, {m_bed->tx().nsFd, m_bed->tx().ifname}});
    }
    std::size_t size() const override { return m_views.size(); }

    Result<void> start() override
    {
        stop();
        if (std::any_of(m_rx.begin(), m_rx.end(), [](const auto& r) { return r == nullptr; })) {
            return Error{"udp-rx side by side: a variant has no place (placing it failed)"};
        }
        for (std::size_t p = 0; p < m_rx.size(); ++p) {
            const auto v = variantAt(p, m_rotation);
            m_tids[v] = m_rx[v]->start();
        }
        offer(0);
        if (auto r = m_gen->start(); !r) {
            stop();
            return r;
        }
        m_running = true;
        return {};
    }

    void stop() override
    {
        m_gen->stop();
        for (auto& rx : m_rx) {
            if (rx) {
                rx->stop();
            }
        }
        m_tids.assign(m_rx.size(), 0);
        m_running = false;
    }

    // Every socket closes before any opens, since a variant takes over another's port.
    Result<void> place(std::size_t rotation) override
    {
        stop();
        for (auto& rx : m_rx) {
            rx.reset();
        }
        m_rotation = rotation;
        for (std::size_t p = 0; p < m_rx.size(); ++p) {
            const auto v = variantAt(p, rotation);
            auto sock = NF_TRY(openReceiver(m_bed->rx(), m_c[v], portOf(p)));
            m_rx[v] = std::make_unique<Receiver>(std::move(sock), m_c[v].rxCpu, m_c[v].batch);
        }
        return {};
    }

    void offer(std::size_t v) override { m_gen->setPort(portOf(placeOf(v, m_rotation))); }

    bool pending(std::size_t v) const override { return m_rx[v]->queued() > 0; }

    std::vector<std::string> quantities() const
    {
        std::vector<std::string> q = {quantity::kPackets, quantity::kBytes, quantity::kDrops,
                                      quantity::kOfferedPackets};
        for (const auto& name : m_device.names()) {
            q.push_back(quantity::kDevicePrefix + name);
        }
        return q;
    }

    Result<std::vector<double>> sample(std::size_t v)
    {
        const auto& rx = *m_rx[v];
        std::vector<double> values{static_cast<double>(rx.packets()), static_cast<double>(rx.bytes()),
                                   static_cast<double>(rx.drops()), static_cast<double>(m_gen->sent())};
        auto device = NF_TRY(m_device.read());
        values.insert(values.end(), device.begin(), device.end());
        return values;
    }

    Result<void> startFor() { return m_running ? Result<void>{} : start(); }
    pid_t tid(std::size_t v) const { return m_tids[v]; }
    const Config& config(std::size_t v) const { return m_c[v]; }
    std::vector<std::string> warnings(std::size_t v) const { return nonEmpty({m_rx[v]->warning(), m_gen->warning()}); }

    std::vector<std::pair<std::string, std::string>> facts(std::size_t v) const
    {
        const auto& c = m_c[v];
        const auto& rx = m_bed->rx();
        const auto& tx = m_bed->tx();
        return {{"path", c.path == net::TestbedPath::Veth ? "veth" : "loopback"},
                {"sender", tx.ifname + " (ifindex " + std::to_string(tx.ifindex) + ")"},
                {"receiver", rx.ifname + " (ifindex " + std::to_string(rx.ifindex) + ")"},
                {"generator", m_gen->describe()},
                {"receiver_call", c.batch == 1 ? "recvmsg" : "recvmmsg, " + std::to_string(c.batch) + " buffers"},
                {"side_by_side", std::to_string(m_rx.size()) + " receivers on one testbed, UDP ports " +
                                     std::to_string(portOf(0)) + "-" + std::to_string(portOf(m_rx.size() - 1)) +
                                     ", each on CPU " + std::to_string(c.rxCpu) +
                                     "; the generator offers to one port at a time, and the variants trade "
                                     "ports between the phases of each repetition (a sample's `place`)"},
                {"counter_cpus", base::formatCpuList(c.counterCpus)}};
    }

private:
    static std::uint16_t portOf(std::size_t place) { return static_cast<std::uint16_t>(kPort + place); }

    std::vector<Config> m_c;
    std::unique_ptr<net::Testbed> m_bed;
    std::unique_ptr<net::Generator> m_gen;
    std::vector<std::unique_ptr<Receiver>> m_rx;
    std::size_t m_rotation = 0;  // variant v is on port portOf(placeOf(v, m_rotation))
    std::vector<std::unique_ptr<GroupView<UdpRxGroup>>> m_views;
    std::vector<pid_t> m_tids;
    net::DeviceStats m_device;  // the receiving veth end's own statistics, shared by every variant
    bool m_running = false;
};

}  // namespace

Result<std::unique_ptr<LiveGroup>> makeUdpRxGroup(const std::vector<ParamSet>& params)
{
    NF_TRY(net::requireNetworkCapabilities("udp-rx"));
    std::vector<Config> configs;
    configs.reserve(params.size());
    for (const auto& p : params) {
        configs.push_back(NF_TRY(readConfig(p)));
    }
    if (configs.empty()) {
        return Error{"udp-rx side by side: no variants"};
    }
    const auto& c = configs.front();
    auto bed = NF_TRY(net::Testbed::create({c.path, c.gro}));
    net::GeneratorOptions g{c.txCpu, c.txBatch, c.payload, c.rate, kPort};
    auto gen =
        NF_TRY(c.generator == "xdp-live" ? net::makeXdpLiveGenerator(*bed, g) : net::makeSendmmsgGenerator(*bed, g));
    std::vector<Fd> socks;
    for (std::size_t v = 0; v < configs.size(); ++v) {
        socks.push_back(NF_TRY(openReceiver(bed->rx(), configs[v], static_cast<std::uint16_t>(kPort + v))));
    }
    return std::unique_ptr<LiveGroup>(
        std::make_unique<UdpRxGroup>(std::move(configs), std::move(bed), std::move(gen), std::move(socks)));
}

}  // namespace nf::engine::workloads
