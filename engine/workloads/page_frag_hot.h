// The push round of `page-frag` (engine/workloads/page_frag.cpp), once per code placement:
// page_frag.cpp includes it through each_placement.h after the types it uses. Each placement's
// round calls that placement's allocators (page_frag_model_hot.h). No include guard, by design.

#include "engine/workloads/placed.h"

namespace NF_PLACED_NS {

// One push round of page_frag_test.ko's push thread: allocate, hand to the ring, or free at once
// when the ring is full. kSplit picks the allocator, kAligned the API (page_frag_alloc_align with
// -align, or page_frag_alloc with ~0u). kChecked (tests only) counts and checks every fragment.
template <bool kSplit, bool kAligned, bool kChecked>
NF_PLACED_LOOP void pushRound(PushState* s, std::uint64_t calls)
{
    const std::uint32_t alignMask = kAligned ? s->alignMask : ~0U;
    for (std::uint64_t i = 0; i < calls; ++i) {
        void* va = kSplit ? page_frag::allocAlignSplitWith<&page_frag::NF_PLACED_NS::cachePrepare,
                                                           &page_frag::NF_PLACED_NS::cacheCommitNoref>(
                                &s->cache, s->allocLen, alignMask)
                          : page_frag::NF_PLACED_NS::allocAlignMonolithic(&s->cache, s->allocLen, alignMask);
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

// GCC 12 drops a section attribute on a function template (GCC bug 70435) but keeps it on an
// explicit instantiation: each instantiation, in this placement's section.
template NF_PLACED void pushRound<false, false, false>(PushState*, std::uint64_t);
template NF_PLACED void pushRound<false, false, true>(PushState*, std::uint64_t);
template NF_PLACED void pushRound<false, true, false>(PushState*, std::uint64_t);
template NF_PLACED void pushRound<false, true, true>(PushState*, std::uint64_t);
template NF_PLACED void pushRound<true, false, false>(PushState*, std::uint64_t);
template NF_PLACED void pushRound<true, false, true>(PushState*, std::uint64_t);
template NF_PLACED void pushRound<true, true, false>(PushState*, std::uint64_t);
template NF_PLACED void pushRound<true, true, true>(PushState*, std::uint64_t);

}  // namespace NF_PLACED_NS
