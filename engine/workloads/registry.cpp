#include "engine/workloads/registry.h"

#include "engine/workloads/iface_rx.h"
#include "engine/workloads/indirect_call.h"
#include "engine/workloads/page_frag.h"
#include "engine/workloads/page_pool.h"
#include "engine/workloads/spin.h"
#include "engine/workloads/udp_rx.h"
#include "engine/workloads/xdp_rx.h"

namespace nf::engine::workloads {

const WorkloadImplementations& implementations()
{
    static const WorkloadImplementations list = {
        {.name = "spin", .make = makeSpin},
        {.name = "indirect-call", .make = makeIndirectCall},
        {.name = "page-pool", .make = makePagePool},
        {.name = "page-frag", .make = makePageFrag},
        {.name = "udp-rx", .makeLive = makeUdpRx, .makeLiveGroup = makeUdpRxGroup},
        {.name = "xdp-rx", .makeLive = makeXdpRx, .makeLiveGroup = makeXdpRxGroup},
        {.name = "iface-rx", .makeLive = makeIfaceRx},
    };
    return list;
}

}  // namespace nf::engine::workloads
