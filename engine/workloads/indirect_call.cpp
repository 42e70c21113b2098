#include "engine/workloads/indirect_call.h"
#include "engine/workloads/registry.h"

#include <array>
#include <string>
#include <utility>
#include <vector>

namespace nf::engine::workloads {

namespace indirect_call {

#define NF_INDIRECT_CALL_LOOPS
#define NF_PLACED_FILE "engine/workloads/indirect_call_hot.h"
#define NF_PLACED_SECTION "indirect_call"
#include "engine/workloads/each_placement.h"

namespace {

// Each placement's copies.
struct IndirectCallCode {
    void (*callee)(Sock* sk);
    void (*direct)(Sock* sk, std::uint64_t calls);
    void (*indirect)(Sock* sk, std::uint64_t calls);
    void (*retpoline)(Sock* sk, std::uint64_t calls);
};
#define NF_INDIRECT_CALL_CODE(L)                                                                           \
    IndirectCallCode{&placement##L::sockDefReadable, &placement##L::runDirect, &placement##L::runIndirect, \
                     &placement##L::runRetpoline},
const std::array<IndirectCallCode, kPlacements> kCode = {NF_EACH_PLACEMENT(NF_INDIRECT_CALL_CODE)};
#undef NF_INDIRECT_CALL_CODE

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
    Loop(CallKind kind, std::uint64_t work, std::size_t placement) : IndirectCallLoop(placement), m_kind(kind)
    {
        m_sock.dataReady = kCode[placement].callee;
        m_sock.work = work;
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

    std::vector<PlacedCode> placements() const override
    {
        std::vector<PlacedCode> code;
        for (std::size_t l = 0; l < kCode.size(); ++l) {
            const void* loop = m_kind == CallKind::Direct     ? codeAddress(kCode[l].direct)
                               : m_kind == CallKind::Indirect ? codeAddress(kCode[l].indirect)
                                                              : codeAddress(kCode[l].retpoline);
            code.push_back(
                {.hot = {loop, codeAddress(kCode[l].callee)}, .loop = loop, .stackOffset = placementStackOffset(l)});
        }
        return code;
    }

    std::uint64_t calleeCalls() const override { return m_sock.readableCalls; }

private:
    void runPlaced(std::uint64_t calls) override
    {
        const IndirectCallCode& code = kCode[placement()];
        switch (m_kind) {
            case CallKind::Direct: code.direct(&m_sock, calls); break;
            case CallKind::Indirect: code.indirect(&m_sock, calls); break;
            case CallKind::Retpoline: code.retpoline(&m_sock, calls); break;
        }
    }

    CallKind m_kind;
    Sock m_sock;
};

}  // namespace

Result<std::unique_ptr<IndirectCallLoop>> makeIndirectCallLoop(CallKind kind, std::uint64_t work, std::size_t placement)
{
    NF_TRY(checkPlacement(placement, kPlacements));
    if (kind == CallKind::Retpoline && !retpolineThunkInUse()) {
        return Error{
            "call=retpoline: not supported by this build (retpoline thunks need GCC or clang on x86-64: "
            "-mindirect-branch=thunk or -mretpoline)"};
    }
    return std::unique_ptr<IndirectCallLoop>(std::make_unique<Loop>(kind, work, placement));
}

}  // namespace indirect_call

Result<std::unique_ptr<CallLoop>> makeIndirectCall(const ParamSet& params, std::size_t placement)
{
    const std::string& call = params.text("call");
    const CallKind kind = call == "direct"     ? CallKind::Direct
                          : call == "indirect" ? CallKind::Indirect
                                               : CallKind::Retpoline;
    auto loop = NF_TRY(
        indirect_call::makeIndirectCallLoop(kind, static_cast<std::uint64_t>(params.integer("work")), placement));
    return std::unique_ptr<CallLoop>(std::move(loop));
}

WorkloadImplementation implementation::indirectCall()
{
    return {.make = makeIndirectCall, .placements = kPlacements};
}

}  // namespace nf::engine::workloads
