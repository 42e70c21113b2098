// xdp-rx variants side by side: a veth testbed per variant, each receiving end with its own XDP
// program and AF_XDP socket, every application thread pinned to the same rx_cpu, and one xdp-live
// generator whose program redirects each frame (through a DEVMAP of the sending ends) to the
// testbed of the variant offered now, without ending its live-frames call. A testbed per variant
// because veth picks the receive queue by the sending CPU: two sockets cannot share one device's
// traffic by queue. veth runs the receiving NAPI on the sending CPU, so every variant's kernel
// receive work runs on tx_cpu as it does alone. The applications of the variants not offered are
// parked (they sleep in poll() once their RX ring is empty), so the one offered has rx_cpu to itself.
// The variants trade testbeds between phases of a run (place()), so that what differs between the
// testbeds' paths is no variant's.

#include <algorithm>

#include "base/system_facts.h"
#include "engine/model/metric.h"
#include "engine/net/cpu_pin.h"
#include "engine/net/generator.h"
#include "engine/net/tested_state.h"
#include "engine/workloads/group_view.h"
#include "engine/workloads/xdp_rx.h"
#include "engine/workloads/xdp_rx_receiver.h"

namespace nf::engine::workloads {

namespace {

using namespace xdp_rx;  // NOLINT(google-build-using-namespace)

class XdpRxGroup : public LiveGroup {
public:
    XdpRxGroup(std::vector<Config> configs, std::vector<TestbedPort> sides, std::unique_ptr<net::Generator> gen)
        : m_c(std::move(configs)), m_sides(std::move(sides)), m_gen(std::move(gen))
    {
        for (std::size_t v = 0; v < m_sides.size(); ++v) {
            const auto& rx = m_sides[v].bed->rx();
            m_apps.push_back(std::make_unique<XskApp>(*m_sides[v].port, m_c[v].app, m_c[v].rxCpu, m_c[v].batch));
            m_devices.push_back(net::deviceStats(rx.nsFd, rx.ifname));
            m_views.push_back(std::make_unique<GroupView<XdpRxGroup>>(*this, v));
        }
        m_tids.assign(m_apps.size(), 0);
        m_seen.assign(m_apps.size(), 0);
    }
    ~XdpRxGroup() override { XdpRxGroup::stop(); }
    XdpRxGroup(const XdpRxGroup&) = delete;
    XdpRxGroup& operator=(const XdpRxGroup&) = delete;

    LiveSession& variant(std::size_t v) override { return *m_views[v]; }
    TestedState testedState() const override
    {
        std::vector<net::TestedDevice> out;
        for (const auto& side : m_sides) {
            out.push_back({side.bed->rx().nsFd, side.bed->rx().ifname});
        }
        for (const auto& side : m_sides) {
            out.push_back({side.bed->tx().nsFd, side.bed->tx().ifname});
        }
        return net::readTestedState(out);
    }
    std::size_t size() const override { return m_views.size(); }

    Result<void> start() override
    {
        stop();
        if (std::any_of(m_apps.begin(), m_apps.end(), [](const auto& r) { return r == nullptr; })) {
            return Error{"xdp-rx side by side: a variant has no place (placing it failed)"};
        }
        for (std::size_t p = 0; p < m_apps.size(); ++p) {
            const auto v = variantAt(p, m_rotation);
            m_apps[v]->park(v != 0);
            m_tids[v] = m_apps[v]->start();
        }
        m_gen->setTarget(placeOf(0, m_rotation));
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
        for (auto& app : m_apps) {
            if (app) {
                app->stop();
            }
        }
        m_tids.assign(m_apps.size(), 0);
        m_running = false;
    }

    // The applications go before their ports, and every port before any opens again: a testbed's
    // receiving end takes one XDP program.
    Result<void> place(std::size_t rotation) override
    {
        stop();
        for (auto& app : m_apps) {
            app.reset();
        }
        for (auto& side : m_sides) {
            side.port.reset();
        }
        m_rotation = rotation;
        for (std::size_t p = 0; p < m_apps.size(); ++p) {
            const auto v = variantAt(p, rotation);
            m_sides[p].port = NF_TRY(openPort(*m_sides[p].bed, m_c[v]));
            m_apps[v] = std::make_unique<XskApp>(*m_sides[p].port, m_c[v].app, m_c[v].rxCpu, m_c[v].batch);
            m_seen[v] = 0;
        }
        return {};
    }

    // The application offered to stops sleeping before its frames come; the others park once they
    // have taken what is still on their way.
    void offer(std::size_t v) override
    {
        m_apps[v]->park(false);
        m_gen->setTarget(placeOf(v, m_rotation));
        for (std::size_t u = 0; u < m_apps.size(); ++u) {
            if (u != v) {
                m_apps[u]->park(true);
            }
            m_seen[u] = m_apps[u]->counts().packets;  // the first look after the switch counts from here
        }
    }

    // Frames on v's RX ring, or frames v took since the last look, or since the switch before it
    // (still trickling in from the generator's last kernel batch and the veth ring, which are not
    // visible from here).
    bool pending(std::size_t v) const override
    {
        const auto packets = m_apps[v]->counts().packets;
        const bool moved = packets != m_seen[v];
        m_seen[v] = packets;
        return moved || m_apps[v]->queued() > 0;
    }

    std::vector<std::string> quantities() const { return xdp_rx::quantities(m_devices.front()); }

    Result<std::vector<double>> sample(std::size_t v)
    {
        const auto p = placeOf(v, m_rotation);
        auto& side = m_sides[p];
        LinkSources links{&*side.rxStats, side.bed->rx().ifindex, &*side.txStats, side.bed->tx().ifindex};
        return sampleValues(m_c[v], m_apps[v]->counts(), *side.port, static_cast<double>(m_gen->sent()), links,
                            m_devices[p]);
    }

    Result<void> startFor() { return m_running ? Result<void>{} : start(); }
    pid_t tid(std::size_t v) const { return m_tids[v]; }
    const Config& config(std::size_t v) const { return m_c[v]; }
    std::vector<std::string> warnings(std::size_t v) const
    {
        return nonEmpty({m_apps[v]->warning(), m_gen->warning()});
    }

    std::vector<std::pair<std::string, std::string>> facts(std::size_t v) const
    {
        const auto& c = m_c[v];
        const auto& side = m_sides[placeOf(v, m_rotation)];
        const auto& rx = side.bed->rx();
        const auto& tx = side.bed->tx();
        std::vector<std::pair<std::string, std::string>> out = {
            {"path", "veth"},
            {"sender", tx.ifname + " (ifindex " + std::to_string(tx.ifindex) + ")"},
            {"receiver", rx.ifname + " (ifindex " + std::to_string(rx.ifindex) + ")"},
            {"generator", m_gen->describe()},
            {"app", std::string(c.app == XskAppKind::L2Fwd ? "l2fwd" : "rxdrop") + ", batch " +
                        std::to_string(c.batch) + ", CPU " + std::to_string(c.rxCpu)}};
        for (auto& f : side.port->facts()) {
            out.push_back(std::move(f));
        }
        out.emplace_back("side_by_side", std::to_string(m_sides.size()) +
                                             " testbeds, each with its own AF_XDP socket and application on CPU " +
                                             std::to_string(c.rxCpu) +
                                             "; the generator redirects its frames to one testbed at a time, the "
                                             "applications of the others sleep in poll(), and the variants trade "
                                             "testbeds between the phases of each repetition (a sample's `place`)");
        out.emplace_back("counter_cpus", base::formatCpuList(c.counterCpus));
        return out;
    }

private:
    // Member order is teardown order in reverse: the applications stop first, then the generator
    // goes, then the ports and testbeds.
    std::vector<Config> m_c;
    std::vector<TestbedPort> m_sides;  // per place; its port is that of the variant placed there
    std::unique_ptr<net::Generator> m_gen;
    std::vector<std::unique_ptr<XskApp>> m_apps;
    std::vector<net::DeviceStats> m_devices;  // each receiving end's own statistics
    std::vector<std::unique_ptr<GroupView<XdpRxGroup>>> m_views;
    std::size_t m_rotation = 0;  // variant v is on testbed (an index of m_sides) placeOf(v, m_rotation)
    std::vector<pid_t> m_tids;
    mutable std::vector<std::uint64_t> m_seen;  // pending(): each application's count at the last look
    bool m_running = false;
};

}  // namespace

Result<std::unique_ptr<LiveGroup>> makeXdpRxGroup(const std::vector<ParamSet>& params)
{
    NF_TRY(net::requireNetworkCapabilities("xdp-rx"));
    std::vector<Config> configs;
    for (const auto& p : params) {
        auto c = NF_TRY(readConfig(p));
        if (!c.iface.empty() || c.generator != "xdp-live") {
            return Error{"xdp-rx side by side needs the tool's testbeds and generator=xdp-live"};
        }
        configs.push_back(std::move(c));
    }
    if (configs.empty()) {
        return Error{"xdp-rx side by side: no variants"};
    }
    std::vector<TestbedPort> sides;
    std::vector<const net::Testbed*> beds;
    for (auto& c : configs) {
        auto side = NF_TRY(openTestbedPort(c));  // on an error, what was made so far goes with `sides`
        c.xsk = side.port->options();
        beds.push_back(side.bed.get());
        sides.push_back(std::move(side));
    }
    const auto& c = configs.front();
    auto gen = NF_TRY(net::makeXdpLiveGenerator(beds, {c.txCpu, c.txBatch, c.payload, c.rate, kPort}));
    return std::unique_ptr<LiveGroup>(
        std::make_unique<XdpRxGroup>(std::move(configs), std::move(sides), std::move(gen)));
}

}  // namespace nf::engine::workloads
