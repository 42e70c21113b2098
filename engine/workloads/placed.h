// Included at the top of a workload's placed hot-code header, once per code placement
// (each_placement.h sets NF_PLACEMENT and NF_PLACED_SECTION): no include guard, by design. It sets
//   NF_PLACED_NS            the namespace of this placement's copy (placement0, placement1, ...);
//   NF_PLACED               what a hot function of the copy is declared with (its section); a
//                           function template needs it on an explicit instantiation of each of
//                           its instantiations too, as GCC drops it from the template;
//   NF_PLACED_OUT_OF_LINE   the same for a model function that stands for a real call
//                           (NF_OUT_OF_LINE in placement 0, without the cache-line alignment after);
//   NF_PLACED_LOOP          the same for a measuring loop: noinline, on a cache line in placement 0;
// and, for a placement other than 0, starts its section on a page with the placement's pad of int3
// (engine/workloads/placement.h).

#include "engine/workloads/out_of_line.h"
#include "engine/workloads/placement.h"

#undef NF_PLACED_NS
#undef NF_PLACED
#undef NF_PLACED_OUT_OF_LINE
#undef NF_PLACED_LOOP
#define NF_PLACED_CAT2(a, b) a##b
#define NF_PLACED_CAT(a, b) NF_PLACED_CAT2(a, b)
#define NF_PLACED_STR2(a) #a
#define NF_PLACED_STR(a) NF_PLACED_STR2(a)
#define NF_PLACED_NS NF_PLACED_CAT(placement, NF_PLACEMENT)

#if NF_PLACEMENT == 0
#define NF_PLACED
#define NF_PLACED_OUT_OF_LINE NF_OUT_OF_LINE
#define NF_PLACED_LOOP __attribute__((noinline, aligned(64)))
#else
#define NF_PLACED_SECTION_NAME ".text.nf_placement." NF_PLACED_SECTION "." NF_PLACED_STR(NF_PLACEMENT)
#define NF_PLACED __attribute__((section(NF_PLACED_SECTION_NAME)))
#define NF_PLACED_LOOP __attribute__((noinline, section(NF_PLACED_SECTION_NAME)))
#if defined(__clang__)
#define NF_PLACED_OUT_OF_LINE __attribute__((noinline, section(NF_PLACED_SECTION_NAME)))
#else
#define NF_PLACED_OUT_OF_LINE __attribute__((noinline, noipa, section(NF_PLACED_SECTION_NAME)))
#endif
#if defined(__x86_64__) || defined(__i386__)
#define NF_PLACED_FILL "0xcc"  // int3
#else
#define NF_PLACED_FILL "0"
#endif
#define NF_PLACED_PAD "(" NF_PLACED_STR(NF_PLACEMENT) " * " NF_PLACED_STR(NF_PLACEMENT_PAD_STEP) ") % 4096"
// Comes before every function of the section: GCC emits top-level asm first (and with
// -fno-toplevel-reorder, engine/workloads/CMakeLists.txt, everything in the order of the source).
asm(".pushsection " NF_PLACED_SECTION_NAME
    ",\"ax\",%progbits\n\t"
    ".balign 4096\n\t"
    ".skip " NF_PLACED_PAD ", " NF_PLACED_FILL
    "\n\t"
    ".popsection");
#endif
