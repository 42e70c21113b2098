#include "engine/workloads/page_pool.h"
#include "engine/workloads/placement.h"
#include "engine/workloads/registry.h"

#include <algorithm>
#include <array>
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

// The measuring loop's state: the pool and the precomputed per-call dma_sync_size sequence.
struct LoopState {
    PoolState* pool = nullptr;
    const std::uint64_t* zeroBits = nullptr;
    std::uint32_t syncSize = 0;
    std::uint32_t cursor = 0;
};

#define NF_PLACED_FILE "engine/workloads/page_pool_hot.h"
#define NF_PLACED_SECTION "page_pool"
#include "engine/workloads/each_placement.h"

using LoopFunction = void (*)(LoopState& s, std::uint64_t calls);

// Each placement's copy of the code, indexed by kEarly: the measuring loop, the counting one
// (pagePoolSelfCheck) and the model functions the loop calls (hotCode()'s order).
struct PagePoolCode {
    std::array<LoopFunction, 2> loop;
    std::array<LoopFunction, 2> countingLoop;
    std::array<std::vector<const void*>, 2> hot;
};
#define NF_PAGE_POOL_HOT(L, kEarly)                                      \
    std::vector<const void*>                                             \
    {                                                                    \
        codeAddress(&placement##L::pagePoolPutPage<kEarly, false>),      \
            codeAddress(&placement##L::pagePoolDmaSyncForDevice<false>), \
            codeAddress(&placement##L::pagePoolAllocPage<false>)         \
    }
#define NF_PAGE_POOL_CODE(L)                                                                            \
    PagePoolCode{{&placement##L::pagePoolLoop<false, false>, &placement##L::pagePoolLoop<true, false>}, \
                 {&placement##L::pagePoolLoop<false, true>, &placement##L::pagePoolLoop<true, true>},   \
                 {NF_PAGE_POOL_HOT(L, false), NF_PAGE_POOL_HOT(L, true)}},
const std::array<PagePoolCode, kPlacements> kCode = {NF_EACH_PLACEMENT(NF_PAGE_POOL_CODE)};
#undef NF_PAGE_POOL_CODE
#undef NF_PAGE_POOL_HOT

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
          m_zeroBits(kSizeTableLen / 64, 0)
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
        m_loop.pool = &m_pool;
        m_loop.zeroBits = m_zeroBits.data();
        m_loop.syncSize = c.syncSize;
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

    // `calls` operations of one copy of the loop (kCode).
    void run(LoopFunction loop, std::uint64_t calls) { loop(m_loop, calls); }

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
        // FNV-1a over where everything is: the same operations leave the same digest.
        std::uint64_t digest = 14695981039346656037ULL;
        auto mix = [&](std::uint64_t v) { digest = (digest ^ v) * 1099511628211ULL; };
        mix(m_pool.cacheCount);
        mix(m_pool.ringProducer);
        mix(m_pool.ringConsumer);
        mix(m_loop.cursor);
        for (std::uint32_t i = 0; i < m_pool.cacheCount; ++i) {
            mix(static_cast<std::uint64_t>(m_cache[i] - m_pages.data()));
        }
        for (const FakePage* p : m_ring) {
            mix(p == nullptr ? ~0ULL : static_cast<std::uint64_t>(p - m_pages.data()));
        }
        s.stateDigest = digest;
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
    LoopState m_loop;
    std::uint32_t m_zeroCalls = 0;
};

class PagePoolLoop final : public PlacedCallLoop {
public:
    PagePoolLoop(const Config& c, std::size_t placement) : PlacedCallLoop(placement), m_config(c), m_model(c) {}

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

    std::vector<PlacedCode> placements() const override
    {
        const std::size_t early = m_config.early ? 1 : 0;
        std::vector<PlacedCode> code;
        for (std::size_t l = 0; l < kCode.size(); ++l) {
            code.push_back({.hot = kCode[l].hot[early],
                            .loop = codeAddress(kCode[l].loop[early]),
                            .stackOffset = placementStackOffset(l)});
        }
        return code;
    }

private:
    void runPlaced(std::uint64_t calls) override
    {
        m_model.run(kCode[placement()].loop[m_config.early ? 1 : 0], calls);
    }

    Config m_config;
    PagePoolModel m_model;
};

}  // namespace

Result<PagePoolModelStats> pagePoolSelfCheck(const ParamSet& params, std::uint64_t calls, std::size_t placement)
{
    NF_TRY(checkPlacement(placement, kPlacements));
    const Config c = readConfig(params);
    PagePoolModel model(c);
    model.run(kCode[placement].countingLoop[c.early ? 1 : 0], calls);
    return model.audit();
}

Result<std::unique_ptr<CallLoop>> makePagePool(const ParamSet& params, std::size_t placement)
{
    NF_TRY(checkPlacement(placement, kPlacements));
    return std::unique_ptr<CallLoop>(std::make_unique<PagePoolLoop>(readConfig(params), placement));
}

WorkloadImplementation implementation::pagePool()
{
    return {.make = makePagePool, .placements = kPlacements};
}

}  // namespace nf::engine::workloads
