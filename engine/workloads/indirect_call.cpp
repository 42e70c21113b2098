#include "engine/workloads/indirect_call.h"
#include "engine/workloads/registry.h"

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

Result<std::unique_ptr<CallLoop>> makeIndirectCall(const ParamSet& params)
{
    const std::string& call = params.text("call");
    const CallKind kind = call == "direct"     ? CallKind::Direct
                          : call == "indirect" ? CallKind::Indirect
                                               : CallKind::Retpoline;
    auto loop = NF_TRY(indirect_call::makeIndirectCallLoop(kind, static_cast<std::uint64_t>(params.integer("work"))));
    return std::unique_ptr<CallLoop>(std::move(loop));
}

WorkloadImplementation implementation::indirectCall()
{
    return {.make = makeIndirectCall};
}

}  // namespace nf::engine::workloads
