#pragma once
// Who wrote a run: a pid alone is not enough once the writer is gone and the pid is reused.

#include <sys/types.h>

#include <cstdint>
#include <string>

namespace nf::data {

// "<boot id>/<start time in ticks since boot>" of a process: with its pid, it names the process
// uniquely, even across pid reuse and reboots. "" when /proc cannot tell.
std::string processIdentity(pid_t pid);

// True when `pid` is alive and still the process that wrote the run: a pid reused by another
// process since (after a crash or a reboot) has a different identity.
bool writerAlive(std::int64_t pid, const std::string& identity);

}  // namespace nf::data
