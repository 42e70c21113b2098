#pragma once
// The workload catalogue: every workload the engine can run, described without building it — its
// parameters with their ranges, its primary metric, how it is scheduled, and the checks across
// parameters that need no measurement. The front ends read it in-process (the GUI's editor, `noisefloor
// workloads`). Every workload is listed once, in workload_list.h, which also names its measuring
// implementation (engine/workloads/) where it has one.

#include <functional>
#include <string>
#include <string_view>
#include <vector>

#include "base/result.h"
#include "engine/model/metric.h"
#include "engine/model/parameter.h"

namespace nf::engine {

enum class WorkloadKind {
    InProcess,  // a call loop on the pinned worker thread, alternated in chunks (engine/run/call_loop_worker)
    Live,       // a live session sampled every interval (engine/run/live_worker)
    External,   // a process per repetition (engine/run/command_experiment)
};
std::string_view toString(WorkloadKind kind);

// What a workload's checks may look at besides its parameters: the CPUs of this machine and the
// ones the run measures on.
struct CheckContext {
    std::vector<int> onlineCpus;
    std::vector<int> allowedCpus;  // this process's affinity mask
    int workerCpu = -1;            // the run's first CPU (where an in-process workload measures)
};

struct WorkloadDescriptor {
    std::string name;         // from workload_list.h
    std::string summary;      // one line
    std::string description;  // a paragraph: what it models and what it measures
    // The kernel code an in-process workload models, as "FILE: FUNCTION"
    // ("net/core/page_pool.c: page_pool_dma_sync_for_device"); "" where it models none (spin). The
    // reports of its runs open with it.
    std::string models;
    std::vector<ParamSpec> params;
    std::string primaryMetric = "tsc_per_op";
    double defaultChunk = 0.002;                  // seconds; 0 = the workload cannot alternate in chunks
    WorkloadKind kind = WorkloadKind::InProcess;  // from workload_list.h
    // A live workload's session quantities beyond packets, bytes, drops and offered_packets, so that its
    // metrics can be listed without making a session.
    std::vector<std::string> liveQuantities;
    // Checks of one variant's resolved parameters that need no measurement: CPUs that exist, values
    // that must agree with each other. Errors name the parameter and value ("tx_cpu=7: ...") and no
    // command-line option. Unset: none beyond each parameter's range.
    std::function<Result<void>(const ParamSet&, const CheckContext&)> check;
    // A live workload whose variants can run side by side, alternated in chunks (defaultChunk > 0):
    // why these variants cannot ("" when they can). Unset: a live workload runs one variant at a time.
    std::function<std::string(const std::vector<ParamSet>&)> chunkBlocker;

    // The hot code exists in kMaxLayouts placements (engine/workloads/placement.h): an in-process
    // workload whose code noisefloor builds. Live and external workloads run code it does not.
    bool placedCode = false;

    const ParamSpec* param(std::string_view paramName) const;
};

// Every workload, in the order `noisefloor workloads` lists them.
const std::vector<WorkloadDescriptor>& workloadCatalog();
const WorkloadDescriptor* findWorkload(std::string_view name);
// The metrics a run of the workload gives where every counter opens, primary first (the workload's,
// or `primary` when it names one of them); counters that do not open drop theirs. `counters`
// empty: the default set (cycles, instructions, branch and cache misses).
std::vector<MetricSpec> workloadMetrics(const WorkloadDescriptor& workload,
                                        const std::vector<std::string>& counters = {}, const std::string& primary = {});
// "spin, indirect-call, ..."
std::string workloadNames();

}  // namespace nf::engine
