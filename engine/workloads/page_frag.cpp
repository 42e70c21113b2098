#include "workloads/page_frag.h"

#include <pthread.h>
#include <sched.h>

#include <algorithm>
#include <atomic>
#include <chrono>
#include <thread>

#include "workloads/page_frag_model.h"

namespace nf::engine::workloads {

namespace {

using namespace page_frag;

enum class Impl { Monolithic, Split };

struct Config {
    Impl impl = Impl::Monolithic;
    std::uint32_t align = 0;  // 0: page_frag_alloc(); else page_frag_alloc_align(..., align)
    std::uint32_t allocLen = 2048;
    int pushCpu = -1;
    int popCpu = -1;
    std::uint32_t ringSize = 512;
};

Config readConfig(const ParamSet& p)
{
    Config c;
    c.impl = p.text("impl") == "split" ? Impl::Split : Impl::Monolithic;
    c.align = static_cast<std::uint32_t>(p.integer("align"));
    c.allocLen = static_cast<std::uint32_t>(p.integer("alloc_len"));
    c.pushCpu = static_cast<int>(p.integer("push_cpu"));
    c.popCpu = static_cast<int>(p.integer("pop_cpu"));
    c.ringSize = static_cast<std::uint32_t>(p.integer("ring_size"));
    return c;
}

inline void cpuRelax()
{
#if defined(__x86_64__) || defined(__i386__)
    __builtin_ia32_pause();
#endif
}

std::vector<int> threadCpus()
{
    cpu_set_t set;
    CPU_ZERO(&set);
    std::vector<int> cpus;
    if (pthread_getaffinity_np(pthread_self(), sizeof set, &set) == 0) {
        for (int cpu = 0; cpu < CPU_SETSIZE; ++cpu) {
            if (CPU_ISSET(cpu, &set)) {
                cpus.push_back(cpu);
            }
        }
    }
    return cpus;
}

// One push round of page_frag_test.ko's push thread: allocate, hand to the ring, or free at once
// when the ring is full. kSplit picks the allocator, kAligned the API (page_frag_alloc_align with
// -align, or page_frag_alloc with ~0u). kChecked (tests only) counts and checks every fragment.
struct PushState {
    FragCache cache;
    PtrRing* ring = nullptr;
    std::uint32_t allocLen = 0;
    std::uint32_t alignMask = ~0U;
    std::uint64_t failures = 0;
    std::uint64_t freedByPush = 0;
    std::uint64_t pushed = 0;     // kChecked only
    std::uint64_t misplaced = 0;  // kChecked only: fragments outside their page or misaligned
};

template <bool kSplit, bool kAligned, bool kChecked>
__attribute__((noinline, aligned(64))) void pushRound(PushState* s, std::uint64_t calls)
{
    const std::uint32_t alignMask = kAligned ? s->alignMask : ~0U;
    for (std::uint64_t i = 0; i < calls; ++i) {
        void* va = kSplit ? allocAlignSplit(&s->cache, s->allocLen, alignMask)
                          : allocAlignMonolithic(&s->cache, s->allocLen, alignMask);
        if (__builtin_expect(va == nullptr, 0)) {
            ++s->failures;
            continue;
        }
        if constexpr (kChecked) {
            const auto offset = static_cast<std::uint32_t>(reinterpret_cast<std::uintptr_t>(va) % kMaxSize);
            if ((reinterpret_cast<std::uintptr_t>(va) & ~alignMask) != 0 || offset + s->allocLen > kMaxSize) {
                ++s->misplaced;
            }
        }
        if (__builtin_expect(!s->ring->produce(va), 0)) {
            fragFree(s->cache.arena, va);
            ++s->freedByPush;
        } else if constexpr (kChecked) {
            ++s->pushed;
        }
    }
}

// The pop thread: frees whatever the ring holds, spins while the push side is active and sleeps
// when it is not, so the variants' pop threads do not compete between their chunks.
class PopThread {
public:
    PopThread(PtrRing& ring, PageArena& arena, int cpu)
        : m_ring(ring), m_arena(arena), m_thread([this, cpu] { loop(cpu); })
    {
    }
    ~PopThread()
    {
        m_stop.store(true, std::memory_order_release);
        m_active.store(true, std::memory_order_release);
        m_active.notify_one();
        m_thread.join();
    }
    PopThread(const PopThread&) = delete;
    PopThread& operator=(const PopThread&) = delete;

    void setActive(bool active)
    {
        m_active.store(active, std::memory_order_release);
        if (active) {
            m_active.notify_one();
        }
    }
    std::uint64_t popped() const { return m_popped.load(std::memory_order_acquire); }
    int cpu() const { return m_cpu.load(std::memory_order_acquire); }

private:
    void loop(int cpu)
    {
        if (cpu >= 0) {
            cpu_set_t set;
            CPU_ZERO(&set);
            CPU_SET(cpu, &set);
            if (pthread_setaffinity_np(pthread_self(), sizeof set, &set) != 0) {
                cpu = -1;
            }
        }
        m_cpu.store(cpu, std::memory_order_release);
        std::uint64_t popped = 0;
        for (;;) {
            if (void* va = m_ring.consume()) {
                fragFree(&m_arena, va);
                m_popped.store(++popped, std::memory_order_release);
                continue;
            }
            if (m_stop.load(std::memory_order_acquire)) {
                return;
            }
            if (!m_active.load(std::memory_order_acquire)) {
                if (m_ring.empty()) {
                    m_active.wait(false, std::memory_order_acquire);
                }
                continue;
            }
            cpuRelax();
        }
    }

    PtrRing& m_ring;
    PageArena& m_arena;
    std::atomic<bool> m_stop{false};
    std::atomic<bool> m_active{false};
    std::atomic<std::uint64_t> m_popped{0};
    std::atomic<int> m_cpu{-2};
    std::thread m_thread;
};

// Pages enough for every fragment the ring can hold, the cache's page and slack.
// Enough pages that allocation never fails, as it would not in the kernel: when the pop side lags,
// the ring is full and the push side frees most fragments at once, so the few that get into the
// ring can each come from a page of its own, every one pinned until popped. Hence one page per
// ring entry, plus the cache's current page and a margin.
std::size_t arenaBlocks(const Config& c)
{
    return static_cast<std::size_t>(c.ringSize) + 10;
}

class PageFragModel {
public:
    PageFragModel(const Config& c, int popCpu) : m_config(c), m_arena(arenaBlocks(c)), m_ring(c.ringSize)
    {
        m_state.cache.arena = &m_arena;
        m_state.ring = &m_ring;
        m_state.allocLen = c.allocLen;
        m_state.alignMask = c.align == 0 ? ~0U : -c.align;
        m_pop = std::make_unique<PopThread>(m_ring, m_arena, popCpu);
    }
    ~PageFragModel()
    {
        m_pop.reset();  // drains the ring
        cacheDrain(&m_state.cache);
    }
    PageFragModel(const PageFragModel&) = delete;
    PageFragModel& operator=(const PageFragModel&) = delete;

    template <bool kChecked>
    void run(std::uint64_t calls)
    {
        m_pop->setActive(true);
        const bool split = m_config.impl == Impl::Split;
        const bool aligned = m_config.align != 0;
        if (split) {
            aligned ? pushRound<true, true, kChecked>(&m_state, calls)
                    : pushRound<true, false, kChecked>(&m_state, calls);
        } else {
            aligned ? pushRound<false, true, kChecked>(&m_state, calls)
                    : pushRound<false, false, kChecked>(&m_state, calls);
        }
        m_pop->setActive(false);
    }

    std::vector<const void*> hotCode() const
    {
        const bool aligned = m_config.align != 0;
        if (m_config.impl == Impl::Split) {
            return {aligned ? codeAddress(&pushRound<true, true, false>) : codeAddress(&pushRound<true, false, false>),
                    codeAddress(&cachePrepare), codeAddress(&cacheCommitNoref)};
        }
        return {aligned ? codeAddress(&pushRound<false, true, false>) : codeAddress(&pushRound<false, false, false>),
                codeAddress(&allocAlignMonolithic)};
    }

    // Waits until the pop thread has taken everything pushed (tests), at most ~10 s.
    bool waitDrained(std::uint64_t pushed) const
    {
        m_pop->setActive(true);
        for (int i = 0; i < 10000 && m_pop->popped() < pushed; ++i) {
            std::this_thread::sleep_for(std::chrono::milliseconds(1));
        }
        m_pop->setActive(false);
        return m_pop->popped() == pushed;
    }

    PushState& state() { return m_state; }
    PageArena& arena() { return m_arena; }
    const PopThread& pop() const { return *m_pop; }

private:
    Config m_config;
    PageArena m_arena;
    PtrRing m_ring;
    PushState m_state;
    std::unique_ptr<PopThread> m_pop;
};

class PageFragLoop final : public CallLoop {
public:
    PageFragLoop(const Config& c, int popCpu) : m_model(c, popCpu) {}

    void run(std::uint64_t calls) override { m_model.run<false>(calls); }

    std::vector<std::pair<std::string, std::string>> facts() const override
    {
        return {{"pop_cpu", m_model.pop().cpu() >= 0 ? std::to_string(m_model.pop().cpu()) : "unpinned"},
                {"arena_pages", std::to_string(m_model.arena().blocks())}};
    }
    std::vector<const void*> hotCode() const override { return m_model.hotCode(); }

private:
    mutable PageFragModel m_model;
};

// The pop thread's CPU: pop_cpu, else another CPU this thread may use, else unpinned (-1).
Result<int> choosePopCpu(const Config& c)
{
    const auto mine = threadCpus();
    cpu_set_t allowed;
    CPU_ZERO(&allowed);
    if (sched_getaffinity(0, sizeof allowed, &allowed) != 0) {
        return -1;
    }
    if (c.popCpu >= 0) {
        if (!CPU_ISSET(c.popCpu, &allowed)) {
            return Error{"pop_cpu=" + std::to_string(c.popCpu) + ": not a CPU this process may use"};
        }
        return c.popCpu;
    }
    for (int cpu = 0; cpu < CPU_SETSIZE; ++cpu) {
        if (CPU_ISSET(cpu, &allowed) && std::find(mine.begin(), mine.end(), cpu) == mine.end()) {
            return cpu;
        }
    }
    return -1;
}

Result<Config> checkedConfig(const ParamSet& params)
{
    const Config c = readConfig(params);
    if (c.align != 0 && (c.align & (c.align - 1)) != 0) {
        return Error{"align=" + std::to_string(c.align) + ": must be 0 or a power of two"};
    }
    if (c.pushCpu >= 0) {
        const auto mine = threadCpus();
        if (mine.size() != 1 || mine.front() != c.pushCpu) {
            return Error{"push_cpu=" + std::to_string(c.pushCpu) +
                         ": the push side runs on the measuring thread, which --cpu pins; use --cpu " +
                         std::to_string(c.pushCpu)};
        }
    }
    if (c.popCpu >= 0 && c.popCpu == c.pushCpu) {
        return Error{"pop_cpu=" + std::to_string(c.popCpu) + ": the same CPU as push_cpu"};
    }
    return c;
}

// The checked configuration and the pop thread's CPU.
Result<std::pair<Config, int>> modelSetup(const ParamSet& params)
{
    auto c = checkedConfig(params);
    if (!c) {
        return c.error();
    }
    auto popCpu = choosePopCpu(*c);
    if (!popCpu) {
        return popCpu.error();
    }
    return std::pair{*c, *popCpu};
}

}  // namespace

Result<PageFragModelStats> pageFragSelfCheck(const ParamSet& params, std::uint64_t calls)
{
    auto setup = modelSetup(params);
    if (!setup) {
        return setup.error();
    }
    PageFragModelStats stats;
    {
        PageFragModel model(setup->first, setup->second);
        model.run<true>(calls);
        auto& s = model.state();
        stats.pushed = s.pushed;
        stats.freedByPush = s.freedByPush;
        stats.failures = s.failures;
        stats.allocs = s.pushed + s.freedByPush;
        if (!model.waitDrained(s.pushed)) {
            stats.problem = "the pop thread freed " + std::to_string(model.pop().popped()) + " of " +
                            std::to_string(s.pushed) + " pushed fragments";
        }
        stats.popped = model.pop().popped();
        stats.refills = s.cache.refills;
        stats.blocks = model.arena().blocks();
        if (s.misplaced != 0 && stats.problem.empty()) {
            stats.problem = std::to_string(s.misplaced) + " fragments misaligned or outside their page";
        }
        cacheDrain(&s.cache);
        stats.blocksFree = model.arena().freeBlocks();
    }
    if (stats.problem.empty() && stats.blocksFree != stats.blocks) {
        stats.problem = std::to_string(stats.blocks - stats.blocksFree) + " of " + std::to_string(stats.blocks) +
                        " pages never came back (a reference was lost or taken twice)";
    }
    stats.consistent = stats.problem.empty();
    return stats;
}

WorkloadInfo pageFragInfo()
{
    WorkloadInfo info;
    info.name = "page-frag";
    info.summary = "page_frag_alloc_align(): one function vs the prepare + commit refactor, push/pop threads";
    info.description =
        "Models mm/page_frag_cache.c (v6.13: encoded_page, order-3 pages, pagecnt_bias) as "
        "page_frag_test.ko drives it (seed 002). impl=monolithic is __page_frag_alloc_align() as one "
        "exported function; impl=split is \"mm: page_frag: some minor refactoring before adding new "
        "API\": an out-of-line __page_frag_cache_prepare() filling a struct page_frag on the caller's "
        "stack (and decoding the page on every call), then the inline __page_frag_cache_commit() "
        "calling the out-of-line __page_frag_cache_commit_noref(). The measuring thread is the push "
        "thread: each operation allocates alloc_len bytes (align 0: page_frag_alloc(), else "
        "page_frag_alloc_align() with that alignment) and hands the fragment to a single-producer "
        "ptr_ring, or frees it at once when the ring is full; a pop thread on pop_cpu frees what the "
        "ring holds with page_frag_free(). Pages are order-3 blocks with a struct page per 4 KiB "
        "(refcount on the head, compound_head on the tails) from a locked free list. It cannot model "
        "the buddy allocator, pfmemalloc reserves, GFP flags, or kernel preemption and cond_resched().";
    info.params = {
        {"impl",
         ParamType::Choice,
         "monolithic",
         "one __page_frag_alloc_align() or prepare + commit",
         0,
         0,
         {"monolithic", "split"},
         ""},
        {"align",
         ParamType::Int,
         "0",
         "0: page_frag_alloc(); else the alignment (a power of two)",
         0,
         4096,
         {},
         "bytes"},
        {"alloc_len", ParamType::Int, "2048", "fragment size (test_alloc_len)", 1, 4096, {}, "bytes"},
        {"push_cpu", ParamType::Int, "-1", "-1: the measuring CPU (--cpu); else must equal it", -1, 4095, {}, ""},
        {"pop_cpu", ParamType::Int, "-1", "CPU of the pop thread; -1: another allowed CPU", -1, 4095, {}, ""},
        {"ring_size", ParamType::Int, "512", "ptr_ring entries (each may pin a 32 KiB page)", 2, 65536, {}, ""},
    };
    info.primaryMetric = "tsc_per_op";
    info.defaultChunk = 0.002;
    info.make = [](const ParamSet& params) -> Result<std::unique_ptr<CallLoop>> {
        auto setup = modelSetup(params);
        if (!setup) {
            return setup.error();
        }
        return std::unique_ptr<CallLoop>(std::make_unique<PageFragLoop>(setup->first, setup->second));
    };
    return info;
}

}  // namespace nf::engine::workloads
