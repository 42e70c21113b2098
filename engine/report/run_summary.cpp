#include "engine/report/run_summary.h"

#include "engine/report/text_table.h"

namespace nf::engine {

std::vector<MetricSummary> summarizeRun(const RunData& data)
{
    std::vector<MetricSummary> out;
    for (const auto& metric : data.layout.metrics) {
        MetricSummary ms{metric, {}};
        for (std::size_t v = 0; v < data.variantNames.size(); ++v) {
            ms.perVariant.push_back(summarize(data.repetitionValues(static_cast<int>(v), metric)));
        }
        out.push_back(std::move(ms));
    }
    return out;
}

void writeSummaryText(const RunData& data, std::ostream& out)
{
    TextTable table({"metric", "unit", "variant", ">n", ">mean", ">median", ">stddev", ">cv"});
    for (const auto& ms : summarizeRun(data)) {
        for (std::size_t v = 0; v < ms.perVariant.size(); ++v) {
            const auto& s = ms.perVariant[v];
            if (s.n == 0) {
                table.addRow({v == 0 ? ms.metric.name : "", v == 0 ? ms.metric.unit : "", data.variantNames[v], "0"});
                continue;
            }
            table.addRow({v == 0 ? ms.metric.name : "", v == 0 ? ms.metric.unit : "", data.variantNames[v],
                          std::to_string(s.n), formatValue(s.mean), formatValue(s.median), formatValue(s.stddev),
                          formatPercent(s.cv)});
        }
    }
    table.write(out);
}

nlohmann::json summaryJson(const RunData& data)
{
    nlohmann::json metrics = nlohmann::json::array();
    for (const auto& ms : summarizeRun(data)) {
        nlohmann::json variants = nlohmann::json::array();
        for (std::size_t v = 0; v < ms.perVariant.size(); ++v) {
            const auto& s = ms.perVariant[v];
            variants.push_back({{"variant", data.variantNames[v]},
                                {"n", s.n},
                                {"mean", s.mean},
                                {"median", s.median},
                                {"stddev", s.stddev},
                                {"cv", s.cv},
                                {"min", s.min},
                                {"max", s.max}});
        }
        metrics.push_back({{"metric", ms.metric.name},
                           {"unit", ms.metric.unit},
                           {"higher_is_better", ms.metric.higherIsBetter},
                           {"variants", variants}});
    }
    return metrics;
}

}  // namespace nf::engine
