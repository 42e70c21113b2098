#pragma once
// What a run produces, as the scheduler emits it and as the store reads it back.

#include <cstdint>
#include <map>
#include <nlohmann/json.hpp>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "base/result.h"
#include "engine/model/experiment_spec.h"
#include "engine/model/metric.h"
#include "engine/model/profile.h"
#include "engine/model/run_table.h"

namespace nf::engine {

enum class RunStatus { Running, Complete, Aborted, Failed };
std::string_view toString(RunStatus status);
Result<RunStatus> parseRunStatus(std::string_view text);

// What every sample of a run holds, and the metrics computed from it.
struct RunLayout {
    std::vector<std::string> quantities;             // column order of Sample::values
    std::vector<MetricSpec> metrics;                 // primary metric first
    int quantityIndex(std::string_view name) const;  // -1 if absent
};

// One measurement interval of one variant: a chunk when alternating, else an interval.
struct Sample {
    int variant = 0;  // index into the run's variants
    int repetition = 0;
    int index = 0;                 // within (variant, repetition)
    int pair = -1;                 // alternation round within the repetition; -1 when not alternating
    double start = 0;              // seconds since the run's first measurement
    double duration = 0;           // seconds
    std::vector<double> values{};  // RunLayout::quantities order
};

struct RepetitionResult {
    int index = 0;
    std::vector<int> variants;  // variants measured in this repetition, in the order they first ran
    double start = 0;
    double end = 0;
    std::vector<Sample> samples;
    // Per variant of the run (by index), the code placement it ran in (ExperimentSpec::layouts);
    // empty for a workload whose code has one placement.
    std::vector<int> layouts{};
    // Live tests: what the tested interfaces and CPUs were set to before and after the repetition's
    // measuring, {"before": {setting: value}, "after": {...}}; null when nothing was read.
    nlohmann::json state{};
};

struct RunStart {
    ExperimentSpec spec;                        // fully resolved: seed, chunk, cpus and counters filled in
    std::vector<nlohmann::json> variantParams;  // resolved parameters per variant
    RunLayout layout;
    nlohmann::json environment;  // system facts, TSC calibration, counters and why some are missing
};

// One look of a run that runs until decided (engine/run/until_decided.h): the confidence sequence
// of the primary metric after `units` units, `elapsed` seconds from the first measured unit.
struct DecisionLook {
    int look = 0;  // 1, 2, ...: one per stored repetition
    int repetitions = 0;
    std::size_t units = 0;
    double elapsed = 0;
    double estimatePct = 0;
    double lowPct = 0;  // NaN while there are too few units for a sequence
    double highPct = 0;
    double sdLog = 0;
    std::string decision;  // "different", "negligible", "equivalent" or "inconclusive"
};

// How such a run ended: the method, what it decided and why it stopped.
struct DecisionRecord {
    std::string method;
    std::string metric;  // the primary metric it decided on
    std::string unit;    // "chunk pair", "setup" (a live run side by side) or "repetition"
    double alpha = 0.05;
    double marginPct = 1;
    double maxTime = 0;
    std::string decision;       // of the last look
    std::string stopReason;     // "decided: different", "max time reached", ...
    double secondsNeeded = -1;  // inconclusive: the measuring time it would still need; -1 unknown
    std::vector<DecisionLook> looks;
};

// Observers are called on the thread that called Scheduler::run, never on the worker.
class RunObserver {
public:
    virtual ~RunObserver() = default;
    virtual Result<void> runStarted(const RunStart& /*start*/) { return {}; }
    virtual Result<void> repetitionFinished(const RepetitionResult& /*rep*/) { return {}; }
    virtual void warning(std::string_view /*text*/) {}
    // done/total in repetitions; secondsLeft is an estimate.
    virtual void progress(int /*done*/, int /*total*/, double /*secondsLeft*/) {}
    virtual void runFinished(RunStatus /*status*/, std::string_view /*reason*/) {}
    // Until-decided runs: each look after its repetition is stored, and the decision before runFinished.
    virtual Result<void> decisionLook(const DecisionLook& /*look*/) { return {}; }
    virtual Result<void> decisionMade(const DecisionRecord& /*record*/) { return {}; }
    // run --profile: each stored repetition's profile after the repetition, and at the end how the
    // profile was taken.
    virtual Result<void> profileMeasured(const ProfileSummary& /*soFar*/, const RepetitionProfile& /*profile*/)
    {
        return {};
    }
    virtual Result<void> profileFinished(const ProfileSummary& /*summary*/) { return {}; }
};

// A quantity a tool summarised itself (perf stat -r N): the runs it averages, their mean and the
// standard error of that mean. A run stored this way has no values per run of the tool; its
// repetition's one sample holds the means.
struct SummaryStat {
    int variant = 0;
    int repetition = 0;
    std::string quantity;
    double n = 0;
    double mean = 0;
    double se = 0;
};

// Summaries of one variant pooled (exactly: total n, weighted mean, within and between variance).
struct PooledSummary {
    double n = 0;
    double mean = 0;
    double stddev = 0;  // sample standard deviation of the values behind the summaries
    std::size_t groups = 0;
};

// The samples of a run, as a table, for analysis.
struct RunData {
    std::vector<std::string> variantNames;
    RunLayout layout;
    RunTable samples;                    // in start order; one value column per layout quantity
    std::vector<SummaryStat> summaries;  // empty unless the run was stored as summaries
    // The code placement (variant, repetition) ran in (RepetitionResult::layouts); empty when the
    // run recorded none.
    std::map<std::pair<int, int>, int> layouts{};
    // Live tests: the tested settings before and after each measured unit (RepetitionResult::state)
    // with its repetition index, in the order they were stored (a blocked run measures every
    // repetition of one variant before the next's); empty for runs that read none.
    std::vector<std::pair<int, nlohmann::json>> testedStates{};
    // run --profile: the profile per chunk; unset for runs not profiled.
    std::optional<RunProfile> profile{};

    // The placement of (variant, repetition), -1 when none was recorded.
    int layoutOf(int variant, int repetition) const
    {
        const auto it = layouts.find({variant, repetition});
        return it == layouts.end() ? -1 : it->second;
    }

    bool summarised() const { return !summaries.empty(); }
    // The metric's summary for `variant` when the run is stored as summaries and the metric is a
    // per-run value of a summarised quantity (denominator "runs"); else nullopt.
    std::optional<PooledSummary> summaryOf(int variant, const MetricSpec& metric) const;

    // The metric's value per repetition of `variant` (ratio of totals over the repetition's
    // samples but those `leftOut` marks, per sample; empty: none), ordered by repetition;
    // repetitions where it is undefined, or with no sample left, are skipped. Which samples to leave
    // out is the analysis's chunk rule (engine/analysis/chunk_cut.h).
    std::vector<double> repetitionValues(int variant, const MetricSpec& metric, const std::vector<bool>& leftOut) const;
};

}  // namespace nf::engine
