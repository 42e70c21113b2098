#pragma once
// What a measuring implementation of a workload provides: an in-process call loop or a live session.

#include <sys/types.h>

#include <cstddef>
#include <cstdint>
#include <functional>
#include <map>
#include <memory>
#include <string>
#include <string_view>
#include <utility>
#include <vector>

#include "base/result.h"
#include "engine/model/parameter.h"

namespace nf::engine {

// One code placement of an in-process workload: its hot functions' entry addresses (hotCode()'s
// order), the entry of its measuring loop, and how much lower that loop's stack sits.
struct PlacedCode {
    std::vector<const void*> hot{};
    const void* loop = nullptr;
    std::uint32_t stackOffset = 0;
};

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
    // The code placement this instance runs in (docs/measurement.md, "Code placements"): 0 unless
    // the workload's implementation has several (WorkloadImplementation::placements).
    virtual std::size_t placement() const { return 0; }
    // Runs the next operations in `placement`, one of placements() (the run's layout plan picks
    // one per repetition); the state the operations work on stays where it is.
    virtual void place(std::size_t /*placement*/) {}
    // Every placement's code, indexed by placement: placements()[placement()].hot is hotCode().
    // Empty for a workload whose code has one placement.
    virtual std::vector<PlacedCode> placements() const { return {}; }
    // What went wrong but did not stop it (a helper thread that could not be pinned); stored with
    // the run.
    virtual std::vector<std::string> warnings() const { return {}; }
};

// The address of a function, for CallLoop::hotCode().
template <class R, class... Args>
const void* codeAddress(R (*function)(Args...))
{
    return reinterpret_cast<const void*>(function);
}

// What a live test's interfaces were set to, by setting ("veth1 gro" -> "on", "veth1 rings" ->
// "unavailable"), read before and after each repetition (engine/net/tested_state.h).
using TestedState = std::map<std::string, std::string>;

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
    // The settings of the interfaces its traffic crosses; empty for a test without any.
    virtual TestedState testedState() const { return {}; }
    // What went wrong but did not stop it, after start(): a thread that could not be pinned. The
    // live runner stores each with the run.
    virtual std::vector<std::string> warnings() const { return {}; }
};

// Every variant of a live workload set up side by side (one testbed, one generator, a receiver per
// variant) for runs that alternate the variants in chunks. variant(v) is variant v's view: its
// sample() gives that variant's counters only (offered_packets: the shared generator's), its
// counterThread() that variant's receiver; its start() and stop() start and stop the whole group.
class LiveGroup {
public:
    virtual ~LiveGroup() = default;
    virtual LiveSession& variant(std::size_t v) = 0;
    virtual std::size_t size() const = 0;
    virtual Result<void> start() = 0;  // every receiver, then the generator offering to variant 0
    virtual void stop() = 0;
    // While stopped: puts variant v on place (v + rotation) % size() (udp-rx: a port, xdp-rx: a
    // testbed), so that the variants can trade places between phases of a run and a difference
    // between the places themselves cancels out. Rotation 0 is where they are made. Whatever a
    // group does in turn for its variants (opening sockets, starting threads) it does in the order
    // of their places, so that an effect of that order is the place's too.
    virtual Result<void> place(std::size_t rotation) = 0;
    std::size_t placeOf(std::size_t v, std::size_t rotation) const { return (v + rotation) % size(); }
    std::size_t variantAt(std::size_t place, std::size_t rotation) const
    {
        return (place + size() - rotation % size()) % size();
    }
    // Offers the generator's traffic to variant v from now on; frames in flight still reach the
    // variant offered before.
    virtual void offer(std::size_t v) = 0;
    // Whether anything waits to be received by variant v (in its socket or its device queue).
    virtual bool pending(std::size_t v) const = 0;
    // The settings of the interfaces every variant's traffic crosses.
    virtual TestedState testedState() const { return {}; }
};

// The non-empty ones of `lines`.
std::vector<std::string> nonEmpty(std::vector<std::string> lines);

// The measuring implementation of a catalogue entry (engine/catalog/): exactly one of `make` (an
// in-process workload) and `makeLive` (a live one) is set; the external `command` workload is run
// by engine/run/command_experiment and has no entry. Each is declared once with its description, in
// engine/catalog/workload_list.h; engine/workloads/registry.cpp lists them all.
struct WorkloadImplementation {
    std::string name{};  // the catalogue entry it implements (the list gives it)
    // Makes the variant's loop in code placement `placement` (0: the code as it always was), one
    // of the `placements` this implementation has.
    std::function<Result<std::unique_ptr<CallLoop>>(const ParamSet&, std::size_t placement)> make{};
    std::size_t placements = 1;
    std::function<Result<std::unique_ptr<LiveSession>>(const ParamSet&)> makeLive{};
    // Optional, with makeLive: every variant side by side, for runs in chunks (the catalogue's
    // chunkBlocker says when variants cannot be).
    std::function<Result<std::unique_ptr<LiveGroup>>(const std::vector<ParamSet>&)> makeLiveGroup{};
};
using WorkloadImplementations = std::vector<WorkloadImplementation>;

const WorkloadImplementation* findImplementation(const WorkloadImplementations& implementations, std::string_view name);

struct WorkloadDescriptor;  // engine/catalog/workload_catalog.h
// The implementation of `workload` among `implementations`: null for an External one (run by
// engine/run/command_experiment), an error when a measured one has none of its kind here.
Result<const WorkloadImplementation*> findImplementation(const WorkloadImplementations& implementations,
                                                         const WorkloadDescriptor& workload);

}  // namespace nf::engine
