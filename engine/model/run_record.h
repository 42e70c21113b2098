#pragma once
// A stored run as the store hands it out: its row in the run list, what was asked for, where it
// ran, and every sample. data/ reads it; the reports and both front ends consume it.

#include <cstdint>
#include <nlohmann/json.hpp>
#include <optional>
#include <string>
#include <vector>

#include "engine/model/experiment_spec.h"
#include "engine/model/run_data.h"
#include "engine/model/run_environment.h"

namespace nf::engine {

struct RunRow {
    std::int64_t id = 0;
    std::string label;
    std::string workload;
    RunStatus status = RunStatus::Running;  // 'running' with a dead pid reads as Aborted
    std::string statusReason;
    std::string startedAt;  // ISO 8601 UTC, "2026-11-30T01:02:03Z"
    std::string endedAt;    // "" while running
    std::string host;
    std::string kernel;
    std::string cpuModel;
    std::string toolVersion;
    std::int64_t pid = 0;
    std::string bootId;  // the boot the writer ran in (/proc/sys/kernel/random/boot_id); "" unknown
    int variants = 0;
    int repetitions = 0;  // repetitions stored (all variants counted once per index)
    // A run that is one point of a sweep (ExperimentSpec::sweep); sweepId "" otherwise.
    std::string sweepId;
    std::string sweepParam;
    std::string sweepValue;
    int sweepIndex = -1;
    int sweepPoints = 0;  // the points the sweep was planned with; 0 when the spec does not say
};

struct RunRecord {
    RunRow row;
    ExperimentSpec spec;  // as it ran: seed, chunk, CPUs and counters resolved
    RunEnvironment environment;
    std::vector<nlohmann::json> variantParams;
    RunData data;                            // variant names, layout (quantities, metrics) and every sample
    std::vector<std::string> warnings;       // what went wrong during the run without stopping it
    std::optional<DecisionRecord> decision;  // a run that ran until decided: its sequential decision
};

}  // namespace nf::engine
