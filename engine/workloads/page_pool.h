#pragma once
// `page-pool`: the kernel's page_pool allocation + direct-recycle fast path with
// page_pool_dma_sync_for_device() on the recycle side, in two placements of the dma_sync_size check
// (late: inside the sync function; early: before calling it).

#include <cstddef>
#include <cstdint>
#include <string>

#include "engine/run/workload.h"

namespace nf::engine::workloads {

// The implementation of catalogue entry engine/catalog/page_pool.cpp: one per variant.
// `placement`: the code placement to run in (engine/workloads/placement.h).
Result<std::unique_ptr<CallLoop>> makePagePool(const ParamSet& params, std::size_t placement = 0);

// What the instrumented model saw after pagePoolSelfCheck() ran it.
struct PagePoolModelStats {
    bool consistent = false;  // every page is in the cache or the ring exactly once
    std::string problem;      // why not, when !consistent
    std::uint64_t pages = 0;
    std::uint64_t allocs = 0;
    std::uint64_t recycles = 0;
    std::uint64_t cacheRefills = 0;       // bulk refills of the cache from the ring
    std::uint64_t ringRecycles = 0;       // recycles that found the cache full and went to the ring
    std::uint64_t syncCalls = 0;          // calls of page_pool_dma_sync_for_device()
    std::uint64_t zeroSizeSyncCalls = 0;  // ... of them with dma_sync_size == 0
    std::uint64_t zeroSizeRecycles = 0;   // recycles whose dma_sync_size was 0
    std::uint64_t stateDigest = 0;        // a digest of where every page is and of the call cursor
};

// Test hook: builds the model from `params` (already resolved against pagePoolInfo().params) with
// counting enabled, runs `calls` operations in code placement `placement` and audits the pool. The
// measured workload is a separate instantiation with no counters.
Result<PagePoolModelStats> pagePoolSelfCheck(const ParamSet& params, std::uint64_t calls, std::size_t placement = 0);

}  // namespace nf::engine::workloads
