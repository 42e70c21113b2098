#include "engine/workloads/page_pool.h"
#include "engine/workloads/out_of_line.h"
#include "engine/workloads/registry.h"

#include <algorithm>
#include <cmath>
#include <cstddef>
#include <cstdint>
#include <random>
#include <vector>

namespace nf::engine::workloads {

namespace {

constexpr std::uint32_t kSizeTableBits = 16;
constexpr std::uint32_t kSizeTableLen = 1U << kSizeTableBits;  // calls per cycle of the size table
constexpr std::uint32_t kCacheLine = 64;
constexpr std::uint32_t kMaxLen = 65536;  // pool->p.max_len: large enough that sync_size is never clamped
constexpr std::uint32_t kOffset = 256;    // pool->p.offset: XDP_PACKET_HEADROOM

// Stands in for struct page: the fields the fast path reads (refcount, pfmemalloc, dma address).
struct alignas(64) FakePage {
    std::uint64_t dmaAddr = 0;
    std::uint32_t refCount = 1;
    std::uint32_t pfmemalloc = 0;
};

// Stands in for struct device: dma_dev_need_sync(dev) is `!dev->dma_skip_sync`.
struct FakeDevice {
    std::uint32_t needSync = 1;
};

// Stands in for struct page_pool: alloc.cache, the ptr_ring, and the parameters the path reads.
struct PoolState {
    bool dmaSync = true;  // PP_FLAG_DMA_SYNC_DEV
    std::uint32_t maxLen = kMaxLen;
    std::uint32_t offset = kOffset;
    std::uint32_t syncCost = 1;
    const FakeDevice* dev = nullptr;
    FakePage** cache = nullptr;  // alloc.cache
    std::uint32_t cacheCount = 0;
    std::uint32_t cacheSize = 0;
    std::uint32_t refillBatch = 0;  // PP_ALLOC_CACHE_REFILL
    FakePage** ring = nullptr;      // ptr_ring queue: nullptr marks an empty slot
    std::uint32_t ringSize = 0;
    std::uint32_t ringProducer = 0;
    std::uint32_t ringConsumer = 0;
    PagePoolModelStats counts;  // only the counting instantiation (pagePoolSelfCheck) touches it
};

// __ptr_ring_produce: fails when the slot is still occupied (ring full).
inline bool ringProduce(PoolState& pool, FakePage* page)
{
    if (pool.ring[pool.ringProducer] != nullptr) {
        return false;
    }
    pool.ring[pool.ringProducer] = page;
    pool.ringProducer = pool.ringProducer + 1 == pool.ringSize ? 0 : pool.ringProducer + 1;
    return true;
}

// __ptr_ring_consume: nullptr when the ring is empty.
inline FakePage* ringConsume(PoolState& pool)
{
    FakePage* page = pool.ring[pool.ringConsumer];
    if (page != nullptr) {
        pool.ring[pool.ringConsumer] = nullptr;
        pool.ringConsumer = pool.ringConsumer + 1 == pool.ringSize ? 0 : pool.ringConsumer + 1;
    }
    return page;
}

inline void completionBarrier()
{
#if defined(__x86_64__) || defined(__i386__)
    asm volatile("lfence" ::: "memory");
#elif defined(__aarch64__)
    asm volatile("dsb sy" ::: "memory");
#else
    asm volatile("" ::: "memory");
#endif
}

// page_pool_dma_sync_for_device(): clamp to max_len, then "clean" each cache line of the synced
// range: `syncCost` dependent steps per 64-byte line, opaque to the optimiser.
template <bool kCounting>
NF_OUT_OF_LINE void pagePoolDmaSyncForDevice(PoolState& pool, const FakePage* page, std::uint32_t dmaSyncSize)
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
NF_OUT_OF_LINE FakePage* pagePoolAllocPage(PoolState& pool)
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
NF_OUT_OF_LINE void pagePoolPutPage(PoolState& pool, FakePage* page, std::uint32_t dmaSyncSize)
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

struct Config {
    bool early = false;
    double zeroSizePct = 0;
    std::uint32_t syncSize = 2048;
    std::uint32_t devNeedsSync = 1;
    std::uint32_t syncCost = 1;
    std::uint32_t poolSize = 128;
    std::uint32_t ringSize = 1024;
    std::uint64_t seed = 1;
};

Config readConfig(const ParamSet& params)
{
    Config c;
    c.early = params.text("check") == "early";
    c.zeroSizePct = params.real("zero_size_pct");
    c.syncSize = static_cast<std::uint32_t>(params.integer("sync_size"));
    c.devNeedsSync = static_cast<std::uint32_t>(params.integer("dev_needs_sync"));
    c.syncCost = static_cast<std::uint32_t>(params.integer("sync_cost"));
    c.poolSize = static_cast<std::uint32_t>(params.integer("pool_size"));
    c.ringSize = static_cast<std::uint32_t>(params.integer("ring_size"));
    c.seed = static_cast<std::uint64_t>(params.integer("seed"));
    return c;
}

// The pool, its pages and the precomputed per-call dma_sync_size sequence: a bitmap over one
// cycle of kSizeTableLen calls with exactly round(kSizeTableLen * pct / 100) zero-size calls at
// seeded random positions.
class PagePoolModel {
public:
    explicit PagePoolModel(const Config& c)
        : m_pages(c.ringSize),
          m_cache(c.poolSize, nullptr),
          m_ring(c.ringSize, nullptr),
          m_zeroBits(kSizeTableLen / 64, 0),
          m_syncSize(c.syncSize)
    {
        m_device.needSync = c.devNeedsSync;
        const FakeDevice* dev = &m_device;
        asm volatile("" : "+r"(dev));  // the optimiser cannot know what dev points to
        m_pool.dev = dev;
        m_pool.syncCost = c.syncCost;
        m_pool.cache = m_cache.data();
        m_pool.cacheSize = c.poolSize;
        m_pool.refillBatch = std::max<std::uint32_t>(1, c.poolSize / 2);
        m_pool.ring = m_ring.data();
        m_pool.ringSize = c.ringSize;
        for (std::size_t i = 0; i < m_pages.size(); ++i) {
            m_pages[i].dmaAddr = 0x10000000ULL + i * 4096ULL;
            static_cast<void>(ringProduce(m_pool, &m_pages[i]));
        }
        const double want = static_cast<double>(kSizeTableLen) * c.zeroSizePct / 100.0;
        m_zeroCalls = std::min<std::uint32_t>(kSizeTableLen, static_cast<std::uint32_t>(std::llround(want)));
        std::vector<std::uint32_t> slots(kSizeTableLen);
        for (std::uint32_t i = 0; i < kSizeTableLen; ++i) {
            slots[i] = i;
        }
        std::mt19937_64 rng(c.seed);
        for (std::uint32_t i = 0; i < m_zeroCalls; ++i) {  // partial Fisher-Yates
            const auto j = i + static_cast<std::uint32_t>(rng() % (kSizeTableLen - i));
            std::swap(slots[i], slots[j]);
            m_zeroBits[slots[i] >> 6] |= 1ULL << (slots[i] & 63);
        }
    }

    template <bool kEarly, bool kCounting>
    void run(std::uint64_t calls)
    {
        std::uint32_t cursor = m_cursor;
        for (std::uint64_t i = 0; i < calls; ++i) {
            FakePage* page = pagePoolAllocPage<kCounting>(m_pool);
            const auto zero = static_cast<std::uint32_t>((m_zeroBits[cursor >> 6] >> (cursor & 63)) & 1);
            const std::uint32_t size = m_syncSize & (zero - 1);  // branch-free: 0 or sync_size
            cursor = (cursor + 1) & (kSizeTableLen - 1);
            if (page != nullptr) {
                pagePoolPutPage<kEarly, kCounting>(m_pool, page, size);
            }
        }
        m_cursor = cursor;
    }

    PagePoolModelStats audit() const
    {
        PagePoolModelStats s = m_pool.counts;
        s.pages = m_pages.size();
        std::vector<std::uint32_t> seen(m_pages.size(), 0);
        auto mark = [&](const FakePage* p, const char* where) {
            if (p < m_pages.data() || p >= m_pages.data() + m_pages.size()) {
                s.problem = std::string("foreign page in ") + where;
                return;
            }
            ++seen[static_cast<std::size_t>(p - m_pages.data())];
        };
        for (std::uint32_t i = 0; i < m_pool.cacheCount; ++i) {
            mark(m_cache[i], "cache");
        }
        std::uint32_t inRing = 0;
        for (const FakePage* p : m_ring) {
            if (p != nullptr) {
                mark(p, "ring");
                ++inRing;
            }
        }
        for (std::size_t i = 0; i < seen.size() && s.problem.empty(); ++i) {
            if (seen[i] != 1) {
                s.problem = "page " + std::to_string(i) + " held " + std::to_string(seen[i]) + " times";
            }
        }
        if (s.problem.empty() && m_pool.cacheCount + inRing != m_pages.size()) {
            s.problem = "cache + ring hold " + std::to_string(m_pool.cacheCount + inRing) + " of " +
                        std::to_string(m_pages.size()) + " pages";
        }
        s.consistent = s.problem.empty();
        return s;
    }

    std::uint32_t zeroCalls() const { return m_zeroCalls; }
    std::size_t pageCount() const { return m_pages.size(); }

private:
    std::vector<FakePage> m_pages;
    std::vector<FakePage*> m_cache;
    std::vector<FakePage*> m_ring;
    std::vector<std::uint64_t> m_zeroBits;
    FakeDevice m_device;
    PoolState m_pool;
    std::uint32_t m_syncSize;
    std::uint32_t m_zeroCalls = 0;
    std::uint32_t m_cursor = 0;
};

template <bool kEarly>
class PagePoolLoop final : public CallLoop {
public:
    explicit PagePoolLoop(const Config& c) : m_config(c), m_model(c) {}

    __attribute__((aligned(64))) void run(std::uint64_t calls) override { m_model.run<kEarly, false>(calls); }

    std::vector<std::pair<std::string, std::string>> facts() const override
    {
        return {
            {"pages", std::to_string(m_model.pageCount())},
            {"zero_size_calls_per_65536", std::to_string(m_model.zeroCalls())},
            {"sync_lines_per_call", std::to_string((m_config.syncSize + kCacheLine - 1) / kCacheLine)},
            {"refill_batch", std::to_string(std::max<std::uint32_t>(1, m_config.poolSize / 2))},
            {"max_len", std::to_string(kMaxLen)},
        };
    }

    std::vector<const void*> hotCode() const override
    {
        return {codeAddress(&pagePoolPutPage<kEarly, false>), codeAddress(&pagePoolDmaSyncForDevice<false>),
                codeAddress(&pagePoolAllocPage<false>)};
    }

private:
    Config m_config;
    PagePoolModel m_model;
};

}  // namespace

Result<PagePoolModelStats> pagePoolSelfCheck(const ParamSet& params, std::uint64_t calls)
{
    const Config c = readConfig(params);
    PagePoolModel model(c);
    if (c.early) {
        model.run<true, true>(calls);
    } else {
        model.run<false, true>(calls);
    }
    return model.audit();
}

Result<std::unique_ptr<CallLoop>> makePagePool(const ParamSet& params)
{
    const Config c = readConfig(params);
    if (c.early) {
        return std::unique_ptr<CallLoop>(std::make_unique<PagePoolLoop<true>>(c));
    }
    return std::unique_ptr<CallLoop>(std::make_unique<PagePoolLoop<false>>(c));
}

WorkloadImplementation implementation::pagePool()
{
    return {.make = makePagePool};
}

}  // namespace nf::engine::workloads
