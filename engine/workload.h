#pragma once
// The workload interface and the registry that lists every workload.

#include <sys/types.h>

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

// A live workload prepared for one variant (e.g. a testbed with a receiver and a traffic
// generator): set up once when made, torn down when destroyed. The live runner calls start(), then
// sample() at each interval boundary, then stop(), once per repetition of the variant.
class LiveSession {
public:
    virtual ~LiveSession() = default;
    // Names of the cumulative quantities sample() returns, in order; the same for every variant.
    virtual std::vector<std::string> quantities() const = 0;
    virtual Result<void> start() = 0;
    // Cumulative values since start(), in quantities() order.
    virtual Result<std::vector<double>> sample() = 0;
    virtual void stop() = 0;
    // The thread whose counters to read while running (0: none), and CPUs to count system-wide.
    virtual pid_t counterThread() const { return 0; }
    virtual std::vector<int> counterCpus() const { return {}; }
    virtual std::vector<std::pair<std::string, std::string>> facts() const { return {}; }
};

struct WorkloadInfo {
    std::string name;
    std::string summary;      // one line
    std::string description;  // a paragraph: what it models and what it measures
    std::vector<ParamSpec> params;
    std::string primaryMetric = "tsc_per_op";
    double defaultChunk = 0.002;  // seconds; 0 = the workload cannot alternate in chunks
    bool external = false;        // runs a process per repetition (command_experiment.cpp), `make` unused
    std::function<Result<std::unique_ptr<CallLoop>>(const ParamSet&)> make;
    // Set instead of `make` for a live workload (run by the live runner, sampled every interval).
    std::function<Result<std::unique_ptr<LiveSession>>(const ParamSet&)> makeLive;
    // A live workload's session quantities beyond packets, bytes, drops and gen_packets, so that
    // `noisefloor workloads` can list the metrics they give without making a session.
    std::vector<std::string> liveQuantities;
};

// Every workload, in the order `noisefloor workloads` lists them.
const std::vector<WorkloadInfo>& workloadRegistry();
const WorkloadInfo* findWorkload(std::string_view name);

}  // namespace nf::engine
