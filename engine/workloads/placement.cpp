#include "engine/workloads/placement.h"

#include <string>

namespace nf::engine::workloads {

Result<std::size_t> checkPlacement(std::size_t placement, std::size_t placements)
{
    if (placement >= placements) {
        return Error{"layout=" + std::to_string(placement) + ": this workload's code has " +
                     std::to_string(placements) + " placements (0 to " + std::to_string(placements - 1) + ")"};
    }
    return placement;
}

void PlacedCallLoop::run(std::uint64_t calls)
{
    // Lives until run() returns: runPlaced() and the loop it calls have their frames below it.
    void* lowered = __builtin_alloca(placementStackOffset(m_placement));
    asm volatile("" : : "r"(lowered) : "memory");
    runPlaced(calls);
}

}  // namespace nf::engine::workloads
