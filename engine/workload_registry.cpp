#include "workload.h"
#include "workloads/indirect_call.h"
#include "workloads/page_frag.h"
#include "workloads/page_pool.h"
#include "workloads/spin.h"

namespace nf::engine {

const std::vector<WorkloadInfo>& workloadRegistry()
{
    static const std::vector<WorkloadInfo> registry = {
        workloads::spinInfo(),
        workloads::indirectCallInfo(),
        workloads::pagePoolInfo(),
        workloads::pageFragInfo(),
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
