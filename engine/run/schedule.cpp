#include "engine/run/schedule.h"

#include <algorithm>
#include <numeric>

namespace nf::engine {

std::vector<ScheduleUnit> planUnits(int variants, int repetitions, Order order, std::mt19937_64& rng)
{
    std::vector<int> forward(static_cast<std::size_t>(variants));
    std::iota(forward.begin(), forward.end(), 0);
    std::vector<ScheduleUnit> units;
    if (order == Order::Blocked) {
        for (int v = 0; v < variants; ++v) {
            for (int r = 0; r < repetitions; ++r) {
                units.push_back({r, {v}});
            }
        }
        return units;
    }
    for (int r = 0; r < repetitions; ++r) {
        ScheduleUnit unit{r, forward};
        if (order == Order::Random) {
            std::shuffle(unit.variants.begin(), unit.variants.end(), rng);
        } else if (r % 2 == 1) {
            std::reverse(unit.variants.begin(), unit.variants.end());
        }
        units.push_back(std::move(unit));
    }
    return units;
}

std::vector<SliceRef> planSlices(const ScheduleUnit& unit, int rounds, int slicesPerVariant, Order order,
                                 std::mt19937_64& rng)
{
    std::vector<SliceRef> slices;
    if (rounds <= 0) {
        for (int v : unit.variants) {
            for (int i = 0; i < slicesPerVariant; ++i) {
                slices.push_back({v, -1});
            }
        }
        return slices;
    }
    std::vector<int> roundOrder = unit.variants;
    for (int p = 0; p < rounds; ++p) {
        if (order == Order::Random) {
            std::shuffle(roundOrder.begin(), roundOrder.end(), rng);
        } else if (order == Order::Interleaved && p > 0) {
            std::reverse(roundOrder.begin(), roundOrder.end());
        }
        for (int v : roundOrder) {
            slices.push_back({v, p});
        }
    }
    return slices;
}

}  // namespace nf::engine
