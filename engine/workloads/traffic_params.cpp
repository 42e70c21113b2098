#include "workloads/traffic_params.h"

namespace nf::engine::workloads {

std::vector<ParamSpec> trafficParams(const std::string& defaultGenerator, const std::string& receiver,
                                     const std::string& payload)
{
    const std::string other = defaultGenerator == "sendmmsg" ? "xdp-live" : "sendmmsg";
    return {
        {"generator", ParamType::Choice, defaultGenerator, "traffic generator", 0, 0, {defaultGenerator, other}, ""},
        {"tx_cpu", ParamType::Int, "0", "CPU of the generator thread", 0, 4095, {}, ""},
        {"rx_cpu", ParamType::Int, "1", "CPU of the " + receiver, 0, 4095, {}, ""},
        {"share_cpu", ParamType::Int, "0", "1 allows tx_cpu == rx_cpu", 0, 1, {}, ""},
        {"counter_cpus",
         ParamType::Text,
         "auto",
         "CPUs counted system-wide (perf stat -C): auto = tx_cpu and rx_cpu, none, or a list such as 0-1",
         0,
         0,
         {},
         ""},
        {"size", ParamType::Int, "64", payload, 1, 1472, {}, "bytes"},
        {"tx_batch",
         ParamType::Int,
         "64",
         "datagrams per sendmmsg call; frames per kernel batch for xdp-live (at most 256)",
         1,
         1024,
         {},
         ""},
        {"rate", ParamType::Real, "0", "generator rate limit; 0 = as fast as it goes", 0, 1e9, {}, "packets/s"},
    };
}

}  // namespace nf::engine::workloads
