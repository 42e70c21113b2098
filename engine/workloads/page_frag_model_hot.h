// The page_frag allocators of engine/workloads/page_frag_model.cpp, once per code placement:
// page_frag_model.cpp includes them through each_placement.h after the helpers they use. No include
// guard, by design.

#include "engine/workloads/placed.h"

namespace NF_PLACED_NS {

NF_PLACED_OUT_OF_LINE void* allocAlignMonolithic(FragCache* nc, std::uint32_t fragsz, std::uint32_t alignMask)
{
    std::uintptr_t encodedPage = nc->encodedPage;
    std::uint32_t size;
    std::uint32_t offset;
    FakePage* page;

    if (__builtin_expect(encodedPage == 0, 0)) {
    refill:
        page = cacheRefill(nc);
        if (page == nullptr) {
            return nullptr;
        }
        encodedPage = nc->encodedPage;
        // Even if we own the page, we do not use atomic_set() (get_page_unless_zero users).
        page->refCount.fetch_add(kMaxSize, std::memory_order_relaxed);
        nc->pagecntBias = kBiasMax;
        nc->offset = 0;
    }

    size = decodeSize(encodedPage);
    offset = alignOffset(nc->offset, alignMask);
    if (__builtin_expect(offset + fragsz > size, 0)) {
        if (__builtin_expect(fragsz > kPageSize, 0)) {
            return nullptr;
        }
        page = nc->arena->virtToPage(decodeVirt(encodedPage));
        if (!pageRefSubAndTest(page, static_cast<int>(nc->pagecntBias))) {
            goto refill;
        }
        if (__builtin_expect(decodePfmemalloc(encodedPage), 0)) {
            nc->arena->freeBlock(page);
            goto refill;
        }
        // The page count is 0: we can safely set it.
        page->refCount.store(static_cast<int>(kBiasMax), std::memory_order_relaxed);
        nc->pagecntBias = kBiasMax;
        offset = 0;
    }

    --nc->pagecntBias;
    nc->offset = offset + fragsz;
    return decodeVirt(encodedPage) + offset;
}

NF_PLACED_OUT_OF_LINE std::uint32_t cacheCommitNoref(FragCache* nc, PageFrag* pfrag, std::uint32_t usedSz)
{
    const std::uint32_t origOffset = nc->offset;
    nc->offset = pfrag->offset + usedSz;
    // The true size back to the caller, with the offset alignment.
    return nc->offset - origOffset;
}

NF_PLACED_OUT_OF_LINE void* cachePrepare(FragCache* nc, std::uint32_t fragsz, PageFrag* pfrag, std::uint32_t alignMask)
{
    std::uintptr_t encodedPage = nc->encodedPage;
    std::uint32_t size;
    std::uint32_t offset;
    FakePage* page;

    if (__builtin_expect(encodedPage == 0, 0)) {
    refill:
        page = cacheRefill(nc);
        if (page == nullptr) {
            return nullptr;
        }
        encodedPage = nc->encodedPage;
        page->refCount.fetch_add(kMaxSize, std::memory_order_relaxed);
        nc->pagecntBias = kBiasMax;
        nc->offset = 0;
    } else {
        page = nc->arena->virtToPage(decodeVirt(encodedPage));  // on every call, unlike the monolith
    }

    size = decodeSize(encodedPage);
    offset = alignOffset(nc->offset, alignMask);
    if (__builtin_expect(offset + fragsz > size, 0)) {
        if (__builtin_expect(fragsz > kPageSize, 0)) {
            return nullptr;
        }
        if (!pageRefSubAndTest(page, static_cast<int>(nc->pagecntBias))) {
            goto refill;
        }
        if (__builtin_expect(decodePfmemalloc(encodedPage), 0)) {
            nc->arena->freeBlock(page);
            goto refill;
        }
        page->refCount.store(static_cast<int>(kBiasMax), std::memory_order_relaxed);
        nc->pagecntBias = kBiasMax;
        nc->offset = 0;
        offset = 0;
    }

    pfrag->page = page;
    pfrag->offset = offset;
    pfrag->size = size - offset;
    return decodeVirt(encodedPage) + offset;
}

}  // namespace NF_PLACED_NS
