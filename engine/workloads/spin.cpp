#include "engine/workloads/spin.h"
#include "engine/workloads/placement.h"
#include "engine/workloads/registry.h"

#include <array>
#include <cstdint>

namespace nf::engine::workloads {

namespace {

#define NF_PLACED_FILE "engine/workloads/spin_hot.h"
#define NF_PLACED_SECTION "spin"
#include "engine/workloads/each_placement.h"

using LoopFunction = std::uint64_t (*)(std::uint64_t x, std::uint64_t work, std::uint64_t calls);

// Each placement's copy of the measuring loop and of the function it calls.
struct SpinCode {
    LoopFunction loop;
    const void* call;
};
#define NF_SPIN_CODE(L) SpinCode{&placement##L::spinLoop, codeAddress(&placement##L::spinCall)},
const std::array<SpinCode, kPlacements> kCode = {NF_EACH_PLACEMENT(NF_SPIN_CODE)};
#undef NF_SPIN_CODE

class Spin final : public PlacedCallLoop {
public:
    Spin(std::uint64_t work, std::size_t placement) : PlacedCallLoop(placement), m_work(work) {}

    std::vector<PlacedCode> placements() const override
    {
        std::vector<PlacedCode> code;
        for (std::size_t l = 0; l < kCode.size(); ++l) {
            code.push_back(
                {.hot = {kCode[l].call}, .loop = codeAddress(kCode[l].loop), .stackOffset = placementStackOffset(l)});
        }
        return code;
    }

private:
    void runPlaced(std::uint64_t calls) override { m_state = kCode[placement()].loop(m_state, m_work, calls); }

    std::uint64_t m_work;
    std::uint64_t m_state = 1;
};

}  // namespace

Result<std::unique_ptr<CallLoop>> makeSpin(const ParamSet& params, std::size_t placement)
{
    NF_TRY(checkPlacement(placement, kPlacements));
    return std::unique_ptr<CallLoop>(
        std::make_unique<Spin>(static_cast<std::uint64_t>(params.integer("work")), placement));
}

std::uint64_t spinSelfCheck(std::uint64_t work, std::uint64_t calls, std::size_t placement)
{
    return kCode.at(placement).loop(1, work, calls);
}

WorkloadImplementation implementation::spin()
{
    return {.make = makeSpin, .placements = kPlacements};
}

}  // namespace nf::engine::workloads
