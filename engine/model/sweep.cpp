#include "engine/model/sweep.h"

#include <fmt/format.h>

#include <algorithm>
#include <ctime>
#include <random>
#include <set>

namespace nf::engine {

Result<SweepSpec> parseSweep(std::string_view text)
{
    const std::string shown = "'" + std::string(text) + "'";
    const auto eq = text.find('=');
    if (eq == std::string_view::npos || eq == 0) {
        return Error{shown + ": expected PARAM=v1,v2,..."};
    }
    SweepSpec sweep{std::string(text.substr(0, eq)), {}};
    std::set<std::string> seen;
    std::string_view rest = text.substr(eq + 1);
    while (true) {
        const auto comma = rest.find(',');
        const std::string value(rest.substr(0, comma));
        if (value.empty()) {
            return Error{shown + ": empty value (expected PARAM=v1,v2,...)"};
        }
        if (!seen.insert(value).second) {
            return Error{shown + ": value '" + value + "' given twice"};
        }
        sweep.values.push_back(value);
        if (comma == std::string_view::npos) {
            break;
        }
        rest = rest.substr(comma + 1);
    }
    if (sweep.values.size() > 1000) {
        return Error{shown + ": more than 1000 points"};
    }
    return sweep;
}

std::vector<ExperimentSpec> expandSweep(const ExperimentSpec& base, const SweepSpec& sweep, const std::string& id)
{
    std::vector<ExperimentSpec> specs;
    for (std::size_t i = 0; i < sweep.values.size(); ++i) {
        ExperimentSpec spec = base;
        spec.params[sweep.param] = sweep.values[i];
        spec.sweep =
            SweepPoint{id, sweep.param, sweep.values[i], static_cast<int>(i), static_cast<int>(sweep.values.size())};
        specs.push_back(std::move(spec));
    }
    return specs;
}

std::string newSweepId()
{
    const std::time_t now = std::time(nullptr);
    std::tm utc{};
    gmtime_r(&now, &utc);
    char stamp[32];
    (void)std::strftime(stamp, sizeof stamp, "%Y%m%dT%H%M%S", &utc);
    std::random_device random;
    return fmt::format("{}-{:08x}", stamp, random());
}

}  // namespace nf::engine
