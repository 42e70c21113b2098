// The hot code of `spin` (engine/workloads/spin.cpp), once per code placement: spin.cpp includes
// it through each_placement.h. No include guard, by design.

#include "engine/workloads/placed.h"

namespace NF_PLACED_NS {

// One call: `work` steps of a 64-bit LCG. Each step depends on the last (multiply then add), and
// the empty asm makes the value opaque to the optimiser, so nothing is folded or vectorised.
NF_PLACED __attribute__((noinline)) std::uint64_t spinCall(std::uint64_t x, std::uint64_t work)
{
    for (std::uint64_t i = 0; i < work; ++i) {
        x = x * 6364136223846793005ULL + 1442695040888963407ULL;
        asm volatile("" : "+r"(x));
    }
    return x;
}

// The measuring loop: `calls` calls, each on the last one's value.
NF_PLACED __attribute__((noinline)) std::uint64_t spinLoop(std::uint64_t x, std::uint64_t work, std::uint64_t calls)
{
    for (std::uint64_t i = 0; i < calls; ++i) {
        x = spinCall(x, work);
    }
    return x;
}

}  // namespace NF_PLACED_NS
