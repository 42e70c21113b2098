#include "engine/catalog/traffic_params.h"

#include "engine/catalog/cpu_params.h"

namespace nf::engine::catalog {

std::vector<ParamSpec> trafficParams(const std::string& defaultGenerator, const std::string& receiver,
                                     const std::string& payload)
{
    const std::string other = defaultGenerator == "sendmmsg" ? "xdp-live" : "sendmmsg";
    return {
        {.name = "generator",
         .type = ParamType::Choice,
         .defaultValue = defaultGenerator,
         .description = "traffic generator",
         .choices = {defaultGenerator, other}},
        {.name = "tx_cpu",
         .type = ParamType::Int,
         .defaultValue = "0",
         .description = "CPU of the generator thread",
         .max = 4095},
        {.name = "rx_cpu",
         .type = ParamType::Int,
         .defaultValue = "1",
         .description = "CPU of the " + receiver,
         .max = 4095},
        {.name = "share_cpu",
         .type = ParamType::Int,
         .defaultValue = "0",
         .description = "1 allows tx_cpu == rx_cpu",
         .max = 1},
        {.name = "counter_cpus",
         .type = ParamType::Text,
         .defaultValue = "auto",
         .description =
             "CPUs counted system-wide (perf stat -C): auto = tx_cpu and rx_cpu, none, or a list such as 0-1"},
        {.name = "size",
         .type = ParamType::Int,
         .defaultValue = "64",
         .description = payload,
         .min = 1,
         .max = 1472,
         .unit = "bytes"},
        {.name = "tx_batch",
         .type = ParamType::Int,
         .defaultValue = "64",
         .description = "datagrams per sendmmsg call; frames per kernel batch for xdp-live (at most 256)",
         .min = 1,
         .max = 1024},
        {.name = "rate",
         .type = ParamType::Real,
         .defaultValue = "0",
         .description = "generator rate limit; 0 = as fast as it goes",
         .max = 1e9,
         .unit = "packets/s"},
    };
}

std::vector<ParamSpec> twoHostParams(bool withIface)
{
    std::vector<ParamSpec> params = {
        {.name = "tx_host",
         .type = ParamType::Text,
         .defaultValue = "",
         .description =
             "two hosts: the generator host (user@host or an ssh Host alias), reached with ssh in batch mode; "
             "\"\" = the tool's own testbed"},
        {.name = "iface",
         .type = ParamType::Text,
         .defaultValue = "",
         .description = "two hosts: the interface here that receives (its MAC and address are the destination)"},
        {.name = "tx_iface",
         .type = ParamType::Text,
         .defaultValue = "",
         .description = "two hosts: the generator host's sending interface; \"\" = the one its route to iface uses"},
        {.name = "ssh_config",
         .type = ParamType::Text,
         .defaultValue = "",
         .description = "two hosts: an ssh configuration file (ssh -F); \"\" = the user's own"},
    };
    if (!withIface) {
        params.erase(params.begin() + 1);
    }
    return params;
}

Result<void> checkTwoHost(const ParamSet& p, bool ifaceNeedsHost)
{
    const auto& host = p.text("tx_host");
    if (!host.empty() && p.text("iface").empty()) {
        return Error{"tx_host=" + host + " needs iface=NAME, the interface here that receives its traffic"};
    }
    if (ifaceNeedsHost && host.empty() && !p.text("iface").empty()) {
        return Error{"iface=" + p.text("iface") +
                     " needs tx_host=DEST, the generator host (receive-only on an interface is iface-rx)"};
    }
    if (!host.empty() && (host[0] == '-' || host.find_first_of(" \t\n'\"\\;") != std::string::npos)) {
        return Error{"tx_host=" + host + ": not a host ssh accepts (user@host or a Host alias)"};
    }
    if (host.empty() && !p.text("tx_iface").empty()) {
        return Error{"tx_iface=" + p.text("tx_iface") + " needs tx_host=DEST"};
    }
    return {};
}

Result<TrafficCpus> trafficCpus(const ParamSet& p, bool generated, const std::vector<int>& allowed)
{
    TrafficCpus c;
    c.txCpu = static_cast<int>(p.integer("tx_cpu"));
    c.rxCpu = static_cast<int>(p.integer("rx_cpu"));
    NF_TRY(checkCpu("rx_cpu", c.rxCpu, allowed));
    std::vector<int> automatic = {c.rxCpu};
    if (generated) {
        NF_TRY(checkCpu("tx_cpu", c.txCpu, allowed));
        if (c.txCpu == c.rxCpu && p.integer("share_cpu") == 0) {
            return Error{"tx_cpu=" + std::to_string(c.txCpu) + " and rx_cpu=" + std::to_string(c.rxCpu) +
                         " are the same CPU (set share_cpu=1 to allow it)"};
        }
        if (c.txCpu != c.rxCpu) {
            automatic.insert(automatic.begin(), c.txCpu);
        }
    }
    auto cpus = NF_TRY(counterCpus(p.text("counter_cpus"), automatic, allowed));
    c.counterCpus = std::move(cpus);
    return c;
}

}  // namespace nf::engine::catalog
