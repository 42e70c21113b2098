#pragma once
// Runs that do not silently share CPUs: a run holds an owner lock (engine/run/owner_lock.h) on each
// CPU it measures on, /run/noisefloor/cpu/<n>.lock, for as long as it runs. The kernel drops the
// lock when the process ends, however it ends, so a crashed run never blocks the next one. A run
// that finds a CPU held by a live run refuses to start and names that run, unless it was asked to
// share (--share-cpus), in which case the sharing is a warning stored with the run.

#include <string>
#include <vector>

#include "base/result.h"
#include "engine/run/owner_lock.h"

namespace nf::engine {

struct PreparedExperiment;

// The CPUs the experiment measures on: the worker CPU of in-process and command workloads; every
// variant's tx_cpu and rx_cpu for live tests. Sorted, without duplicates.
std::vector<int> measuredCpus(const PreparedExperiment& prepared);

struct CpuClaims {
    std::vector<OwnerLock> locks;       // released when the claims are destroyed
    std::vector<std::string> warnings;  // with share: one line per CPU another run holds
};

// Takes the lock of every CPU in `cpus` for `description` ("noisefloor run udp-rx"). A CPU held by a
// live run is an error naming it, or with `share` a warning. Errors also when the lock directory
// cannot be used.
Result<CpuClaims> claimCpus(const std::vector<int>& cpus, const std::string& description, bool share,
                            const std::string& dir = kOwnerLockDir);

}  // namespace nf::engine
