#pragma once
// Whether a live test measured what its workload says it measures, decided per comparison from
// what the run stored (docs/measurement.md, "A valid live test"). Four rules:
// - generator_bound: a variant received nearly all that was offered while a CPU doing its receive
//   work had idle time: the rate is the generator's, not the receiver's;
// - rx_not_saturated: in a max-rate test (no rate=) the receiving application's CPU idled: the
//   "single CPU at 100%" rule, stated per CPU;
// - loss_elsewhere: packets were lost outside the stage the test measures (the backlog, the
//   device), or at that stage while its CPU idled (a buffer too small, not a receiver too slow);
// - state_drift: a setting of the tested interfaces or CPUs changed during the run.
// Which CPU did which work comes from the per-CPU time (/proc/stat) and softnet counts stored per
// chunk; runs that stored none (older runs, counter_cpus=none) are judged on what they have.

#include <string>
#include <string_view>
#include <vector>

#include "engine/model/metric.h"
#include "engine/model/run_data.h"

namespace nf::engine {

enum class ValidityCode { GeneratorBound, RxNotSaturated, LossElsewhere, StateDrift };
std::string_view toString(ValidityCode code);  // "generator_bound", ...

struct ValidityReason {
    ValidityCode code = ValidityCode::GeneratorBound;
    std::string text;
    std::vector<std::string> variants{};  // the variants it is about; empty: the whole run
    // Only rate metrics (pps, bytes_per_sec) measure what failed; per-packet costs keep their
    // verdicts with the reason stated.
    bool rateOnly = false;
};

// What a run's comparisons are judged on: the reasons found, and whether the CPU time the rules
// about idle CPUs need was stored.
struct RunValidity {
    std::vector<ValidityReason> reasons;
    bool cpuTimeKnown = false;
    // Which counted CPU did which work, per variant: "a: CPU 0 (the generator and receive
    // softirqs: tasks 58%, softirqs 42%, idle 0%), CPU 1 (the application: ...)".
    std::vector<std::string> cpuWork{};
};

// The rules over one stored live run; nothing for a run without received packets (not live).
// `variantParams` are the run's resolved parameters per variant (rx_cpu, tx_cpu, rate).
RunValidity assessValidity(const RunData& data, const std::vector<nlohmann::json>& variantParams);

// A received rate: what a generator-bound or unsaturated test does not measure.
bool isRateMetric(const MetricSpec& metric);

}  // namespace nf::engine
