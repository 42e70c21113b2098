#include "engine/catalog/workload_catalog.h"

#include "engine/catalog/descriptors.h"

#include <algorithm>

#include "base/default_counters.h"

namespace nf::engine {

std::string_view toString(WorkloadKind kind)
{
    switch (kind) {
        case WorkloadKind::InProcess: return "in-process";
        case WorkloadKind::Live: return "live";
        case WorkloadKind::External: return "external";
    }
    return "in-process";
}

const ParamSpec* WorkloadDescriptor::param(std::string_view paramName) const
{
    for (const auto& p : params) {
        if (p.name == paramName) {
            return &p;
        }
    }
    return nullptr;
}

namespace {

// A description with the name and kind workload_list.h gives it.
WorkloadDescriptor listed(WorkloadDescriptor descriptor, std::string name, WorkloadKind kind)
{
    descriptor.name = std::move(name);
    descriptor.kind = kind;
    return descriptor;
}

}  // namespace

const std::vector<WorkloadDescriptor>& workloadCatalog()
{
#define NF_CATALOG_ENTRY(function, name, kind) listed(catalog::function(), name, WorkloadKind::kind),
    static const std::vector<WorkloadDescriptor> catalog = {NF_WORKLOADS(NF_CATALOG_ENTRY)};
#undef NF_CATALOG_ENTRY
    return catalog;
}

const WorkloadDescriptor* findWorkload(std::string_view name)
{
    for (const auto& w : workloadCatalog()) {
        if (w.name == name) {
            return &w;
        }
    }
    return nullptr;
}

std::vector<MetricSpec> workloadMetrics(const WorkloadDescriptor& w, const std::vector<std::string>& chosen,
                                        const std::string& primary)
{
    const std::vector<std::string> counters = chosen.empty() ? base::defaultCounterNames(true) : chosen;
    std::vector<MetricSpec> metrics;
    if (w.kind == WorkloadKind::Live) {
        std::vector<std::string> live = {quantity::kPackets,        quantity::kBytes,     quantity::kDrops,
                                         quantity::kOfferedPackets, quantity::kElapsedNs, quantity::kTscTicks};
        for (const auto& c : counters) {
            live.push_back(quantity::kThreadPrefix + c);
            live.push_back(quantity::kCpuPrefix + c);
        }
        live.insert(live.end(), w.liveQuantities.begin(), w.liveQuantities.end());
        metrics = liveMetrics(live);
    } else if (w.kind == WorkloadKind::InProcess) {
        std::vector<std::string> all = {quantity::kOps, quantity::kTscTicks, quantity::kElapsedNs};
        all.insert(all.end(), counters.begin(), counters.end());
        metrics = callLoopMetrics(all);
    } else {
        metrics.push_back({.name = "wall_ms",
                           .unit = "ms",
                           .numerator = "wall_ns",
                           .denominator = "ok",
                           .scale = 1e-6,
                           .description = "wall time of the command"});
    }
    const std::string& first = primary.empty() ? w.primaryMetric : primary;
    std::stable_partition(metrics.begin(), metrics.end(), [&](const MetricSpec& m) { return m.name == first; });
    return metrics;
}

std::string workloadNames()
{
    std::string out;
    for (const auto& w : workloadCatalog()) {
        out += (out.empty() ? "" : ", ") + w.name;
    }
    return out;
}

}  // namespace nf::engine
