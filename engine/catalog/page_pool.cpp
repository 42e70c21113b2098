#include "engine/catalog/descriptors.h"

namespace nf::engine::catalog {

WorkloadDescriptor pagePool()
{
    WorkloadDescriptor info;
    info.summary =
        "page_pool alloc + direct recycle with page_pool_dma_sync_for_device(): where to check dma_sync_size";
    info.models = "net/core/page_pool.c: page_pool_dma_sync_for_device";
    info.description =
        "Models the kernel v6.x page_pool fast path (net/core/page_pool.c) as bench_page_pool_simple "
        "drives it: each call is page_pool_alloc_pages() from alloc.cache (refilled in bulk from the "
        "ptr_ring when empty) followed by page_pool_put_page(..., allow_direct=true) -> "
        "__page_pool_put_page(), which for a recyclable page runs `if (pool->dma_sync && "
        "dma_dev_need_sync(dev)) page_pool_dma_sync_for_device(pool, page, dma_sync_size)` and puts the "
        "page back in the cache (or the ring when the cache is full). check=late is that code: the "
        "out-of-line sync clamps to max_len and syncs even 0 bytes; check=early adds `&& dma_sync_size` "
        "before the call (\"page_pool: check dma_sync_size earlier\"). zero_size_pct of the calls have "
        "dma_sync_size 0 (exact count per 65536-call cycle, seeded positions); the sync stands in for "
        "cache maintenance on a non-coherent CPU as sync_cost dependent steps per 64-byte line "
        "followed by a barrier (lfence on x86, dsb sy on arm64) so calls do not overlap. It "
        "cannot model real DMA or IOMMU mapping, softirq/NAPI context, other CPUs recycling through "
        "the ring, or real cache maintenance (dc cvac and its memory traffic; arm64 also cleans one "
        "line for a 0-byte range, here 0 bytes is 0 lines).";
    info.params = {
        {.name = "check",
         .type = ParamType::Choice,
         .defaultValue = "late",
         .description = "test dma_sync_size inside the sync (late) or before the call (early)",
         .choices = {"late", "early"},
         .selectsCode = true},
        {.name = "zero_size_pct",
         .type = ParamType::Real,
         .defaultValue = "0",
         .description = "share of recycles with dma_sync_size 0",
         .max = 100,
         .unit = "%"},
        {.name = "sync_size",
         .type = ParamType::Int,
         .defaultValue = "2048",
         .description = "dma_sync_size of the other recycles",
         .min = 1,
         .max = 65536,
         .unit = "bytes"},
        {.name = "dev_needs_sync",
         .type = ParamType::Int,
         .defaultValue = "1",
         .description = "dma_dev_need_sync(dev): 0 = coherent device",
         .max = 1},
        {.name = "sync_cost",
         .type = ParamType::Int,
         .defaultValue = "1",
         .description = "steps per 64-byte line synced; 0 = call + min()",
         .max = 1000,
         .unit = "ops"},
        {.name = "pool_size",
         .type = ParamType::Int,
         .defaultValue = "128",
         .description = "alloc.cache entries (PP_ALLOC_CACHE_SIZE)",
         .min = 1,
         .max = 65536},
        {.name = "ring_size",
         .type = ParamType::Int,
         .defaultValue = "1024",
         .description = "ptr_ring entries; also the number of pages",
         .min = 2,
         .max = 1048576},
        {.name = "seed",
         .type = ParamType::Int,
         .defaultValue = "1",
         .description = "seed for the positions of the zero-size calls",
         .max = 2147483648.0},
    };
    info.placedCode = true;
    info.primaryMetric = "tsc_per_op";
    info.defaultChunk = 0.002;
    return info;
}

}  // namespace nf::engine::catalog
