#include "engine/model/run_data.h"

#include <algorithm>
#include <map>

namespace nf::engine {

std::string_view toString(RunStatus status)
{
    switch (status) {
        case RunStatus::Running: return "running";
        case RunStatus::Complete: return "complete";
        case RunStatus::Aborted: return "aborted";
        case RunStatus::Failed: return "failed";
    }
    return "failed";
}

Result<RunStatus> parseRunStatus(std::string_view text)
{
    for (auto s : {RunStatus::Running, RunStatus::Complete, RunStatus::Aborted, RunStatus::Failed}) {
        if (toString(s) == text) {
            return s;
        }
    }
    return Error{"unknown run status '" + std::string(text) + "'"};
}

int RunLayout::quantityIndex(std::string_view name) const
{
    const auto it = std::find(quantities.begin(), quantities.end(), name);
    return it == quantities.end() ? -1 : static_cast<int>(it - quantities.begin());
}

std::vector<double> RunData::repetitionValues(int variant, const MetricSpec& metric) const
{
    std::map<int, std::vector<const std::vector<double>*>> byRep;
    for (const auto& s : samples) {
        if (s.variant == variant) {
            byRep[s.repetition].push_back(&s.values);
        }
    }
    std::vector<double> values;
    for (const auto& [rep, rows] : byRep) {
        if (auto v = metricValue(metric, layout.quantities, rows)) {
            values.push_back(*v);
        }
    }
    return values;
}

}  // namespace nf::engine
