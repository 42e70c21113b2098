#include "engine/workloads/spin.h"
#include "engine/workloads/registry.h"

#include <cstdint>

namespace nf::engine::workloads {

namespace {

// One call: `work` steps of a 64-bit LCG. Each step depends on the last (multiply then add), and
// the empty asm makes the value opaque to the optimiser, so nothing is folded or vectorised.
__attribute__((noinline)) std::uint64_t spinCall(std::uint64_t x, std::uint64_t work)
{
    for (std::uint64_t i = 0; i < work; ++i) {
        x = x * 6364136223846793005ULL + 1442695040888963407ULL;
        asm volatile("" : "+r"(x));
    }
    return x;
}

class Spin final : public CallLoop {
public:
    explicit Spin(std::uint64_t work) : m_work(work) {}

    std::vector<const void*> hotCode() const override { return {codeAddress(&spinCall)}; }

    void run(std::uint64_t calls) override
    {
        std::uint64_t x = m_state;
        for (std::uint64_t i = 0; i < calls; ++i) {
            x = spinCall(x, m_work);
        }
        m_state = x;
    }

private:
    std::uint64_t m_work;
    std::uint64_t m_state = 1;
};

}  // namespace

Result<std::unique_ptr<CallLoop>> makeSpin(const ParamSet& params)
{
    return std::unique_ptr<CallLoop>(std::make_unique<Spin>(static_cast<std::uint64_t>(params.integer("work"))));
}

WorkloadImplementation implementation::spin()
{
    return {.make = makeSpin};
}

}  // namespace nf::engine::workloads
