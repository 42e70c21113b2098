#pragma once
// The one way every runner (call loop, live, command) goes through its repetitions: units planned
// one at a time, the stop checked before every unit and inside it by the runner's own "measure
// one unit", each finished unit handed on, and the one line a stopped run ends with.

#include <functional>
#include <random>
#include <stop_token>
#include <string>

#include "engine/model/run_data.h"
#include "engine/run/failure_sink.h"
#include "engine/run/schedule.h"

namespace nf::engine {

// What measuring one unit gave: done (its samples are in the repetition), or stopped inside it
// (the unit is discarded). A failure is an Error.
enum class UnitEnd { Done, Stopped };

struct DriveOutcome {
    RunStatus status = RunStatus::Complete;
    std::string reason;  // "" when complete
    int kept = 0;        // units handed on
};

using MeasureUnit = std::function<Result<UnitEnd>(const ScheduleUnit&, RepetitionResult&)>;
// Takes a finished unit; false stops the run (the taker recorded why, e.g. the database failed).
using TakeUnit = std::function<bool(RepetitionResult&&)>;

// Runs `spec.repetitions` repetitions of `variants` variants in `spec.order`, drawing random orders
// from `rng`. A stop before or during a unit ends the run aborted with "stopped during repetition
// 3 of 10 (discarded; 2 kept)"; a failed unit ends it failed with the unit's error, and so does a
// failure a helper thread reported to `failures` (the run's sink, RunContext::failures()) by the
// end of the unit; a unit the taker refuses ends it failed with `reason` "" (the taker knows why).
DriveOutcome driveRepetitions(const ExperimentSpec& spec, int variants, std::mt19937_64& rng,
                              const std::stop_token& stop, FailureSink& failures, const MeasureUnit& measure,
                              const TakeUnit& take);

}  // namespace nf::engine
