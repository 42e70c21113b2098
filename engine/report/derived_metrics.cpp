// The metrics a compact table leaves out because another one already shows them: a unit
// conversion by definition, or an exact multiple in every stored value (see DerivedMetric).

#include <algorithm>
#include <cmath>
#include <limits>

#include "engine/report/evidence.h"

namespace nf::engine {

std::vector<DerivedMetric> derivedMetrics(const AnalysisInput& input)
{
    std::vector<DerivedMetric> out;
    const auto& ms = input.metrics;
    constexpr double kNaN = std::numeric_limits<double>::quiet_NaN();
    auto factorOf = [&](std::size_t i, std::size_t j) -> double {
        // Every value of metric i is the same multiple of metric j's, and j varies: not a coincidence
        // of two constants.
        double factor = kNaN;
        double lo = std::numeric_limits<double>::infinity();
        double hi = -lo;
        std::size_t count = 0;
        if (i >= input.repetitions.size() || j >= input.repetitions.size()) {
            return kNaN;
        }
        for (std::size_t v = 0; v < input.repetitions[i].size() && v < input.repetitions[j].size(); ++v) {
            const auto& xs = input.repetitions[i][v];
            const auto& ys = input.repetitions[j][v];
            if (xs.size() != ys.size()) {
                return kNaN;
            }
            for (std::size_t k = 0; k < xs.size(); ++k) {
                if (!std::isfinite(xs[k]) || !std::isfinite(ys[k]) || xs[k] == 0 || ys[k] == 0) {
                    return kNaN;
                }
                const double r = xs[k] / ys[k];
                if (std::isnan(factor)) {
                    factor = r;
                } else if (std::fabs(r / factor - 1) > 1e-9) {
                    return kNaN;
                }
                lo = std::min(lo, ys[k]);
                hi = std::max(hi, ys[k]);
                ++count;
            }
        }
        return count >= 2 && hi > lo * (1 + 1e-9) ? factor : kNaN;
    };
    auto derived = [&](const std::string& name) {
        return std::any_of(out.begin(), out.end(), [&](const DerivedMetric& d) { return d.metric == name; });
    };
    for (std::size_t i = 0; i < ms.size(); ++i) {
        const auto alias = std::find_if(ms.begin(), ms.end(), [&](const MetricSpec& m) {
            return !ms[i].aliasOf.empty() && m.name == ms[i].aliasOf;
        });
        if (alias != ms.end()) {
            const auto j = static_cast<std::size_t>(alias - ms.begin());
            out.push_back({ms[i].name, alias->name, factorOf(i, j)});
            continue;
        }
        for (std::size_t j = 0; j < i; ++j) {
            if (derived(ms[j].name)) {
                continue;
            }
            if (const double f = factorOf(i, j); std::isfinite(f)) {
                out.push_back({ms[i].name, ms[j].name, f});
                break;
            }
        }
    }
    return out;
}

}  // namespace nf::engine
