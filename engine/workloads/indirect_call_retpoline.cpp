// The indirect loop again, one copy per code placement, in a translation unit that engine/CMakeLists.txt compiles with
// `-mindirect-branch=thunk -mindirect-branch-register` on x86-64 GCC (`-mretpoline` with clang): the
// call through sk->dataReady then goes through __x86_indirect_thunk_<reg> (__llvm_retpoline_<reg>),
// as it does in a kernel built with CONFIG_RETPOLINE when spectre_v2=retpoline. Keep this file to
// the loop alone: anything inline from a header that it instantiates would be compiled with thunks
// too. The thunk itself is one function for every placement.

#include "engine/workloads/indirect_call.h"

namespace nf::engine::workloads::indirect_call {

#define NF_INDIRECT_CALL_RETPOLINE
#define NF_PLACED_FILE "engine/workloads/indirect_call_hot.h"
#define NF_PLACED_SECTION "indirect_call_retpoline"
#include "engine/workloads/each_placement.h"

bool retpolineThunkInUse()
{
#ifdef NF_RETPOLINE_THUNK
    return true;
#else
    return false;
#endif
}

}  // namespace nf::engine::workloads::indirect_call
