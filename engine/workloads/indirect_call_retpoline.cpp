// The indirect loop again, in a translation unit that engine/CMakeLists.txt compiles with
// `-mindirect-branch=thunk -mindirect-branch-register` on x86-64 GCC (`-mretpoline` with clang): the
// call through sk->dataReady then goes through __x86_indirect_thunk_<reg> (__llvm_retpoline_<reg>),
// as it does in a kernel built with CONFIG_RETPOLINE when spectre_v2=retpoline. Keep this file to
// the loop alone: anything inline from a header that it instantiates would be compiled with thunks
// too.

#include "engine/workloads/indirect_call.h"

namespace nf::engine::workloads::indirect_call {

__attribute__((noinline)) void runRetpoline(Sock* sk, std::uint64_t calls)
{
    for (std::uint64_t i = 0; i < calls; ++i) {
        Sock* s = sk;
        asm volatile("" : "+r"(s));  // the optimiser cannot know which function s->dataReady is
        s->dataReady(s);
    }
}

bool retpolineThunkInUse()
{
#ifdef NF_RETPOLINE_THUNK
    return true;
#else
    return false;
#endif
}

}  // namespace nf::engine::workloads::indirect_call
