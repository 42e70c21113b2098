#pragma once
// Code placements (docs/measurement.md, "Code placements"): the hot code of an in-process workload
// exists in kPlacements copies that execute the same instructions from different addresses, so
// that a difference between variants can be told from an effect of where the linker put them.
//
// Placement 0 is the code as it always was: in .text where the linker puts it, a model function on
// a cache line (NF_OUT_OF_LINE). Placement L > 0 is a copy of the same source in a section of its
// own, ".text.nf_placement.WORKLOAD.L", which starts on a page and holds placementPad(L) bytes of
// int3 before the first function, so every function of the copy starts that many bytes further
// into its page than it would at the page's start; functions keep the compiler's 16-byte
// alignment, so their start modulo 64 cycles through the four 16-byte offsets. Loops
// move with their function: their offset inside it, and the alignment padding the compiler put in
// front of them, are the same in every copy, so no copy executes an instruction the others do not.
// The measuring loop's stack also sits placementStackOffset(L) bytes lower.
//
// A workload's copies come from one header included once per placement (each_placement.h), whose
// functions are declared with NF_PLACED or NF_PLACED_OUT_OF_LINE (placed.h).

#include <cstddef>
#include <cstdint>

#include "engine/run/workload.h"

// In macros because the assembler reads them too (placed.h); use the functions below in C++.
#define NF_PLACEMENT_PAD_STEP 528    // 512 + 16: a new place in the page, a new place in the cache line
#define NF_PLACEMENT_STACK_STEP 784  // 768 + 16: the same for the stack, on another cycle

// X(L) for every placement L, e.g. to make a table of the copies.
#define NF_EACH_PLACEMENT(X) X(0) X(1) X(2) X(3) X(4) X(5) X(6) X(7)

namespace nf::engine::workloads {

inline constexpr std::size_t kPlacements = 8;  // as many as NF_EACH_PLACEMENT and each_placement.h name

// The int3 bytes before placement L's first function in its page-aligned section (0 for
// placement 0, which has no section of its own).
constexpr std::uint32_t placementPad(std::size_t placement)
{
    return static_cast<std::uint32_t>(placement * NF_PLACEMENT_PAD_STEP % 4096);
}

// How much lower the measuring loop's stack frame sits in placement L.
constexpr std::uint32_t placementStackOffset(std::size_t placement)
{
    return static_cast<std::uint32_t>(placement * NF_PLACEMENT_STACK_STEP % 4096);
}

// The placement to run a variant in, or an error naming the valid ones.
Result<std::size_t> checkPlacement(std::size_t placement, std::size_t placements);

// A CallLoop that runs its operations in one placement: run() lowers the stack by the placement's
// offset and calls runPlaced(), which calls the placement's copy of the measuring loop.
class PlacedCallLoop : public CallLoop {
public:
    explicit PlacedCallLoop(std::size_t placement) : m_placement(placement) {}

    void run(std::uint64_t calls) final;
    std::size_t placement() const final { return m_placement; }
    void place(std::size_t placement) final { m_placement = placement < kPlacements ? placement : m_placement; }
    std::vector<const void*> hotCode() const final { return placements()[m_placement].hot; }

protected:
    virtual void runPlaced(std::uint64_t calls) = 0;

private:
    std::size_t m_placement;
};

}  // namespace nf::engine::workloads
