#include "engine/catalog/descriptors.h"

namespace nf::engine::catalog {

WorkloadDescriptor indirectCall()
{
    WorkloadDescriptor info;
    info.summary = "a callback call: direct, through a function pointer, or through a retpoline";
    info.models = "net/xdp/xsk.c: xsk_flush";
    info.description =
        "Models xsk_flush() calling sk->sk_data_ready(sk), which a patch replaced by a direct call to "
        "sock_def_readable() to avoid the retpoline that spectre_v2 mitigations put on every indirect "
        "call. Each operation is one call to the same out-of-line callee doing `work` dependent steps: "
        "call=direct calls it by name, call=indirect loads the pointer from a struct and calls through "
        "it, call=retpoline does the same from code built with GCC's -mindirect-branch=thunk or "
        "clang's -mretpoline (x86-64 only). It measures the user-space cost of the call itself; it "
        "cannot show the kernel's own thunk choice (retpoline, lfence or none, patched at boot), "
        "IBRS/eIBRS or other hardware "
        "mitigations, or the real socket wakeup work that sock_def_readable() does.";
    info.params = {
        {.name = "call",
         .type = ParamType::Choice,
         .defaultValue = "indirect",
         .description = "how the callee is called",
         .choices = {"direct", "indirect", "retpoline"},
         .selectsCode = true},
        {.name = "work",
         .type = ParamType::Int,
         .defaultValue = "4",
         .description = "dependent operations the callee does per call",
         .max = 10000,
         .unit = "ops"},
    };
    info.placedCode = true;
    info.primaryMetric = "tsc_per_op";
    info.defaultChunk = 0.002;
    info.check = [](const ParamSet& p, const CheckContext&) -> Result<void> {
#ifndef NF_RETPOLINE_THUNK
        if (p.text("call") == "retpoline") {
            return Error{
                "call=retpoline: not supported by this build (retpoline thunks need GCC or clang on x86-64: "
                "-mindirect-branch=thunk or -mretpoline)"};
        }
#else
        static_cast<void>(p);
#endif
        return {};
    };
    return info;
}

}  // namespace nf::engine::catalog
