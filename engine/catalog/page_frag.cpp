#include "engine/catalog/descriptors.h"

#include <bit>

#include "engine/catalog/cpu_params.h"

namespace nf::engine::catalog {

namespace {

Result<void> checkPageFrag(const ParamSet& p, const CheckContext& ctx)
{
    const auto align = p.integer("align");
    if (align != 0 && !std::has_single_bit(static_cast<std::uint64_t>(align))) {
        return Error{"align=" + std::to_string(align) + ": must be 0 or a power of two"};
    }
    const auto pushCpu = static_cast<int>(p.integer("push_cpu"));
    const auto popCpu = static_cast<int>(p.integer("pop_cpu"));
    if (pushCpu >= 0 && pushCpu != ctx.workerCpu) {
        return Error{"push_cpu=" + std::to_string(pushCpu) +
                     ": the push side runs on the measuring thread, which runs on CPU " +
                     std::to_string(ctx.workerCpu) + "; measure on CPU " + std::to_string(pushCpu) + " instead"};
    }
    if (popCpu >= 0) {
        if (auto r = checkCpu("pop_cpu", popCpu, ctx.allowedCpus); !r) {
            return r;
        }
        if (popCpu == (pushCpu >= 0 ? pushCpu : ctx.workerCpu)) {
            return Error{"pop_cpu=" + std::to_string(popCpu) + ": the same CPU as the push side"};
        }
    }
    return {};
}

}  // namespace

WorkloadDescriptor pageFrag()
{
    WorkloadDescriptor info;
    info.summary = "page_frag_alloc_align(): one function vs the prepare + commit refactor, push/pop threads";
    info.models = "mm/page_frag_cache.c: __page_frag_alloc_align";
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
        {.name = "impl",
         .type = ParamType::Choice,
         .defaultValue = "monolithic",
         .description = "one __page_frag_alloc_align() or prepare + commit",
         .choices = {"monolithic", "split"},
         .selectsCode = true},
        {.name = "align",
         .type = ParamType::Int,
         .defaultValue = "0",
         .description = "0: page_frag_alloc(); else the alignment (a power of two)",
         .max = 4096,
         .unit = "bytes"},
        {.name = "alloc_len",
         .type = ParamType::Int,
         .defaultValue = "2048",
         .description = "fragment size (test_alloc_len)",
         .min = 1,
         .max = 4096,
         .unit = "bytes"},
        {.name = "push_cpu",
         .type = ParamType::Int,
         .defaultValue = "-1",
         .description = "-1: the CPU the run measures on; else must be that CPU",
         .min = -1,
         .max = 4095},
        {.name = "pop_cpu",
         .type = ParamType::Int,
         .defaultValue = "-1",
         .description = "CPU of the pop thread; -1: another allowed CPU",
         .min = -1,
         .max = 4095},
        {.name = "ring_size",
         .type = ParamType::Int,
         .defaultValue = "512",
         .description = "ptr_ring entries (each may pin a 32 KiB page)",
         .min = 2,
         .max = 65536},
    };
    info.placedCode = true;
    info.primaryMetric = "tsc_per_op";
    info.defaultChunk = 0.002;
    info.check = checkPageFrag;
    return info;
}

}  // namespace nf::engine::catalog
