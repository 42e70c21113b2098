#pragma once
// A live run's variants side by side, in chunks ("paired chunks, variants side by side"): one
// group, one generator, the traffic switched from variant to variant, a guard at each switch, and
// each chunk one sample read from both sides' counters at its two boundaries.

#include <cstddef>
#include <deque>
#include <optional>
#include <random>

#include "base/result.h"
#include "engine/model/run_data.h"
#include "engine/run/call_loop_worker.h"
#include "engine/run/live_sampler.h"
#include "engine/run/live_sessions.h"
#include "engine/run/schedule.h"

namespace nf::engine::live {

class SideBySide {
public:
    // `sessions.group()` is set: the run alternates.
    SideBySide(const ExperimentSpec& spec, LiveSessions& sessions, LiveSampler& sampler);

    // One repetition, its chunks into `rep`, each offered to `partial`. False when stopped.
    Result<bool> measure(const ScheduleUnit& unit, std::mt19937_64& rng, RepetitionResult& rep, PartialSender& partial);

private:
    Result<bool> startPhase(std::size_t rotation, std::deque<SessionCounters>& counters,
                            std::optional<Running>& running, std::size_t& offered);
    bool waitGuard(std::size_t previous, std::size_t variant);
    std::optional<double> packetsNow();

    const ExperimentSpec& m_spec;
    LiveSessions& m_sessions;
    LiveGroup& m_group;
    LiveSampler& m_sampler;
    int m_rounds;  // chunk rounds per repetition
};

}  // namespace nf::engine::live
