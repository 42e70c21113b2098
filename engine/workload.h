#pragma once
// The workload interface and the registry that lists every workload.

#include <cstdint>
#include <functional>
#include <memory>
#include <string>
#include <string_view>
#include <utility>
#include <vector>

#include "parameter.h"
#include "result.h"

namespace nf::engine {

// An in-process workload prepared for one variant. The scheduler calls run() on a pinned worker
// thread between fenced TSC reads and counter reads; run() must do `calls` operations and nothing
// else (no allocation, no I/O, no locks on the hot path).
class CallLoop {
public:
    virtual ~CallLoop() = default;
    virtual void run(std::uint64_t calls) = 0;
    // Facts about this instance worth recording (e.g. the pages it set up).
    virtual std::vector<std::pair<std::string, std::string>> facts() const { return {}; }
    // Entry addresses of the functions this variant's operations run (see codeAddress); their sizes
    // from the ELF symbol table are recorded per variant as its code_bytes.
    virtual std::vector<const void*> hotCode() const { return {}; }
};

// The address of a function, for CallLoop::hotCode().
template <class R, class... Args>
const void* codeAddress(R (*function)(Args...))
{
    return reinterpret_cast<const void*>(function);
}

struct WorkloadInfo {
    std::string name;
    std::string summary;      // one line
    std::string description;  // a paragraph: what it models and what it measures
    std::vector<ParamSpec> params;
    std::string primaryMetric = "tsc_per_op";
    double defaultChunk = 0.002;  // seconds; 0 = the workload cannot alternate in chunks
    std::function<Result<std::unique_ptr<CallLoop>>(const ParamSet&)> make;
};

// Every workload, in the order `noisefloor workloads` lists them.
const std::vector<WorkloadInfo>& workloadRegistry();
const WorkloadInfo* findWorkload(std::string_view name);

}  // namespace nf::engine
