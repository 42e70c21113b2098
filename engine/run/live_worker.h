#pragma once
// The measuring side of a live experiment (a receive test with its own traffic): prepares every
// variant's session, then runs each one for a repetition at a time and samples it every interval.

#include <future>
#include <stop_token>

#include "engine/run/call_loop_worker.h"
#include "engine/run/channel.h"

namespace nf::engine {

struct PreparedExperiment;
class RunContext;

// Makes every variant's LiveSession (testbed up), starts each once to learn its counters and to
// check it runs, sends WorkerReady and waits for `go`. Then per planned unit and variant: start,
// warm up for spec.warmup, sample every spec.interval for spec.duration, stop; each unit is sent as
// a RepetitionResult. Alternating (spec.chunk > 0): the variants are set up side by side instead
// (WorkloadImplementation::makeLiveGroup), and each unit starts them all, warms up, and runs the
// chunks of a SlicePlan (A B B A ...): the traffic switches to the chunk's variant, a guard passes
// until the previous variant has nothing left to receive (1-20 ms; what arrives then is counted
// in guard_packets, in no chunk), and the chunk is one sample with its pair index. Times, counters
// and failures are the context's. A stop request ends the current interval wait at once. Sessions
// are destroyed (testbeds torn down) before WorkerDone is sent.
void runLiveWorker(const PreparedExperiment& prepared, RunContext& context, std::stop_token stop,
                   Channel<WorkerMessage>& out, std::future<bool> go);

}  // namespace nf::engine
