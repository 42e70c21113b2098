#include "engine/run/schedule.h"

#include <algorithm>
#include <numeric>

namespace nf::engine {

UnitPlan::UnitPlan(int variants, int repetitions, Order order, std::mt19937_64& rng)
    : m_variants(variants), m_repetitions(repetitions), m_order(order), m_rng(rng)
{
}

std::size_t UnitPlan::total() const
{
    const auto reps = static_cast<std::size_t>(std::max(m_repetitions, 0));
    return m_order == Order::Blocked ? reps * static_cast<std::size_t>(std::max(m_variants, 0)) : reps;
}

std::optional<ScheduleUnit> UnitPlan::next()
{
    if (m_issued >= total()) {
        return std::nullopt;
    }
    const auto i = m_issued++;
    const auto reps = static_cast<std::size_t>(m_repetitions);
    if (m_order == Order::Blocked) {
        return ScheduleUnit{static_cast<int>(i % reps), {static_cast<int>(i / reps)}};
    }
    ScheduleUnit unit{static_cast<int>(i), std::vector<int>(static_cast<std::size_t>(m_variants))};
    std::iota(unit.variants.begin(), unit.variants.end(), 0);
    if (m_order == Order::Random) {
        std::shuffle(unit.variants.begin(), unit.variants.end(), m_rng);
    } else if (i % 2 == 1) {
        std::reverse(unit.variants.begin(), unit.variants.end());
    }
    return unit;
}

SlicePlan::SlicePlan(const ScheduleUnit& unit, int rounds, int slicesPerVariant, Order order, std::mt19937_64& rng)
    : m_roundOrder(unit.variants), m_rounds(rounds), m_slicesPerVariant(slicesPerVariant), m_order(order), m_rng(rng)
{
}

std::optional<SliceRef> SlicePlan::next()
{
    if (m_rounds <= 0) {  // each variant in turn for slicesPerVariant intervals
        const auto perVariant = static_cast<std::size_t>(std::max(m_slicesPerVariant, 0));
        if (perVariant == 0 || m_position >= perVariant * m_roundOrder.size()) {
            return std::nullopt;
        }
        const auto i = m_position++;
        return SliceRef{m_roundOrder[i / perVariant], -1};
    }
    if (m_position == m_roundOrder.size()) {
        m_position = 0;
        ++m_round;
    }
    if (m_round >= m_rounds) {
        return std::nullopt;
    }
    if (m_position == 0) {  // a new round: its order
        if (m_order == Order::Random) {
            std::shuffle(m_roundOrder.begin(), m_roundOrder.end(), m_rng);
        } else if (m_order == Order::Interleaved && m_round > 0) {
            std::reverse(m_roundOrder.begin(), m_roundOrder.end());
        }
    }
    return SliceRef{m_roundOrder[m_position++], m_round};
}

std::vector<ScheduleUnit> planUnits(int variants, int repetitions, Order order, std::mt19937_64& rng)
{
    std::vector<ScheduleUnit> units;
    UnitPlan plan(variants, repetitions, order, rng);
    while (auto u = plan.next()) {
        units.push_back(std::move(*u));
    }
    return units;
}

std::vector<SliceRef> planSlices(const ScheduleUnit& unit, int rounds, int slicesPerVariant, Order order,
                                 std::mt19937_64& rng)
{
    std::vector<SliceRef> slices;
    SlicePlan plan(unit, rounds, slicesPerVariant, order, rng);
    while (auto s = plan.next()) {
        slices.push_back(*s);
    }
    return slices;
}

}  // namespace nf::engine
