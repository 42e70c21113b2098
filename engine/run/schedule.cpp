#include "engine/run/schedule.h"

#include <algorithm>
#include <charconv>
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

namespace {

// A generator for one purpose of the plan: the run's seed mixed with what it is for (splitmix64's
// finaliser), so the streams are unrelated to each other and to the run's order stream.
std::mt19937_64 layoutStream(std::uint64_t seed, std::uint64_t purpose)
{
    std::uint64_t z = seed + 0x9e3779b97f4a7c15ULL * (purpose + 1);
    z = (z ^ (z >> 30U)) * 0xbf58476d1ce4e5b9ULL;
    z = (z ^ (z >> 27U)) * 0x94d049bb133111ebULL;
    return std::mt19937_64(z ^ (z >> 31U));
}

std::vector<int> identity(int n)
{
    std::vector<int> v(static_cast<std::size_t>(std::max(n, 0)));
    std::iota(v.begin(), v.end(), 0);
    return v;
}

}  // namespace

LayoutPlan::LayoutPlan(int layouts, std::vector<std::optional<int>> pinned, std::uint64_t seed)
    : m_layouts(std::max(layouts, 0)), m_pinned(std::move(pinned)), m_seed(seed)
{
    // Each variant's permutation shares no placement with an earlier variant's in any cell (drawn
    // again until it does not, while that is possible: K placements hold at most K such variants).
    auto images = layoutStream(seed, 0);
    const auto sharesACell = [&](const std::vector<int>& image) {
        for (const auto& earlier : m_images) {
            for (std::size_t i = 0; i < image.size(); ++i) {
                if (image[i] == earlier[i]) {
                    return true;
                }
            }
        }
        return false;
    };
    for (std::size_t v = 0; v < m_pinned.size(); ++v) {
        auto image = identity(m_layouts);
        if (v > 0) {
            const bool possible = v < static_cast<std::size_t>(m_layouts);
            for (int attempt = 0; attempt < 10000; ++attempt) {
                std::shuffle(image.begin(), image.end(), images);
                if (!possible || !sharesACell(image)) {
                    break;
                }
            }
        }
        m_images.push_back(std::move(image));
    }
}

std::vector<int> LayoutPlan::at(int repetition) const
{
    std::vector<int> placements(m_pinned.size(), 0);
    if (m_layouts > 0) {
        const auto cycle = static_cast<std::uint64_t>(std::max(repetition, 0) / m_layouts);
        auto order = identity(m_layouts);
        auto rng = layoutStream(m_seed, cycle + 1);
        std::shuffle(order.begin(), order.end(), rng);
        const auto cell =
            static_cast<std::size_t>(order[static_cast<std::size_t>(std::max(repetition, 0) % m_layouts)]);
        for (std::size_t v = 0; v < placements.size(); ++v) {
            placements[v] = m_images[v][cell];
        }
    }
    for (std::size_t v = 0; v < placements.size(); ++v) {
        if (m_pinned[v]) {
            placements[v] = *m_pinned[v];
        }
    }
    return placements;
}

LayoutPlan layoutPlan(const ExperimentSpec& spec)
{
    std::vector<std::optional<int>> pinned;
    for (std::size_t v = 0; v < spec.variants.size(); ++v) {
        std::optional<int> placement;
        if (const auto text = spec.pinnedLayout(v)) {  // a number 0..kMaxLayouts-1: checkExperiment checked it
            int n = 0;
            if (std::from_chars(text->data(), text->data() + text->size(), n).ec == std::errc()) {
                placement = n;
            }
        }
        pinned.push_back(placement);
    }
    return LayoutPlan(spec.layouts.value_or(0), std::move(pinned), spec.seed.value_or(0));
}

}  // namespace nf::engine
