#include "engine/workloads/page_frag_model.h"
#include "engine/workloads/out_of_line.h"

#include <cstdlib>
#include <new>

namespace nf::engine::workloads::page_frag {

namespace {

constexpr std::uintptr_t kOrderMask = 0x3;        // PAGE_FRAG_CACHE_ORDER_MASK
constexpr std::uintptr_t kPfmemallocBit = 0x4;    // PAGE_FRAG_CACHE_PFMEMALLOC_BIT
constexpr std::uint32_t kBiasMax = kMaxSize + 1;  // PAGE_FRAG_CACHE_MAX_SIZE + 1

inline std::uintptr_t encodeVa(const char* va, std::uint32_t order, bool pfmemalloc)
{
    return reinterpret_cast<std::uintptr_t>(va) | order | (pfmemalloc ? kPfmemallocBit : 0);
}
inline char* decodeVirt(std::uintptr_t encoded)
{
    // The kernel's encoded_page keeps the order and pfmemalloc bits in the address: so does the model.
    const std::uintptr_t address = encoded & ~(static_cast<std::uintptr_t>(kPageSize) - 1);
    return reinterpret_cast<char*>(address);  // NOLINT(performance-no-int-to-ptr)
}
inline std::uint32_t decodeOrder(std::uintptr_t encoded)
{
    return static_cast<std::uint32_t>(encoded & kOrderMask);
}
inline bool decodePfmemalloc(std::uintptr_t encoded)
{
    return (encoded & kPfmemallocBit) != 0;
}
inline std::uint32_t decodeSize(std::uintptr_t encoded)
{
    return kPageSize << decodeOrder(encoded);
}
// __ALIGN_KERNEL_MASK(x, ~align_mask)
inline std::uint32_t alignOffset(std::uint32_t offset, std::uint32_t alignMask)
{
    const std::uint32_t mask = ~alignMask;
    return (offset + mask) & ~mask;
}
inline bool pageRefSubAndTest(FakePage* page, int n)
{
    return page->refCount.fetch_sub(n, std::memory_order_acq_rel) == n;
}

// __page_frag_cache_refill(): an order-3 page (no order-0 fallback is needed: the arena only has
// order-3 blocks), recorded in the cache with its order and pfmemalloc state.
__attribute__((noinline)) FakePage* cacheRefill(FragCache* nc)
{
    FakePage* page = nc->arena->allocBlock();
    if (page == nullptr) {
        nc->encodedPage = 0;
        return nullptr;
    }
    ++nc->refills;
    nc->encodedPage = encodeVa(nc->arena->pageAddress(page), kMaxOrder, page->pfmemalloc != 0);
    return page;
}

}  // namespace

PageArena::PageArena(std::size_t blocks)
    : m_blocks(blocks), m_pages(std::make_unique<FakePage[]>(blocks * (kMaxSize / kPageSize)))
{
    m_memory = static_cast<char*>(std::aligned_alloc(kMaxSize, blocks * kMaxSize));
    if (m_memory == nullptr) {
        throw std::bad_alloc();
    }
    const std::size_t perBlock = kMaxSize / kPageSize;
    m_free.reserve(blocks);
    for (std::size_t b = blocks; b-- > 0;) {
        FakePage* head = &m_pages[b * perBlock];
        head->order = kMaxOrder;
        for (std::size_t t = 1; t < perBlock; ++t) {
            m_pages[b * perBlock + t].compoundHead = reinterpret_cast<std::uintptr_t>(head) | 1;
        }
        m_free.push_back(head);
    }
}

PageArena::~PageArena()
{
    std::free(m_memory);
}

FakePage* PageArena::allocBlock()
{
    std::lock_guard lock(m_lock);
    if (m_free.empty()) {
        return nullptr;
    }
    FakePage* head = m_free.back();
    m_free.pop_back();
    head->refCount.store(1, std::memory_order_relaxed);  // a new page has one reference
    return head;
}

void PageArena::freeBlock(FakePage* head)
{
    std::lock_guard lock(m_lock);
    m_free.push_back(head);
}

std::size_t PageArena::freeBlocks() const
{
    std::lock_guard lock(m_lock);
    return m_free.size();
}

bool PageArena::owns(const void* va) const
{
    const auto* p = static_cast<const char*>(va);
    return p >= m_memory && p < m_memory + m_blocks * kMaxSize;
}

FakePage* PageArena::virtToPage(const void* va) const
{
    return &m_pages[static_cast<std::size_t>(static_cast<const char*>(va) - m_memory) / kPageSize];
}

FakePage* PageArena::virtToHeadPage(const void* va) const
{
    FakePage* page = virtToPage(va);
    const std::uintptr_t head = page->compoundHead;  // compound_head()
    // A tail page's compound_head is the head's address with bit 0 set, as in the kernel.
    return (head & 1) != 0 ? reinterpret_cast<FakePage*>(head - 1) : page;  // NOLINT(performance-no-int-to-ptr)
}

char* PageArena::pageAddress(const FakePage* page) const
{
    return m_memory + static_cast<std::size_t>(page - m_pages.get()) * kPageSize;
}

#define NF_PLACED_FILE "engine/workloads/page_frag_model_hot.h"
#define NF_PLACED_SECTION "page_frag_model"
#include "engine/workloads/each_placement.h"

NF_OUT_OF_LINE void fragFree(PageArena* arena, void* va)
{
    FakePage* page = arena->virtToHeadPage(va);
    if (__builtin_expect(page->refCount.fetch_sub(1, std::memory_order_acq_rel) == 1, 0)) {  // put_page_testzero
        arena->freeBlock(page);
    }
}

void cacheDrain(FragCache* nc)
{
    if (nc->encodedPage == 0) {
        return;
    }
    FakePage* page = nc->arena->virtToPage(decodeVirt(nc->encodedPage));
    if (pageRefSubAndTest(page, static_cast<int>(nc->pagecntBias))) {  // __page_frag_cache_drain()
        nc->arena->freeBlock(page);
    }
    nc->encodedPage = 0;
}

}  // namespace nf::engine::workloads::page_frag
