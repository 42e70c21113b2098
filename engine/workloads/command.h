#pragma once
// The `command` workload: a user's command run once per repetition as its own process.

#include "workload.h"

namespace nf::engine::workloads {

WorkloadInfo commandInfo();

}  // namespace nf::engine::workloads
