#include "engine/import/imported_run.h"

#include <algorithm>

#include <fmt/format.h>
#include <fmt/ranges.h>

namespace nf::engine {

std::string importWorkloadName(const std::string& format)
{
    return "import:" + format;
}

namespace {

nlohmann::json systemJson(const ImportTable& table, const ImportRequest& request)
{
    const std::string host = request.host.empty() ? table.host : request.host;
    const std::string kernel = request.kernel.empty() ? table.kernel : request.kernel;
    return {{"hostname", host}, {"kernel_release", kernel}, {"cpu_model", request.cpuModel}};
}

nlohmann::json importJson(const ImportTable& table, const ImportRequest& request)
{
    auto origin = [](const std::string& given, const std::string& fromFile) {
        return !given.empty() ? "option" : (!fromFile.empty() ? "file" : "unknown");
    };
    nlohmann::json out = {
        {"format", request.format},
        {"files", request.files},
        {"detected", table.detected},
        {"tool", table.tool},
        {"tool_version", table.toolVersion},
        {"summaries", table.summarised()},
        {"host_from", origin(request.host, table.host)},
        {"kernel_from", origin(request.kernel, table.kernel)},
        {"notes", table.notes},
    };
    if (!table.rate.is_null()) {
        out["rate"] = table.rate;
    }
    return out;
}

}  // namespace

Result<ImportedRun> importedRun(const ImportTable& table, const ImportRequest& request)
{
    if (request.label.empty()) {
        return Error{"--label is required: it names the imported run (e.g. vanilla, patched)"};
    }
    if (request.variant.empty()) {
        return Error{"--variant: the variant name must not be empty"};
    }
    ImportedRun run;
    auto& spec = run.start.spec;
    spec.workload = importWorkloadName(request.format);
    spec.label = request.label;
    spec.variants = {{request.variant, {}}};
    spec.repetitions = static_cast<int>(table.repetitions.size());
    spec.duration = 0;
    spec.warmup = 0;
    spec.chunk = 0.0;
    run.start.variantParams = {nlohmann::json::object()};
    run.start.layout = table.layout;
    if (!request.primary.empty()) {
        auto& metrics = run.start.layout.metrics;
        std::vector<std::string> names;
        names.reserve(metrics.size());
        for (const auto& m : metrics) {
            names.push_back(m.name);
        }
        if (std::ranges::find(names, request.primary) == names.end()) {
            return Error{
                fmt::format("--primary {}: not a metric of this import ({})", request.primary, fmt::join(names, ", "))};
        }
        std::stable_partition(metrics.begin(), metrics.end(),
                              [&](const MetricSpec& m) { return m.name == request.primary; });
        spec.primaryMetric = request.primary;
    }
    run.start.environment = {
        {"system", systemJson(table, request)},
        {"import", importJson(table, request)},
        {"counters", {{"target", "imported"}, {"opened", nlohmann::json::array()}, {"unsupported", table.unsupported}}},
        {"tool", {{"name", "noisefloor"}, {"version", request.toolVersion}, {"command_line", request.commandLine}}},
    };
    double clock = 0;
    for (std::size_t r = 0; r < table.repetitions.size(); ++r) {
        RepetitionResult rep;
        rep.index = static_cast<int>(r);
        rep.variants = {0};
        rep.start = clock;
        int index = 0;
        for (const auto& s : table.repetitions[r]) {
            if (s.values.size() != table.layout.quantities.size()) {
                return Error{"import of " + request.format + ": a sample with " + std::to_string(s.values.size()) +
                             " values for " + std::to_string(table.layout.quantities.size()) + " quantities"};
            }
            rep.samples.push_back({0, rep.index, index++, -1, clock, s.duration, s.values});
            clock += s.duration;
        }
        rep.end = clock;
        run.repetitions.push_back(std::move(rep));
        if (r < table.summaries.size()) {
            for (const auto& s : table.summaries[r]) {
                if (table.layout.quantityIndex(s.quantity) < 0) {
                    return Error{"import of " + request.format + ": a summary of '" + s.quantity +
                                 "', which is not a quantity"};
                }
                run.summaries.push_back({0, static_cast<int>(r), s.quantity, s.n, s.mean, s.se});
            }
        }
    }
    run.profile = table.profile;
    return run;
}

}  // namespace nf::engine
