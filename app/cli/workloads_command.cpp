// noisefloor workloads: what can be run, with each workload's parameters, defaults and ranges.

#include <iostream>

#include "app/cli/cli.h"
#include "engine/catalog/workload_catalog.h"
#include "engine/report/text_table.h"

namespace nf::cli {

namespace {

nlohmann::json workloadJson(const engine::WorkloadDescriptor& w)
{
    nlohmann::json params = nlohmann::json::array();
    for (const auto& p : w.params) {
        nlohmann::json j = {{"name", p.name},
                            {"type", engine::toString(p.type)},
                            {"default", p.defaultValue},
                            {"description", p.description},
                            {"unit", p.unit}};
        if (p.type == engine::ParamType::Int || p.type == engine::ParamType::Real) {
            j["min"] = p.min;
            j["max"] = p.max;
        }
        if (p.type == engine::ParamType::Choice) {
            j["choices"] = p.choices;
        }
        params.push_back(std::move(j));
    }
    nlohmann::json metrics = nlohmann::json::array();
    for (const auto& m : engine::workloadMetrics(w)) {
        metrics.push_back({{"name", m.name},
                           {"unit", m.unit},
                           {"higher_is_better", m.higherIsBetter},
                           {"description", m.description}});
    }
    return {{"name", w.name},
            {"summary", w.summary},
            {"description", w.description},
            {"primary_metric", w.primaryMetric},
            {"default_chunk", w.defaultChunk},
            {"params", params},
            {"metrics", metrics}};
}

int listWorkloads(const std::string& format)
{
    if (format == "json") {
        nlohmann::json out = nlohmann::json::array();
        for (const auto& w : engine::workloadCatalog()) {
            out.push_back(workloadJson(w));
        }
        std::cout << out.dump(2) << '\n';
        return 0;
    }
    for (const auto& w : engine::workloadCatalog()) {
        std::cout << w.name << ": " << w.summary << "\n  " << w.description << "\n\n";
        engine::TextTable table({"parameter", "type", "default", "range", "description"});
        for (const auto& p : w.params) {
            table.addRow({p.name, std::string(engine::toString(p.type)), p.defaultValue, p.rangeText(),
                          p.description + (p.unit.empty() ? "" : " (" + p.unit + ")")});
        }
        table.write(std::cout, "  ");
        std::cout << "\n  primary metric: " << w.primaryMetric;
        if (w.defaultChunk > 0) {
            std::cout << "; alternates variants in " << w.defaultChunk * 1e3 << " ms chunks by default\n";
        } else {
            std::cout << "; live: each variant runs for a repetition at a time, sampled every --interval\n";
        }
    }
    return 0;
}

}  // namespace

Command addWorkloadsCommand(CLI::App& app)
{
    auto format = std::make_shared<std::string>("text");
    auto* sub = app.add_subcommand("workloads", "List workloads with their parameters, defaults and ranges");
    sub->add_option("--format", *format, "text or json")->check(CLI::IsMember({"text", "json"}))->capture_default_str();
    return {sub, [format] { return listWorkloads(*format); }};
}

}  // namespace nf::cli
