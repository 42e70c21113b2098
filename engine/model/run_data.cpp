#include "engine/model/run_data.h"

#include <algorithm>
#include <cmath>

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

std::vector<double> RunData::repetitionValues(int variant, const MetricSpec& metric,
                                              const std::vector<bool>& leftOut) const
{
    const auto columns = metricColumns(metric, layout.quantities);
    if (!columns || std::max(columns->numerator, columns->denominator) >= samples.quantities()) {
        return {};
    }
    // Totals per repetition, each summed in row order.
    struct Totals {
        double numerator = 0;
        double denominator = 0;
        bool held = false;
    };
    const RepetitionSlots slots(samples);
    std::vector<Totals> totals(slots.count());
    const auto variants = samples.variants();
    const auto reps = samples.repetitions();
    const auto num = samples.column(columns->numerator);
    const auto den = samples.column(columns->denominator);
    for (std::size_t i = 0; i < samples.size(); ++i) {
        if (variants[i] == variant && (leftOut.empty() || !leftOut[i])) {
            Totals& t = totals[slots.slot(reps[i])];
            t.numerator += num[i];
            t.denominator += den[i];
            t.held = true;
        }
    }
    std::vector<double> values;
    for (const Totals& t : totals) {
        const double value = t.held ? metricRatio(metric, t.numerator, t.denominator) : std::nan("");
        if (!std::isnan(value)) {
            values.push_back(value);
        }
    }
    return values;
}

std::optional<PooledSummary> RunData::summaryOf(int variant, const MetricSpec& metric) const
{
    if (summaries.empty() || metric.denominator != "runs") {
        return std::nullopt;
    }
    std::vector<const SummaryStat*> groups;
    for (const auto& s : summaries) {
        if (s.variant == variant && s.quantity == metric.numerator) {
            groups.push_back(&s);
        }
    }
    if (groups.empty()) {
        return std::nullopt;
    }
    // n_i values with mean m_i and standard deviation se_i * sqrt(n_i) per group: the pooled sum of
    // squares is the groups' own plus their spread around the pooled mean.
    PooledSummary p;
    double weighted = 0;
    for (const auto* g : groups) {
        p.n += g->n;
        weighted += g->n * g->mean;
    }
    p.mean = weighted / p.n;
    double ss = 0;
    for (const auto* g : groups) {
        const double sd = g->se * std::sqrt(g->n);
        ss += (g->n - 1) * sd * sd + g->n * (g->mean - p.mean) * (g->mean - p.mean);
    }
    p.stddev = p.n > 1 ? std::sqrt(ss / (p.n - 1)) : 0;
    p.groups = groups.size();
    p.mean *= metric.scale;
    p.stddev *= std::fabs(metric.scale);
    return p;
}

}  // namespace nf::engine
