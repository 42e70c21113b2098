#pragma once
// The order in which variants are measured: plans that hand out one unit (stored as a repetition)
// or one slice at a time, so a run of 100,000 repetitions of a day each costs no memory up front,
// and pure functions over them, so the counterbalancing can be tested without running anything.

#include <cstdint>
#include <optional>
#include <random>
#include <string>
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

// The units of a run. Interleaved: repetition r runs all variants, forward when r is even and
// reversed when odd (A B, B A, A B ...). Random: each repetition's order shuffled with `rng`.
// Blocked: every repetition of the first variant, then of the second, one variant per unit.
class UnitPlan {
public:
    UnitPlan(int variants, int repetitions, Order order, std::mt19937_64& rng);
    std::optional<ScheduleUnit> next();
    std::size_t total() const;  // units in all
    std::size_t issued() const { return m_issued; }

private:
    int m_variants;
    int m_repetitions;
    Order m_order;
    std::mt19937_64& m_rng;
    std::size_t m_issued = 0;
};

// The slices inside one unit. Alternating (rounds > 0): `rounds` rounds in which every variant of
// the unit runs one chunk; interleaved reverses the order every other round (A B B A ...), random
// shuffles each round, blocked keeps the unit's order. Not alternating (rounds == 0): each variant
// in turn for `slicesPerVariant` consecutive intervals.
class SlicePlan {
public:
    SlicePlan(const ScheduleUnit& unit, int rounds, int slicesPerVariant, Order order, std::mt19937_64& rng);
    std::optional<SliceRef> next();

private:
    std::vector<int> m_roundOrder;
    int m_rounds;
    int m_slicesPerVariant;
    Order m_order;
    std::mt19937_64& m_rng;
    int m_round = 0;
    std::size_t m_position = 0;  // in the round (alternating), or slice index (not)
};

// The code placement each variant runs in per repetition (ExperimentSpec::layouts = K > 0; docs/
// measurement.md, "Code layout as a factor"). Repetitions come in cycles of K: cycle c visits the
// placements in an order shuffled for it, variant 0 running order[r % K] in repetition r and variant
// v that placement's image under a permutation drawn once for the run, one that gives no cell the
// placement an earlier variant has there (while there are more placements than variants). So each
// variant runs every placement once per cycle (counterbalanced; fewer than K repetitions draw
// without replacement), two variants never share a placement, and they always meet in the same K
// cells (i, perm(i)): the cells are the units of the layout analysis. A pinned variant (layout=N)
// runs N throughout; K = 0 runs placement 0. Pure: the same seed gives the same plan, and it draws
// nothing from the run's other random streams.
class LayoutPlan {
public:
    LayoutPlan(int layouts, std::vector<std::optional<int>> pinned, std::uint64_t seed);
    // The placement of every variant in repetition `repetition`.
    std::vector<int> at(int repetition) const;
    int layouts() const { return m_layouts; }

private:
    int m_layouts;
    std::vector<std::optional<int>> m_pinned;
    std::uint64_t m_seed;
    std::vector<std::vector<int>> m_images;  // [variant][placement]: the run's permutation per variant
};

// The plan of a resolved spec: its layouts, its variants' pins and a seed drawn from its seed.
LayoutPlan layoutPlan(const ExperimentSpec& spec);

// Every unit or slice of a plan at once, for tests and small plans.
std::vector<ScheduleUnit> planUnits(int variants, int repetitions, Order order, std::mt19937_64& rng);
std::vector<SliceRef> planSlices(const ScheduleUnit& unit, int rounds, int slicesPerVariant, Order order,
                                 std::mt19937_64& rng);

}  // namespace nf::engine
