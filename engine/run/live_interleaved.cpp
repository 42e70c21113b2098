#include "engine/run/live_interleaved.h"

#include <algorithm>
#include <cmath>
#include <utility>

namespace nf::engine::live {

Interleaved::Interleaved(const ExperimentSpec& spec, LiveSessions& sessions, LiveSampler& sampler)
    : m_spec(spec),
      m_sessions(sessions),
      m_sampler(sampler),
      m_perVariant(std::max(1, static_cast<int>(std::lround(spec.duration / spec.interval))))
{
}

Result<bool> Interleaved::measure(const ScheduleUnit& unit, int variant, RepetitionResult& rep, PartialSender& partial)
{
    const auto v = static_cast<std::size_t>(variant);
    auto& session = m_sessions[v];
    NF_TRY(session.start());
    Running running(session);
    m_sessions.reportWarnings(v);
    SessionCounters counters = m_sampler.openCounters(session);
    const auto ticksPerInterval = m_sampler.ticks(m_spec.interval);
    if (!m_sampler.waitUntil(probes::readTsc() + m_sampler.ticks(m_spec.warmup))) {
        return false;
    }
    auto previous = NF_TRY(m_sampler.read(session, counters));
    counters.advance();
    auto next = previous.tsc;
    for (int i = 0; i < m_perVariant; ++i) {
        next += ticksPerInterval;
        if (!m_sampler.waitUntil(next)) {
            return false;
        }
        auto current = NF_TRY(m_sampler.read(session, counters));
        Sample s = m_sampler.between(previous, current);
        counters.write(s.values, m_sampler.layout());
        counters.advance();
        s.variant = variant;
        s.repetition = unit.repetition;
        s.index = i;
        rep.samples.push_back(std::move(s));
        partial.offer(unit.repetition, rep);
        previous = std::move(current);
    }
    return true;
}

}  // namespace nf::engine::live
