// The hot code of `page-pool` (engine/workloads/page_pool.cpp), once per code placement:
// page_pool.cpp includes it through each_placement.h after the types it uses. No include guard, by
// design.

#include "engine/workloads/placed.h"

namespace NF_PLACED_NS {

// page_pool_dma_sync_for_device(): clamp to max_len, then "clean" each cache line of the synced
// range: `syncCost` dependent steps per 64-byte line, opaque to the optimiser.
template <bool kCounting>
NF_PLACED_OUT_OF_LINE void pagePoolDmaSyncForDevice(PoolState& pool, const FakePage* page, std::uint32_t dmaSyncSize)
{
    dmaSyncSize = std::min(dmaSyncSize, pool.maxLen);
    if constexpr (kCounting) {
        ++pool.counts.syncCalls;
        if (dmaSyncSize == 0) {
            ++pool.counts.zeroSizeSyncCalls;
        }
    }
    std::uint64_t x = page->dmaAddr + pool.offset;
    const std::uint64_t steps = static_cast<std::uint64_t>((dmaSyncSize + kCacheLine - 1) / kCacheLine) * pool.syncCost;
    for (std::uint64_t i = 0; i < steps; ++i) {
        x = x * 6364136223846793005ULL + 1442695040888963407ULL;
        asm volatile("" : "+r"(x));
    }
    // The maintenance ends with a barrier (arm64: `dsb sy` after the `dc cvac` loop): the work must
    // finish before the path goes on, so out-of-order execution cannot overlap it with later calls.
    if (steps != 0) {
        completionBarrier();
    }
}

// page_pool_alloc_pages() fast path: __page_pool_get_cached(), refilling alloc.cache from the
// ptr_ring in bulk (page_pool_refill_alloc_cache) when it is empty.
template <bool kCounting>
NF_PLACED_OUT_OF_LINE FakePage* pagePoolAllocPage(PoolState& pool)
{
    if constexpr (kCounting) {
        ++pool.counts.allocs;
    }
    if (pool.cacheCount != 0) {
        return pool.cache[--pool.cacheCount];
    }
    if constexpr (kCounting) {
        ++pool.counts.cacheRefills;
    }
    do {
        FakePage* page = ringConsume(pool);
        if (page == nullptr) {
            break;
        }
        pool.cache[pool.cacheCount++] = page;
    } while (pool.cacheCount < pool.refillBatch);
    if (pool.cacheCount == 0) {
        return nullptr;  // the kernel would go to the page allocator; the model never gets here
    }
    return pool.cache[--pool.cacheCount];
}

// page_pool_put_page(pool, page, dma_sync_size, allow_direct=true) -> __page_pool_put_page() for
// a recyclable page, then page_pool_recycle_in_cache() or page_pool_recycle_in_ring().
template <bool kEarly, bool kCounting>
NF_PLACED_OUT_OF_LINE void pagePoolPutPage(PoolState& pool, FakePage* page, std::uint32_t dmaSyncSize)
{
    if constexpr (kCounting) {
        ++pool.counts.recycles;
        if (dmaSyncSize == 0) {
            ++pool.counts.zeroSizeRecycles;
        }
    }
    if (page->refCount == 1 && page->pfmemalloc == 0) {
        if constexpr (kEarly) {
            if (pool.dmaSync && pool.dev->needSync != 0 && dmaSyncSize != 0) {
                pagePoolDmaSyncForDevice<kCounting>(pool, page, dmaSyncSize);
            }
        } else {
            if (pool.dmaSync && pool.dev->needSync != 0) {
                pagePoolDmaSyncForDevice<kCounting>(pool, page, dmaSyncSize);
            }
        }
        if (pool.cacheCount < pool.cacheSize) {
            pool.cache[pool.cacheCount++] = page;
            return;
        }
    }
    if constexpr (kCounting) {
        ++pool.counts.ringRecycles;
    }
    // Holds every page, so it cannot be full; the kernel would free the page here.
    static_cast<void>(ringProduce(pool, page));
}

// The measuring loop: each operation allocates a page and recycles it with the call's
// dma_sync_size, which the sequence makes 0 for zero_size_pct of the calls.
template <bool kEarly, bool kCounting>
NF_PLACED_OUT_OF_LINE void pagePoolLoop(LoopState& s, std::uint64_t calls)
{
    PoolState& pool = *s.pool;
    std::uint32_t cursor = s.cursor;
    for (std::uint64_t i = 0; i < calls; ++i) {
        FakePage* page = pagePoolAllocPage<kCounting>(pool);
        const auto zero = static_cast<std::uint32_t>((s.zeroBits[cursor >> 6] >> (cursor & 63)) & 1);
        const std::uint32_t size = s.syncSize & (zero - 1);  // branch-free: 0 or sync_size
        cursor = (cursor + 1) & (kSizeTableLen - 1);
        if (page != nullptr) {
            pagePoolPutPage<kEarly, kCounting>(pool, page, size);
        }
    }
    s.cursor = cursor;
}

// GCC 12 drops a section attribute on a function template (GCC bug 70435) but keeps it on an
// explicit instantiation: each instantiation the loops use, in this placement's section.
template NF_PLACED void pagePoolDmaSyncForDevice<false>(PoolState&, const FakePage*, std::uint32_t);
template NF_PLACED void pagePoolDmaSyncForDevice<true>(PoolState&, const FakePage*, std::uint32_t);
template NF_PLACED FakePage* pagePoolAllocPage<false>(PoolState&);
template NF_PLACED FakePage* pagePoolAllocPage<true>(PoolState&);
template NF_PLACED void pagePoolPutPage<false, false>(PoolState&, FakePage*, std::uint32_t);
template NF_PLACED void pagePoolPutPage<true, false>(PoolState&, FakePage*, std::uint32_t);
template NF_PLACED void pagePoolPutPage<false, true>(PoolState&, FakePage*, std::uint32_t);
template NF_PLACED void pagePoolPutPage<true, true>(PoolState&, FakePage*, std::uint32_t);
template NF_PLACED void pagePoolLoop<false, false>(LoopState&, std::uint64_t);
template NF_PLACED void pagePoolLoop<true, false>(LoopState&, std::uint64_t);
template NF_PLACED void pagePoolLoop<false, true>(LoopState&, std::uint64_t);
template NF_PLACED void pagePoolLoop<true, true>(LoopState&, std::uint64_t);

}  // namespace NF_PLACED_NS
