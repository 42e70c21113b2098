#include "engine/workloads/page_frag.h"
#include "engine/workloads/placement.h"
#include "engine/workloads/registry.h"

#include <pthread.h>
#include <sched.h>

#include <algorithm>
#include <array>
#include <atomic>
#include <chrono>
#include <thread>

#include "engine/run/pinned_thread.h"
#include "engine/workloads/page_frag_model.h"

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

// The push thread's state (pushRound, page_frag_hot.h).
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

// One push round of page_frag_test.ko's push thread, once per code placement: pushRound<kSplit,
// kAligned, kChecked>.
#define NF_PLACED_FILE "engine/workloads/page_frag_hot.h"
#define NF_PLACED_SECTION "page_frag"
#include "engine/workloads/each_placement.h"

// Each placement's push rounds, indexed [kSplit][kAligned][kChecked], and the allocator functions
// they call (hotCode()'s order after the round).
using PushRound = void (*)(PushState* s, std::uint64_t calls);
struct PageFragCode {
    std::array<std::array<std::array<PushRound, 2>, 2>, 2> push;
    const void* monolithic;
    const void* prepare;
    const void* commitNoref;
};
#define NF_PAGE_FRAG_PUSH(L, split, aligned)                                                            \
    std::array<PushRound, 2>                                                                            \
    {                                                                                                   \
        &placement##L::pushRound<split, aligned, false>, &placement##L::pushRound<split, aligned, true> \
    }
#define NF_PAGE_FRAG_CODE(L)                                                                  \
    PageFragCode{{{{{NF_PAGE_FRAG_PUSH(L, false, false), NF_PAGE_FRAG_PUSH(L, false, true)}}, \
                   {{NF_PAGE_FRAG_PUSH(L, true, false), NF_PAGE_FRAG_PUSH(L, true, true)}}}}, \
                 codeAddress(&page_frag::placement##L::allocAlignMonolithic),                 \
                 codeAddress(&page_frag::placement##L::cachePrepare),                         \
                 codeAddress(&page_frag::placement##L::cacheCommitNoref)},
const std::array<PageFragCode, kPlacements> kCode = {NF_EACH_PLACEMENT(NF_PAGE_FRAG_CODE)};
#undef NF_PAGE_FRAG_CODE
#undef NF_PAGE_FRAG_PUSH

// The pop thread: frees whatever the ring holds, spins while the push side is active and sleeps
// when it is not, so the variants' pop threads do not compete between their chunks.
class PopThread {
public:
    PopThread(PtrRing& ring, PageArena& arena, int cpu)
        : m_ring(ring),
          m_arena(arena),
          m_thread(PinnedThread::start("pop thread", cpu, [this](const std::stop_token&) { loop(); }))
    {
        m_cpu.store(m_thread.pinned() ? cpu : -1, std::memory_order_release);
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
    const std::string& warning() const { return m_thread.warning(); }

private:
    void loop()
    {
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
    PinnedThread m_thread;
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
    void run(std::uint64_t calls, std::size_t placement)
    {
        m_pop->setActive(true);
        const bool split = m_config.impl == Impl::Split;
        const bool aligned = m_config.align != 0;
        kCode[placement].push[split ? 1 : 0][aligned ? 1 : 0][kChecked ? 1 : 0](&m_state, calls);
        m_pop->setActive(false);
    }

    PlacedCode placed(std::size_t placement) const
    {
        const PageFragCode& code = kCode[placement];
        const bool split = m_config.impl == Impl::Split;
        const void* round = codeAddress(code.push[split ? 1 : 0][m_config.align != 0 ? 1 : 0][0]);
        return {.hot = split ? std::vector<const void*>{round, code.prepare, code.commitNoref}
                             : std::vector<const void*>{round, code.monolithic},
                .loop = round,
                .stackOffset = placementStackOffset(placement)};
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

class PageFragLoop final : public PlacedCallLoop {
public:
    PageFragLoop(const Config& c, int popCpu, std::size_t placement) : PlacedCallLoop(placement), m_model(c, popCpu) {}

    std::vector<std::pair<std::string, std::string>> facts() const override
    {
        return {{"pop_cpu", m_model.pop().cpu() >= 0 ? std::to_string(m_model.pop().cpu()) : "unpinned"},
                {"arena_pages", std::to_string(m_model.arena().blocks())}};
    }
    std::vector<PlacedCode> placements() const override
    {
        std::vector<PlacedCode> code;
        for (std::size_t l = 0; l < kCode.size(); ++l) {
            code.push_back(m_model.placed(l));
        }
        return code;
    }
    std::vector<std::string> warnings() const override { return nonEmpty({m_model.pop().warning()}); }

private:
    void runPlaced(std::uint64_t calls) override { m_model.run<false>(calls, placement()); }

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
        return c.popCpu;  // checked by the catalogue (engine/catalog/page_frag.cpp)
    }
    for (int cpu = 0; cpu < CPU_SETSIZE; ++cpu) {
        if (CPU_ISSET(cpu, &allowed) && std::find(mine.begin(), mine.end(), cpu) == mine.end()) {
            return cpu;
        }
    }
    return -1;
}

// The checked configuration and the pop thread's CPU.
Result<std::pair<Config, int>> modelSetup(const ParamSet& params)
{
    const Config c = readConfig(params);
    auto popCpu = NF_TRY(choosePopCpu(c));
    return std::pair{c, popCpu};
}

}  // namespace

Result<PageFragModelStats> pageFragSelfCheck(const ParamSet& params, std::uint64_t calls, std::size_t placement)
{
    NF_TRY(checkPlacement(placement, kPlacements));
    auto setup = NF_TRY(modelSetup(params));
    PageFragModelStats stats;
    {
        PageFragModel model(setup.first, setup.second);
        model.run<true>(calls, placement);
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

Result<std::unique_ptr<CallLoop>> makePageFrag(const ParamSet& params, std::size_t placement)
{
    NF_TRY(checkPlacement(placement, kPlacements));
    auto setup = NF_TRY(modelSetup(params));
    return std::unique_ptr<CallLoop>(std::make_unique<PageFragLoop>(setup.first, setup.second, placement));
}

WorkloadImplementation implementation::pageFrag()
{
    return {.make = makePageFrag, .placements = kPlacements};
}

}  // namespace nf::engine::workloads
