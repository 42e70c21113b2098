// The callee of the indirect-call workload (sock_def_readable), one copy per code placement. Kept
// in its own translation unit so the direct call cannot be inlined; it is the same function for all
// three call kinds.

#include "engine/workloads/indirect_call.h"

namespace nf::engine::workloads::indirect_call {

#define NF_INDIRECT_CALL_CALLEE
#define NF_PLACED_FILE "engine/workloads/indirect_call_hot.h"
#define NF_PLACED_SECTION "indirect_call_callee"
#include "engine/workloads/each_placement.h"

}  // namespace nf::engine::workloads::indirect_call
