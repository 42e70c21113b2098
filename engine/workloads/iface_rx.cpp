#include "engine/workloads/iface_rx.h"
#include "engine/workloads/registry.h"

#include <net/if.h>

#include <fstream>

#include "base/system_facts.h"
#include "engine/catalog/cpu_params.h"
#include "engine/model/metric.h"
#include "engine/net/cpu_pin.h"
#include "engine/net/tested_state.h"

namespace nf::engine::workloads {

namespace {

Result<double> readCounter(const std::string& path)
{
    std::ifstream in(path);
    double value = 0;
    if (!(in >> value)) {
        return Error{"cannot read " + path};
    }
    return value;
}

class IfaceRxSession : public LiveSession {
public:
    IfaceRxSession(std::string iface, std::vector<int> cpus) : m_iface(std::move(iface)), m_cpus(std::move(cpus)) {}

    std::vector<std::string> quantities() const override
    {
        return {quantity::kPackets, quantity::kBytes, quantity::kDrops};
    }
    Result<void> start() override { return {}; }
    Result<std::vector<double>> sample() override
    {
        std::vector<double> out;
        for (const char* name : {"rx_packets", "rx_bytes", "rx_dropped"}) {
            auto v = NF_TRY(readCounter("/sys/class/net/" + m_iface + "/statistics/" + name));
            out.push_back(v);
        }
        return out;
    }
    void stop() override {}
    std::vector<int> counterCpus() const override { return m_cpus; }
    TestedState testedState() const override { return net::readTestedState({{-1, m_iface}}); }
    std::vector<std::pair<std::string, std::string>> facts() const override
    {
        return {{"iface", m_iface},
                {"source", "/sys/class/net/" + m_iface + "/statistics (rx_packets, rx_bytes, rx_dropped)"},
                {"counter_cpus", base::formatCpuList(m_cpus)}};
    }

private:
    std::string m_iface;
    std::vector<int> m_cpus;
};

}  // namespace

Result<std::unique_ptr<LiveSession>> makeIfaceRx(const ParamSet& params)
{
    const auto& iface = params.text("iface");
    if (iface.size() >= IFNAMSIZ || iface.find('/') != std::string::npos || iface == "." || iface == ".." ||
        if_nametoindex(iface.c_str()) == 0) {
        return Error{"iface=" + iface + ": no such network interface"};
    }
    auto cpus = NF_TRY(catalog::counterCpus(params.text("counter_cpus"), net::allowedCpus(), net::allowedCpus()));
    auto session = std::make_unique<IfaceRxSession>(iface, std::move(cpus));
    NF_TRY(session->sample());
    return std::unique_ptr<LiveSession>(std::move(session));
}

WorkloadImplementation implementation::ifaceRx()
{
    return {.makeLive = makeIfaceRx};
}

}  // namespace nf::engine::workloads
