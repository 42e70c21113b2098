#include "workloads/iface_rx.h"

#include <net/if.h>

#include <fstream>

#include "metric.h"
#include "net/cpu_pin.h"
#include "system_facts.h"

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
            auto v = readCounter("/sys/class/net/" + m_iface + "/statistics/" + name);
            if (!v) {
                return v.error();
            }
            out.push_back(*v);
        }
        return out;
    }
    void stop() override {}
    std::vector<int> counterCpus() const override { return m_cpus; }
    std::vector<std::pair<std::string, std::string>> facts() const override
    {
        return {{"iface", m_iface},
                {"source", "/sys/class/net/" + m_iface + "/statistics (rx_packets, rx_bytes, rx_dropped)"},
                {"counter_cpus", probes::formatCpuList(m_cpus)}};
    }

private:
    std::string m_iface;
    std::vector<int> m_cpus;
};

Result<std::unique_ptr<LiveSession>> makeIfaceRx(const ParamSet& params)
{
    const auto& iface = params.text("iface");
    if (iface.empty()) {
        return Error{"iface-rx needs iface=NAME, the interface an external sender feeds"};
    }
    if (iface.size() >= IFNAMSIZ || iface.find('/') != std::string::npos || iface == "." || iface == ".." ||
        if_nametoindex(iface.c_str()) == 0) {
        return Error{"iface=" + iface + ": no such network interface"};
    }
    auto cpus = net::parseCounterCpus(params.text("counter_cpus"), net::allowedCpus());
    if (!cpus) {
        return cpus.error();
    }
    auto session = std::make_unique<IfaceRxSession>(iface, std::move(*cpus));
    if (auto first = session->sample(); !first) {
        return first.error();
    }
    return std::unique_ptr<LiveSession>(std::move(session));
}

}  // namespace

WorkloadInfo ifaceRxInfo()
{
    WorkloadInfo info;
    info.name = "iface-rx";
    info.summary = "receive rate of a real interface fed by an external sender (sar -n DEV), with per-CPU counters";
    info.description =
        "Samples /sys/class/net/IFACE/statistics (rx_packets, rx_bytes, rx_dropped) every interval while "
        "traffic comes from elsewhere, with counters system-wide on counter_cpus (cpu_*). Sends nothing and "
        "changes nothing on the interface. Variants are whatever the operator changes between runs or on the "
        "sender; a run of one variant gives the rate's spread.";
    info.primaryMetric = "pps";
    info.defaultChunk = 0;
    info.params = {
        {"iface", ParamType::Text, "", "interface to sample (required)", 0, 0, {}, ""},
        {"counter_cpus",
         ParamType::Text,
         "auto",
         "CPUs counted system-wide: auto = every allowed CPU, none, or a list",
         0,
         0,
         {},
         ""},
    };
    info.makeLive = makeIfaceRx;
    return info;
}

}  // namespace nf::engine::workloads
