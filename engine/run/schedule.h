#pragma once
// The order in which variants are measured: pure functions, so the counterbalancing can be tested
// without running anything.

#include <cstdint>
#include <random>
#include <vector>

#include "engine/model/experiment_spec.h"

namespace nf::engine {

// A unit of work stored as one repetition: every variant in `variants` runs `duration` seconds.
struct ScheduleUnit {
    int repetition = 0;
    std::vector<int> variants;  // in the order they start
};

// One measured slice: a chunk (alternating) or an interval (not alternating).
struct SliceRef {
    int variant = 0;
    int pair = -1;  // alternation round, -1 when not alternating
};

// Units of the whole run. Interleaved: repetition r runs all variants, forward when r is even and
// reversed when odd (A B, B A, A B ...). Random: each repetition's order shuffled with `rng`.
// Blocked: every repetition of the first variant, then of the second, one variant per unit.
std::vector<ScheduleUnit> planUnits(int variants, int repetitions, Order order, std::mt19937_64& rng);

// Slices inside one unit. Alternating (rounds > 0): `rounds` rounds in which every variant of the
// unit runs one chunk; interleaved reverses the order every other round (A B B A ...), random
// shuffles each round, blocked keeps the unit's order. Not alternating (rounds == 0): each variant
// in turn for `slicesPerVariant` consecutive intervals.
std::vector<SliceRef> planSlices(const ScheduleUnit& unit, int rounds, int slicesPerVariant, Order order,
                                 std::mt19937_64& rng);

}  // namespace nf::engine
