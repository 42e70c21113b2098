#include "workloads/spin.h"

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

WorkloadInfo spinInfo()
{
    WorkloadInfo info;
    info.name = "spin";
    info.summary = "calibration: a chain of `work` dependent integer operations per call";
    info.description =
        "Each call runs `work` dependent multiply-add steps that the compiler cannot fold, so the "
        "cost per call is linear in `work`. Use it to check the measurement itself: two variants "
        "with the same work must show no difference, and work=2000 must cost twice work=1000.";
    info.params = {
        {"work", ParamType::Int, "1000", "dependent operations per call", 1, 100000000, {}, "ops"},
    };
    info.primaryMetric = "tsc_per_op";
    info.defaultChunk = 0.002;
    info.make = [](const ParamSet& params) -> Result<std::unique_ptr<CallLoop>> {
        return std::unique_ptr<CallLoop>(std::make_unique<Spin>(static_cast<std::uint64_t>(params.integer("work"))));
    };
    return info;
}

}  // namespace nf::engine::workloads
