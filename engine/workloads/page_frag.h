#pragma once
// `page-frag`: page_frag_alloc_align() as one function against the prepare + commit refactor,
// driven like page_frag_test.ko: a push thread allocates fragments into a ptr_ring, a pop thread
// frees them (seed 002).

#include <cstddef>
#include <cstdint>
#include <string>

#include "engine/run/workload.h"

namespace nf::engine::workloads {

// The implementation of catalogue entry engine/catalog/page_frag.cpp: one per variant.
// `placement`: the code placement to run in (engine/workloads/placement.h).
Result<std::unique_ptr<CallLoop>> makePageFrag(const ParamSet& params, std::size_t placement = 0);

// What the model saw in pageFragSelfCheck().
struct PageFragModelStats {
    bool consistent = false;  // every fragment aligned and inside its page, every page back in the arena
    std::string problem;
    std::uint64_t allocs = 0;       // fragments allocated
    std::uint64_t pushed = 0;       // ... handed to the pop thread through the ring
    std::uint64_t freedByPush = 0;  // ... freed by the push thread because the ring was full
    std::uint64_t popped = 0;       // ... freed by the pop thread
    std::uint64_t refills = 0;      // pages the cache took from the arena
    std::uint64_t failures = 0;     // allocations that returned NULL
    std::uint64_t blocks = 0;       // pages in the arena
    std::uint64_t blocksFree = 0;   // ... free after the cache was drained (must equal blocks)
};

// Test hook: builds the model from resolved `params`, runs `calls` allocations on this thread with
// every fragment checked, lets the pop thread drain the ring, drains the cache and audits the pages.
// `placement`: the code placement whose copy runs.
Result<PageFragModelStats> pageFragSelfCheck(const ParamSet& params, std::uint64_t calls, std::size_t placement = 0);

}  // namespace nf::engine::workloads
