#include "workloads/indirect_call.h"

#include <string>
#include <utility>
#include <vector>

namespace nf::engine::workloads {

namespace indirect_call {

// Both loops launder the Sock pointer through an empty asm on every call, so the compiler can
// neither devirtualise s->dataReady nor hoist its load: each call reads the pointer from memory,
// as xsk_flush() reads sk->sk_data_ready. The direct loop does the same for symmetry.
__attribute__((noinline)) void runDirect(Sock* sk, std::uint64_t calls)
{
    for (std::uint64_t i = 0; i < calls; ++i) {
        Sock* s = sk;
        asm volatile("" : "+r"(s));
        sockDefReadable(s);
    }
}

__attribute__((noinline)) void runIndirect(Sock* sk, std::uint64_t calls)
{
    for (std::uint64_t i = 0; i < calls; ++i) {
        Sock* s = sk;
        asm volatile("" : "+r"(s));
        s->dataReady(s);
    }
}

namespace {

const char* kindName(CallKind kind)
{
    switch (kind) {
        case CallKind::Direct: return "direct";
        case CallKind::Indirect: return "indirect";
        case CallKind::Retpoline: return "retpoline";
    }
    return "?";
}

class Loop final : public IndirectCallLoop {
public:
    Loop(CallKind kind, std::uint64_t work) : m_kind(kind)
    {
        m_sock.dataReady = &sockDefReadable;
        m_sock.work = work;
    }

    void run(std::uint64_t calls) override
    {
        switch (m_kind) {
            case CallKind::Direct: runDirect(&m_sock, calls); break;
            case CallKind::Indirect: runIndirect(&m_sock, calls); break;
            case CallKind::Retpoline: runRetpoline(&m_sock, calls); break;
        }
    }

    std::vector<std::pair<std::string, std::string>> facts() const override
    {
        const bool thunk = m_kind == CallKind::Retpoline && retpolineThunkInUse();
        return {
            {"call", kindName(m_kind)},
            {"retpoline_thunk", thunk ? "yes" : "no"},
            {"retpoline_thunk_built", retpolineThunkInUse() ? "yes" : "no"},
        };
    }

    std::vector<const void*> hotCode() const override
    {
        switch (m_kind) {
            case CallKind::Direct: return {codeAddress(&runDirect), codeAddress(&sockDefReadable)};
            case CallKind::Indirect: return {codeAddress(&runIndirect), codeAddress(&sockDefReadable)};
            case CallKind::Retpoline: return {codeAddress(&runRetpoline), codeAddress(&sockDefReadable)};
        }
        return {};
    }

    std::uint64_t calleeCalls() const override { return m_sock.readableCalls; }

private:
    CallKind m_kind;
    Sock m_sock;
};

}  // namespace

Result<std::unique_ptr<IndirectCallLoop>> makeIndirectCallLoop(CallKind kind, std::uint64_t work)
{
    if (kind == CallKind::Retpoline && !retpolineThunkInUse()) {
        return Error{
            "call=retpoline: not supported by this build (retpoline thunks need GCC or clang on x86-64: "
            "-mindirect-branch=thunk or -mretpoline)"};
    }
    return std::unique_ptr<IndirectCallLoop>(std::make_unique<Loop>(kind, work));
}

}  // namespace indirect_call

WorkloadInfo indirectCallInfo()
{
    WorkloadInfo info;
    info.name = "indirect-call";
    info.summary = "a callback call: direct, through a function pointer, or through a retpoline";
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
        {"call",
         ParamType::Choice,
         "indirect",
         "how the callee is called",
         0,
         0,
         {"direct", "indirect", "retpoline"},
         ""},
        {"work", ParamType::Int, "4", "dependent operations the callee does per call", 0, 10000, {}, "ops"},
    };
    info.primaryMetric = "tsc_per_op";
    info.defaultChunk = 0.002;
    info.make = [](const ParamSet& params) -> Result<std::unique_ptr<CallLoop>> {
        const std::string& call = params.text("call");
        const CallKind kind = call == "direct"     ? CallKind::Direct
                              : call == "indirect" ? CallKind::Indirect
                                                   : CallKind::Retpoline;
        auto loop = indirect_call::makeIndirectCallLoop(kind, static_cast<std::uint64_t>(params.integer("work")));
        if (!loop) {
            return loop.error();
        }
        return std::unique_ptr<CallLoop>(std::move(*loop));
    };
    return info;
}

}  // namespace nf::engine::workloads
