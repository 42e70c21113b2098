#pragma once
// A live run's variants one at a time ("interleaved repetitions"): within a repetition each
// variant's session is started, warmed up, sampled every interval and stopped in turn.

#include "base/result.h"
#include "engine/model/run_data.h"
#include "engine/run/call_loop_worker.h"
#include "engine/run/live_sampler.h"
#include "engine/run/live_sessions.h"
#include "engine/run/schedule.h"

namespace nf::engine::live {

class Interleaved {
public:
    Interleaved(const ExperimentSpec& spec, LiveSessions& sessions, LiveSampler& sampler);

    // Runs `variant` for its part of `unit`: start, warm up for spec.warmup, then a sample every
    // spec.interval for spec.duration, each into `rep` and offered to `partial`. False when stopped.
    Result<bool> measure(const ScheduleUnit& unit, int variant, RepetitionResult& rep, PartialSender& partial);

private:
    const ExperimentSpec& m_spec;
    LiveSessions& m_sessions;
    LiveSampler& m_sampler;
    int m_perVariant;  // samples per variant and repetition
};

}  // namespace nf::engine::live
