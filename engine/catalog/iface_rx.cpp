#include "engine/catalog/cpu_params.h"
#include "engine/catalog/descriptors.h"

namespace nf::engine::catalog {

WorkloadDescriptor ifaceRx()
{
    WorkloadDescriptor info;
    info.summary = "receive rate of a real interface fed by an external sender (sar -n DEV), with per-CPU counters";
    info.description =
        "Samples /sys/class/net/IFACE/statistics (rx_packets, rx_bytes, rx_dropped) every interval while "
        "traffic comes from elsewhere, with counters system-wide on counter_cpus (cpu_*). Sends nothing and "
        "changes nothing on the interface. Variants are whatever the operator changes between runs or on the "
        "sender; a run of one variant gives the rate's spread.";
    info.primaryMetric = "pps";
    info.defaultChunk = 0;
    info.params = {
        {.name = "iface", .type = ParamType::Text, .defaultValue = "", .description = "interface to sample (required)"},
        {.name = "counter_cpus",
         .type = ParamType::Text,
         .defaultValue = "auto",
         .description = "CPUs counted system-wide: auto = every allowed CPU, none, or a list"},
    };
    info.check = [](const ParamSet& p, const CheckContext& ctx) -> Result<void> {
        if (p.text("iface").empty()) {
            return Error{"iface-rx needs iface=NAME, the interface an external sender feeds"};
        }
        NF_TRY(counterCpus(p.text("counter_cpus"), ctx.allowedCpus, ctx.allowedCpus));
        return {};
    };
    return info;
}

}  // namespace nf::engine::catalog
