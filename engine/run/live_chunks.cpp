// Every variant of a live experiment side by side, in chunks (LiveWorker::measureChunks): the
// traffic switches between them, a guard passes at each switch, and each chunk is one sample.

#include <algorithm>
#include <chrono>
#include <cmath>
#include <deque>
#include <thread>

#include "engine/model/metric.h"
#include "engine/run/live_worker_impl.h"

namespace nf::engine::live {

namespace {

// Waits for the guard before a chunk of `variant`: at least kMinGuard, and after a switch until
// the variant offered before has nothing left to receive (at most kMaxGuard). False when stopped.
bool waitGuard(LiveGroup& group, std::size_t previous, std::size_t variant, const probes::TscClock& tsc,
               const std::stop_token& stop)
{
    constexpr double kMinGuard = 0.001;
    constexpr double kMaxGuard = 0.02;
    const auto t0 = probes::readTsc();
    const auto minEnd = t0 + static_cast<std::uint64_t>(kMinGuard * tsc.hz());
    const auto maxEnd = t0 + static_cast<std::uint64_t>(kMaxGuard * tsc.hz());
    for (;;) {
        if (stop.stop_requested()) {
            return false;
        }
        const auto now = probes::readTsc();
        if (now >= maxEnd || (now >= minEnd && (previous == variant || !group.pending(previous)))) {
            return true;
        }
        std::this_thread::sleep_for(std::chrono::microseconds(100));
    }
}

}  // namespace

// The packets every variant has received so far, summed (the guard's count is its difference).
std::optional<double> LiveWorker::packetsNow()
{
    double total = 0;
    for (auto* session : m_sessions) {
        auto values = session->sample();
        if (!values || m_packets < 0 || static_cast<std::size_t>(m_packets) >= values->size()) {
            return std::nullopt;
        }
        total += (*values)[static_cast<std::size_t>(m_packets)];
    }
    return total;
}

// Puts the variants on their places for a phase, starts the group with counters on every variant
// and warms up offering to each in turn. False when stopped.
Result<bool> LiveWorker::startPhase(std::size_t rotation, std::deque<SessionCounters>& counters,
                                    std::optional<Running>& running, std::size_t& offered)
{
    auto& group = *m_group;
    counters.clear();
    running.reset();
    if (auto r = group.place(rotation); !r) {
        return r.error();
    }
    if (auto r = group.start(); !r) {
        return r.error();
    }
    running.emplace(*m_sessions.front());  // a view's stop() stops the group
    offered = 0;                           // start() offers to variant 0
    for (std::size_t v = 0; v < m_sessions.size(); ++v) {
        reportWarnings(v);
    }
    for (auto* session : m_sessions) {
        counters.emplace_back(m_p.counters, *session, m_simulated ? &*m_simulated : nullptr);
    }
    const auto chunkTicks = static_cast<std::uint64_t>(*m_spec.chunk * m_tsc->hz());
    const auto warmEnd = probes::readTsc() + static_cast<std::uint64_t>(m_spec.warmup * m_tsc->hz());
    for (std::size_t i = 0; probes::readTsc() < warmEnd; ++i) {
        offered = i % group.size();
        group.offer(offered);
        if (!waitUntil(std::min(probes::readTsc() + chunkTicks, warmEnd))) {
            return false;
        }
    }
    return true;
}

// One repetition with every variant side by side, in as many phases as there are variants (when it
// has that many rounds): in each the variants have other places (ports, testbeds), so a difference
// between the places is every variant's in equal parts. Each phase starts the group and warms up,
// then runs its rounds of the plan (A B B A ...). Before each chunk the traffic switches to its
// variant and a guard interval passes (its packets, every variant's, are counted in guard_packets
// and in no chunk); the chunk is counted from both sides' counters at its two boundaries.
Result<bool> LiveWorker::measureChunks(const ScheduleUnit& unit, int rounds, std::mt19937_64& rng,
                                       RepetitionResult& rep, PartialSender& partial)
{
    auto& group = *m_group;
    const auto places = group.size();
    const int phases = rounds >= static_cast<int>(places) ? static_cast<int>(places) : 1;
    std::optional<Running> running;
    std::deque<SessionCounters> counters;
    const auto chunkTicks = static_cast<std::uint64_t>(*m_spec.chunk * m_tsc->hz());
    const int guardPackets = m_layout.quantityIndex(quantity::kGuardPackets);
    const int guardNs = m_layout.quantityIndex(quantity::kGuardNs);
    const int place = m_layout.quantityIndex(quantity::kPlace);
    std::vector<int> counts(m_sessions.size(), 0);
    std::size_t offered = 0;
    int phase = -1;
    std::size_t rotation = 0;
    SlicePlan slices(unit, rounds, 0, m_spec.order, rng);
    while (auto slice = slices.next()) {
        if (const int p = slice->pair * phases / rounds; p != phase) {
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
        group.offer(v);
        if (!waitGuard(group, offered, v, *m_tsc, m_stop)) {
            return false;
        }
        offered = v;
        const auto after = packetsNow();
        auto start = read(v, counters[v]);
        if (!start) {
            return start.error();
        }
        counters[v].advance();
        if (!waitUntil(start->tsc + chunkTicks)) {
            return false;
        }
        auto end = read(v, counters[v]);
        if (!end) {
            return end.error();
        }
        Sample s = sampleBetween(*start, *end);
        counters[v].write(s.values, m_layout);
        if (guardPackets >= 0 && guardNs >= 0) {
            s.values[static_cast<std::size_t>(guardPackets)] = before && after ? *after - *before : std::nan("");
            s.values[static_cast<std::size_t>(guardNs)] = m_tsc->toNanoseconds(start->tsc - guardStart);
        }
        if (place >= 0) {
            s.values[static_cast<std::size_t>(place)] = static_cast<double>(group.placeOf(v, rotation));
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

}  // namespace nf::engine::live
