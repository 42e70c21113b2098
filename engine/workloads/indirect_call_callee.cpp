// The callee of the indirect-call workload (sock_def_readable). Kept in its own translation unit
// so the direct call cannot be inlined; it is the same function for all three call kinds.

#include "engine/workloads/indirect_call.h"

namespace nf::engine::workloads::indirect_call {

__attribute__((noinline)) void sockDefReadable(Sock* sk)
{
    std::uint64_t x = sk->state;
    for (std::uint64_t i = 0; i < sk->work; ++i) {
        x = x * 6364136223846793005ULL + 1442695040888963407ULL;
        asm volatile("" : "+r"(x));
    }
    sk->state = x;
    ++sk->readableCalls;
}

}  // namespace nf::engine::workloads::indirect_call
