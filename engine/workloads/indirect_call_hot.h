// The hot code of `indirect-call`, once per code placement: each of its three translation units
// includes its part through each_placement.h, having defined which part it is
// (NF_INDIRECT_CALL_CALLEE, NF_INDIRECT_CALL_LOOPS or NF_INDIRECT_CALL_RETPOLINE). No include
// guard, by design.

#include "engine/workloads/placed.h"

namespace NF_PLACED_NS {

#if defined(NF_INDIRECT_CALL_CALLEE)
NF_PLACED __attribute__((noinline)) void sockDefReadable(Sock* sk)
{
    std::uint64_t x = sk->state;
    for (std::uint64_t i = 0; i < sk->work; ++i) {
        x = x * 6364136223846793005ULL + 1442695040888963407ULL;
        asm volatile("" : "+r"(x));
    }
    sk->state = x;
    ++sk->readableCalls;
}
#endif

#if defined(NF_INDIRECT_CALL_LOOPS)
// Both loops launder the Sock pointer through an empty asm on every call, so the compiler can
// neither devirtualise s->dataReady nor hoist its load: each call reads the pointer from memory,
// as xsk_flush() reads sk->sk_data_ready. The direct loop does the same for symmetry.
NF_PLACED __attribute__((noinline)) void runDirect(Sock* sk, std::uint64_t calls)
{
    for (std::uint64_t i = 0; i < calls; ++i) {
        Sock* s = sk;
        asm volatile("" : "+r"(s));
        NF_PLACED_NS::sockDefReadable(s);  // this placement's copy
    }
}

NF_PLACED __attribute__((noinline)) void runIndirect(Sock* sk, std::uint64_t calls)
{
    for (std::uint64_t i = 0; i < calls; ++i) {
        Sock* s = sk;
        asm volatile("" : "+r"(s));
        s->dataReady(s);
    }
}
#endif

#if defined(NF_INDIRECT_CALL_RETPOLINE)
NF_PLACED __attribute__((noinline)) void runRetpoline(Sock* sk, std::uint64_t calls)
{
    for (std::uint64_t i = 0; i < calls; ++i) {
        Sock* s = sk;
        asm volatile("" : "+r"(s));  // the optimiser cannot know which function s->dataReady is
        s->dataReady(s);
    }
}
#endif

}  // namespace NF_PLACED_NS
