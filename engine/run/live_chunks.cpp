#include "engine/run/live_chunks.h"

#include <algorithm>
#include <cmath>
#include <utility>

#include "engine/model/metric.h"

namespace nf::engine::live {

SideBySide::SideBySide(const ExperimentSpec& spec, LiveSessions& sessions, LiveSampler& sampler)
    : m_spec(spec),
      m_sessions(sessions),
      m_group(*sessions.group()),
      m_sampler(sampler),
      m_rounds(std::max(1, static_cast<int>(std::lround(spec.duration / *spec.chunk))))
{
}

// One repetition with every variant side by side, in phases: as many as there are variants (when it
// has that many rounds), or --setups. In each the variants have other places (ports, testbeds),
// taken in turn, so a difference between the places is every variant's in equal parts. Each phase
// is a setup: it starts the group anew (sockets, threads) and warms up, then runs its rounds of the
// plan (A B B A ...). What a start draws shifts a variant for the setup's life, so the analysis
// takes the setup as its unit (engine/analysis/setup_factor.h). Before each chunk the traffic switches to its
// variant and a guard interval passes (its packets, every variant's, are counted in guard_packets
// and in no chunk); the chunk is counted from both sides' counters at its two boundaries.
Result<bool> SideBySide::measure(const ScheduleUnit& unit, std::mt19937_64& rng, RepetitionResult& rep,
                                 PartialSender& partial)
{
    const auto& layout = m_sampler.layout();
    const auto places = m_group.size();
    const int wanted = m_spec.setups.value_or(static_cast<int>(places));
    const int phases = m_rounds >= wanted ? wanted : 1;
    std::optional<Running> running;
    std::deque<SessionCounters> counters;
    const auto chunkTicks = m_sampler.ticks(*m_spec.chunk);
    const int guardPackets = layout.quantityIndex(quantity::kGuardPackets);
    const int guardNs = layout.quantityIndex(quantity::kGuardNs);
    const int place = layout.quantityIndex(quantity::kPlace);
    std::vector<int> counts(m_sessions.size(), 0);
    std::size_t offered = 0;
    int phase = -1;
    std::size_t rotation = 0;
    SlicePlan slices(unit, m_rounds, 0, m_spec.order, rng);
    while (auto slice = slices.next()) {
        if (const int p = slice->pair * phases / m_rounds; p != phase) {
            phase = p;
            rotation = (static_cast<std::size_t>(unit.repetition) + static_cast<std::size_t>(p)) % places;
            auto started = startPhase(rotation, counters, running, offered);
            if (!started || !*started) {
                return started;
            }
        }
        const auto v = static_cast<std::size_t>(slice->variant);
        const auto before = packetsNow();
        const auto guardStart = probes::readTsc();
        m_group.offer(v);
        if (!waitGuard(offered, v)) {
            return false;
        }
        offered = v;
        const auto after = packetsNow();
        auto start = NF_TRY(m_sampler.read(m_sessions[v], counters[v]));
        counters[v].advance();
        if (!m_sampler.waitUntil(start.tsc + chunkTicks)) {
            return false;
        }
        auto end = NF_TRY(m_sampler.read(m_sessions[v], counters[v]));
        Sample s = m_sampler.between(start, end);
        counters[v].write(s.values, layout);
        if (guardPackets >= 0 && guardNs >= 0) {
            s.values[static_cast<std::size_t>(guardPackets)] = before && after ? *after - *before : std::nan("");
            s.values[static_cast<std::size_t>(guardNs)] = m_sampler.tsc().toNanoseconds(start.tsc - guardStart);
        }
        if (place >= 0) {
            s.values[static_cast<std::size_t>(place)] = static_cast<double>(m_group.placeOf(v, rotation));
        }
        s.variant = slice->variant;
        s.repetition = unit.repetition;
        s.pair = slice->pair;
        s.index = counts[v]++;
        rep.samples.push_back(std::move(s));
        partial.offer(unit.repetition, rep);
    }
    return true;
}

// Puts the variants on their places for a phase, starts the group with counters on every variant
// and warms up offering to each in turn. False when stopped.
Result<bool> SideBySide::startPhase(std::size_t rotation, std::deque<SessionCounters>& counters,
                                    std::optional<Running>& running, std::size_t& offered)
{
    counters.clear();
    running.reset();
    NF_TRY(m_group.place(rotation));
    NF_TRY(m_group.start());
    running.emplace(m_sessions[0]);  // a view's stop() stops the group
    offered = 0;                     // start() offers to variant 0
    for (std::size_t v = 0; v < m_sessions.size(); ++v) {
        m_sessions.reportWarnings(v);
    }
    for (std::size_t v = 0; v < m_sessions.size(); ++v) {
        counters.emplace_back(m_sampler.openViewCounters(m_sessions[v]));
    }
    const auto chunkTicks = m_sampler.ticks(*m_spec.chunk);
    const auto warmEnd = probes::readTsc() + m_sampler.ticks(m_spec.warmup);
    for (std::size_t i = 0; probes::readTsc() < warmEnd; ++i) {
        offered = i % m_group.size();
        m_group.offer(offered);
        if (!m_sampler.waitUntil(std::min(probes::readTsc() + chunkTicks, warmEnd))) {
            return false;
        }
    }
    return true;
}

// Waits for the guard before a chunk of `variant`: at least kMinGuard, and after a switch until
// the variant offered before has nothing left to receive (at most kMaxGuard). The sampler runs on
// the measured CPUs where the machine has no other, so it looks seldom: at the minimum, then each
// time after half the guard so far (1, 1.5, 2.25, 3.4 ... ms: at most nine looks, and a guard at
// most half as long again as the drain it waits for). False when stopped.
bool SideBySide::waitGuard(std::size_t previous, std::size_t variant)
{
    constexpr double kMinGuard = 0.001;
    constexpr double kMaxGuard = 0.02;
    const auto t0 = probes::readTsc();
    const auto maxEnd = t0 + m_sampler.ticks(kMaxGuard);
    auto next = t0 + m_sampler.ticks(kMinGuard);
    for (;;) {
        if (!m_sampler.waitUntil(next)) {
            return false;
        }
        const auto now = probes::readTsc();
        if (previous == variant || now >= maxEnd || !m_group.pending(previous)) {
            return true;
        }
        next = std::min(maxEnd, now + (now - t0) / 2);
    }
}

// The packets every variant has received so far, summed (the guard's count is its difference).
std::optional<double> SideBySide::packetsNow()
{
    const int packets = m_sampler.packets();
    double total = 0;
    for (std::size_t v = 0; v < m_sessions.size(); ++v) {
        auto values = m_sessions[v].sample();
        if (!values || packets < 0 || static_cast<std::size_t>(packets) >= values->size()) {
            return std::nullopt;
        }
        total += (*values)[static_cast<std::size_t>(packets)];
    }
    return total;
}

}  // namespace nf::engine::live
