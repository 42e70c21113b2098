#include "workload.h"
#include "workloads/command.h"
#include "workloads/iface_rx.h"
#include "workloads/indirect_call.h"
#include "workloads/page_frag.h"
#include "workloads/page_pool.h"
#include "workloads/spin.h"
#include "workloads/udp_rx.h"
#include "workloads/xdp_rx.h"

namespace nf::engine {

const std::vector<WorkloadInfo>& workloadRegistry()
{
    static const std::vector<WorkloadInfo> registry = {
        workloads::spinInfo(),  workloads::indirectCallInfo(), workloads::pagePoolInfo(), workloads::pageFragInfo(),
        workloads::udpRxInfo(), workloads::xdpRxInfo(),        workloads::ifaceRxInfo(),  workloads::commandInfo(),
    };
    return registry;
}

const WorkloadInfo* findWorkload(std::string_view name)
{
    for (const auto& w : workloadRegistry()) {
        if (w.name == name) {
            return &w;
        }
    }
    return nullptr;
}

}  // namespace nf::engine
