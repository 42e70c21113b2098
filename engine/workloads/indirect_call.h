#pragma once
// `indirect-call`: the cost of a call through a function pointer, with and without a retpoline,
// against a direct call to the same callee. Models seed 001: xsk_flush() calling
// sk->sk_data_ready(sk), which a patch replaced by a direct call to sock_def_readable().
//
// The hot code (indirect_call_hot.h) is split over three translation units so that each call kind
// is what it claims, each with a copy per code placement:
//   indirect_call_callee.cpp     the callee (sockDefReadable), never inlined into a loop;
//   indirect_call.cpp            the direct and the plain indirect loop (-O2);
//   indirect_call_retpoline.cpp  the indirect loop, built with thunks on x86-64 (GCC or clang).

#include <cstddef>
#include <cstdint>
#include <memory>

#include "engine/run/workload.h"
#include "engine/workloads/placement.h"

namespace nf::engine::workloads {

// The implementation of catalogue entry engine/catalog/indirect_call.cpp: one per variant.
// `placement`: the code placement to run in (engine/workloads/placement.h).
Result<std::unique_ptr<CallLoop>> makeIndirectCall(const ParamSet& params, std::size_t placement = 0);

enum class CallKind { Direct, Indirect, Retpoline };

namespace indirect_call {

// Stands in for struct sock: the callback pointer the kernel calls through (sk_data_ready) and
// the state the callee works on. The loop owns it; the callee counts its own invocations.
struct Sock {
    void (*dataReady)(Sock* sk) = nullptr;
    std::uint64_t work = 0;           // dependent steps the callee runs per call
    std::uint64_t state = 1;          // the callee's LCG value
    std::uint64_t readableCalls = 0;  // how often the callee ran
};

// Each code placement's copy (engine/workloads/placement.h) of the hot functions:
//   sockDefReadable  the callee, for both the direct and the indirect call (sock_def_readable),
//                    in its own translation unit with external linkage, so no loop can inline it;
//   runDirect, runIndirect, runRetpoline: `calls` calls from each kind of loop, each noinline and
//                    reloading sk->dataReady on every call (runRetpoline from the thunk-compiled
//                    translation unit). runDirect calls its own placement's sockDefReadable.
#define NF_INDIRECT_CALL_DECLARE(L)                       \
    namespace placement##L                                \
    {                                                     \
        void sockDefReadable(Sock* sk);                   \
        void runDirect(Sock* sk, std::uint64_t calls);    \
        void runIndirect(Sock* sk, std::uint64_t calls);  \
        void runRetpoline(Sock* sk, std::uint64_t calls); \
    }
NF_EACH_PLACEMENT(NF_INDIRECT_CALL_DECLARE)
#undef NF_INDIRECT_CALL_DECLARE

// Placement 0's: the code as it always was.
using placement0::runDirect;
using placement0::runIndirect;
using placement0::runRetpoline;
using placement0::sockDefReadable;

// Whether indirect_call_retpoline.cpp was built with thunks (x86-64 GCC or clang).
bool retpolineThunkInUse();

// A CallLoop for tests that need the callee's invocation count.
class IndirectCallLoop : public PlacedCallLoop {
public:
    using PlacedCallLoop::PlacedCallLoop;
    virtual std::uint64_t calleeCalls() const = 0;
};

// Builds the loop in code placement `placement`, or says why `kind` cannot run here (retpoline on
// a compiler without thunks).
Result<std::unique_ptr<IndirectCallLoop>> makeIndirectCallLoop(CallKind kind, std::uint64_t work,
                                                               std::size_t placement = 0);

}  // namespace indirect_call

}  // namespace nf::engine::workloads
