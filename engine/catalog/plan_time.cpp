#include "engine/catalog/plan_time.h"

#include <algorithm>
#include <cmath>

#include <fmt/format.h>

namespace nf::engine {

PlanTime planTime(const ExperimentSpec& spec, std::size_t points)
{
    PlanTime p;
    p.points = std::max<std::size_t>(1, points);
    p.variants = std::max<std::size_t>(1, spec.variants.size());
    p.warmup = spec.warmup;
    p.unitSeconds = spec.duration;
    if (spec.until) {
        p.atMost = true;
        p.measuring = spec.until->maxTime;
    } else {
        p.units = p.variants * static_cast<std::size_t>(std::max(0, spec.repetitions));
        p.measuring = static_cast<double>(p.units) * spec.duration;
    }
    if (spec.setups && spec.alternating()) {  // an until-decided run plans as many repetitions as fit
        p.setups = static_cast<std::size_t>(std::max(0, *spec.setups)) *
                   static_cast<std::size_t>(std::max(0, spec.repetitions));
    }
    return p;
}

std::string spanText(double seconds)
{
    if (!(seconds >= 0) || !std::isfinite(seconds)) {
        return "?";
    }
    if (seconds < 10) {
        return fmt::format("{:g} s", std::round(seconds * 100) / 100);
    }
    if (seconds < 60) {
        return fmt::format("{:g} s", std::round(seconds));
    }
    if (seconds < 3600) {
        const auto whole = static_cast<long long>(std::llround(seconds));
        const long long min = whole / 60;
        const long long sec = whole % 60;
        return sec == 0 ? fmt::format("{} min", min) : fmt::format("{} min {} s", min, sec);
    }
    const auto minutes = static_cast<long long>(std::llround(seconds / 60));
    const long long h = minutes / 60;
    const long long min = minutes % 60;
    return min == 0 ? fmt::format("{} h", h) : fmt::format("{} h {} min", h, min);
}

std::string planTimeText(const PlanTime& plan)
{
    const std::string warmup =
        !(plan.warmup > 0) ? std::string()
        : plan.setups > 0  ? fmt::format(", plus {} of warmup in each of {} setups", spanText(plan.warmup), plan.setups)
                           : fmt::format(", plus {} of warmup per variant", spanText(plan.warmup));
    const std::string each =
        plan.atMost ? fmt::format("until decided: at most {} of measuring{}", spanText(plan.measuring), warmup)
                    : fmt::format("{} variant-repetition{} of {}{}", plan.units, plan.units == 1 ? "" : "s",
                                  spanText(plan.unitSeconds), warmup);
    const std::string over = plan.points > 1 ? fmt::format(" over {} sweep points", plan.points) : std::string();
    return fmt::format("{} {}{} ({}{})", plan.atMost ? "at most" : "about", spanText(plan.total()), over,
                       plan.points > 1 ? "each " : "", each);
}

}  // namespace nf::engine
