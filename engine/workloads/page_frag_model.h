#pragma once
// A userspace model of the kernel's page_frag cache (mm/page_frag_cache.c, v6.13) in its two
// shapes: the monolithic __page_frag_alloc_align(), and the refactor of "mm: page_frag: some minor
// refactoring before adding new API" (net-next, 2024) into an out-of-line
// __page_frag_cache_prepare() plus __page_frag_cache_commit() -> __page_frag_cache_commit_noref().
// Also the pieces page_frag_test.ko drives it with: order-3 pages with a struct page per 4 KiB
// (refcount on the head, compound_head on the tails), page_frag_free(), and a single-producer
// single-consumer ptr_ring.

#include <atomic>
#include <cstddef>
#include <cstdint>
#include <memory>
#include <mutex>
#include <vector>

#include "engine/workloads/placement.h"

namespace nf::engine::workloads::page_frag {

inline constexpr std::uint32_t kPageSize = 4096;
inline constexpr std::uint32_t kMaxOrder = 3;                      // PAGE_FRAG_CACHE_MAX_ORDER
inline constexpr std::uint32_t kMaxSize = kPageSize << kMaxOrder;  // PAGE_FRAG_CACHE_MAX_SIZE

// struct page: one per 4 KiB. The head of an order-3 block holds the refcount; a tail's
// compoundHead points at its head with bit 0 set, as in the kernel.
struct alignas(64) FakePage {
    std::atomic<int> refCount{0};
    std::uintptr_t compoundHead = 0;
    std::uint32_t order = 0;
    std::uint32_t pfmemalloc = 0;
};

// The pages: an arena of order-3 blocks, their struct pages, and a locked free list standing in for
// the buddy allocator (alloc_pages / free_unref_page).
class PageArena {
public:
    explicit PageArena(std::size_t blocks);
    ~PageArena();
    PageArena(const PageArena&) = delete;
    PageArena& operator=(const PageArena&) = delete;

    FakePage* allocBlock();  // nullptr when every block is in use
    void freeBlock(FakePage* head);

    FakePage* virtToPage(const void* va) const;  // virt_to_page
    FakePage* virtToHeadPage(const void* va) const;
    char* pageAddress(const FakePage* page) const;

    std::size_t blocks() const { return m_blocks; }
    std::size_t freeBlocks() const;
    bool owns(const void* va) const;

private:
    std::size_t m_blocks;
    char* m_memory = nullptr;  // m_blocks * kMaxSize bytes, kMaxSize-aligned
    std::unique_ptr<FakePage[]> m_pages;
    mutable std::mutex m_lock;  // zone->lock
    std::vector<FakePage*> m_free;
};

// struct page_frag_cache (v6.13): the encoded virtual address of the current page (its order in
// the low bits, pfmemalloc above them), the offset of the next fragment and the page count bias.
struct FragCache {
    PageArena* arena = nullptr;
    std::uintptr_t encodedPage = 0;
    std::uint32_t offset = 0;
    std::uint32_t pagecntBias = 0;
    std::uint64_t refills = 0;  // pages taken from the arena
};

// struct page_frag
struct PageFrag {
    FakePage* page = nullptr;
    std::uint32_t offset = 0;
    std::uint32_t size = 0;
};

// The monolithic allocator: __page_frag_alloc_align(nc, fragsz, gfp, align_mask).
// The refactored allocator: prepare (out of line), then the inline commit that decrements the
// bias and calls the out-of-line commit_noref.
// One copy of each per code placement (engine/workloads/placement.h), from
// page_frag_model_hot.h.
#define NF_PAGE_FRAG_DECLARE(L)                                                                            \
    namespace placement##L                                                                                 \
    {                                                                                                      \
        void* allocAlignMonolithic(FragCache* nc, std::uint32_t fragsz, std::uint32_t alignMask);          \
        void* cachePrepare(FragCache* nc, std::uint32_t fragsz, PageFrag* pfrag, std::uint32_t alignMask); \
        std::uint32_t cacheCommitNoref(FragCache* nc, PageFrag* pfrag, std::uint32_t usedSz);              \
    }
NF_EACH_PLACEMENT(NF_PAGE_FRAG_DECLARE)
#undef NF_PAGE_FRAG_DECLARE

// __page_frag_alloc_align() after the refactor, with one placement's prepare and commit_noref.
template <auto kPrepare, auto kCommitNoref>
inline void* allocAlignSplitWith(FragCache* nc, std::uint32_t fragsz, std::uint32_t alignMask)
{
    PageFrag frag;
    void* va = kPrepare(nc, fragsz, &frag, alignMask);
    if (__builtin_expect(va == nullptr, 0)) {
        return nullptr;
    }
    --nc->pagecntBias;  // __page_frag_cache_commit()
    kCommitNoref(nc, &frag, fragsz);
    return va;
}

// Placement 0's: the code as it always was.
using placement0::allocAlignMonolithic;
using placement0::cacheCommitNoref;
using placement0::cachePrepare;
inline void* allocAlignSplit(FragCache* nc, std::uint32_t fragsz, std::uint32_t alignMask)
{
    return allocAlignSplitWith<&placement0::cachePrepare, &placement0::cacheCommitNoref>(nc, fragsz, alignMask);
}

// page_frag_free(va): drops one reference; the last one returns the block to the arena.
void fragFree(PageArena* arena, void* va);
// page_frag_cache_drain(nc): returns the cache's remaining bias and forgets the page.
void cacheDrain(FragCache* nc);

// ptr_ring with one producer and one consumer (__ptr_ring_produce / __ptr_ring_consume): a slot
// holding nullptr is free. The producer and consumer indices sit on their own cache lines (the
// padding is the point: no false sharing between the two threads).
class PtrRing {  // NOLINT(clang-analyzer-optin.performance.Padding)
public:
    explicit PtrRing(std::size_t size) : m_slots(size) {}
    bool produce(void* ptr)
    {
        auto& slot = m_slots[m_producer];
        if (slot.load(std::memory_order_relaxed) != nullptr) {
            return false;  // full: the consumer has not taken this slot yet
        }
        slot.store(ptr, std::memory_order_release);
        m_producer = m_producer + 1 == m_slots.size() ? 0 : m_producer + 1;
        return true;
    }
    void* consume()
    {
        auto& slot = m_slots[m_consumer];
        void* ptr = slot.load(std::memory_order_acquire);
        if (ptr != nullptr) {
            slot.store(nullptr, std::memory_order_release);
            m_consumer = m_consumer + 1 == m_slots.size() ? 0 : m_consumer + 1;
        }
        return ptr;
    }
    // Whether the consumer's next slot is free; only the consumer may ask (or a quiescent owner).
    bool empty() const { return m_slots[m_consumer].load(std::memory_order_acquire) == nullptr; }

private:
    std::vector<std::atomic<void*>> m_slots;
    alignas(64) std::size_t m_producer = 0;
    alignas(64) std::size_t m_consumer = 0;
};

}  // namespace nf::engine::workloads::page_frag
