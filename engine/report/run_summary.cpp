#include "engine/report/run_summary.h"

#include "engine/analysis/chunk_cut.h"
#include "engine/report/text_table.h"

#include <cmath>
#include <limits>

namespace nf::engine {

std::vector<MetricSummary> summarizeRun(const RunData& data)
{
    std::vector<MetricSummary> out;
    const ChunkCut cut = chunkCut(data);
    for (const auto& metric : data.layout.metrics) {
        MetricSummary ms{metric, {}};
        for (std::size_t v = 0; v < data.variantNames.size(); ++v) {
            if (data.summarised()) {
                Summary s;
                if (const auto p = data.summaryOf(static_cast<int>(v), metric)) {
                    s.n = static_cast<std::size_t>(p->n);
                    s.mean = p->mean;
                    s.stddev = p->stddev;
                    s.cv = p->mean != 0 ? p->stddev / std::fabs(p->mean) : 0;
                    s.median = s.min = s.max = std::numeric_limits<double>::quiet_NaN();
                }
                ms.perVariant.push_back(s);
                continue;
            }
            ms.perVariant.push_back(summarize(repetitionValues(data, cut, static_cast<int>(v), metric)));
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
                          std::to_string(s.n), formatValue(s.mean), std::isnan(s.median) ? "-" : formatValue(s.median),
                          formatValue(s.stddev), formatPercent(s.cv)});
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
            nlohmann::json row = {{"variant", data.variantNames[v]},
                                  {"n", s.n},
                                  {"mean", s.mean},
                                  {"median", s.median},
                                  {"stddev", s.stddev},
                                  {"cv", s.cv},
                                  {"min", s.min},
                                  {"max", s.max}};
            if (data.summarised()) {
                row["from_summaries"] = true;  // n runs of perf stat -r; no median, min or max
                for (const char* k : {"median", "min", "max"}) {
                    row[k] = nullptr;
                }
                row["se"] = s.n > 0 ? s.stddev / std::sqrt(static_cast<double>(s.n)) : 0.0;
            }
            variants.push_back(std::move(row));
        }
        metrics.push_back({{"metric", ms.metric.name},
                           {"unit", ms.metric.unit},
                           {"higher_is_better", ms.metric.higherIsBetter},
                           {"variants", variants}});
    }
    return metrics;
}

}  // namespace nf::engine
