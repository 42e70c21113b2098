#include "engine/run/until_decided.h"

#include <fmt/format.h>
#include <cmath>
#include <map>

namespace nf::engine {

SequentialOptions decisionOptions(const UntilDecided& u)
{
    return {.alpha = u.alpha, .marginPct = u.marginPct, .warmupUnits = 30, .plannedUnits = 0};
}

DecisionMonitor::DecisionMonitor(const ExperimentSpec& spec, const RunLayout& layout)
    : m_spec(spec),
      m_layout(layout),
      m_sequence(decisionOptions(spec.until.value_or(UntilDecided{}))),
      m_switches(layout.quantityIndex("context-switches")),
      m_unit(spec.alternating() ? "chunk pair" : "repetition")
{
}

DecisionLook DecisionMonitor::add(const RepetitionResult& rep)
{
    if (!m_layout.metrics.empty()) {
        const auto& metric = m_layout.metrics.front();
        // Rows per (pair, variant): a chunk pair's two chunks, or a repetition's samples per variant.
        std::map<int, std::vector<const std::vector<double>*>> rows[2];
        std::map<int, bool> switched;
        for (const auto& s : rep.samples) {
            if (s.variant < 0 || s.variant > 1) {
                continue;
            }
            const int key = m_spec.alternating() ? s.pair : 0;
            rows[s.variant][key].push_back(&s.values);
            const auto col = static_cast<std::size_t>(m_switches);
            if (m_spec.alternating() && m_switches >= 0 && col < s.values.size() && s.values[col] > 0) {
                switched[key] = true;
            }
        }
        for (const auto& [key, base] : rows[0]) {
            const auto cand = rows[1].find(key);
            if (cand == rows[1].end() || switched[key]) {
                continue;
            }
            const auto b = metricValue(metric, m_layout.quantities, base);
            const auto c = metricValue(metric, m_layout.quantities, cand->second);
            if (b && c && *b > 0 && *c > 0) {
                m_sequence.add(std::log(*c / *b));
            }
        }
    }
    const auto s = m_sequence.look();
    DecisionLook look{.look = ++m_looks,
                      .repetitions = m_looks,
                      .units = s.units,
                      .elapsed = rep.end,
                      .estimatePct = s.estimatePct,
                      .lowPct = s.ci.low,
                      .highPct = s.ci.high,
                      .sdLog = s.sdLog,
                      .decision = std::string(toString(s.decision))};
    m_last = look;
    return look;
}

bool DecisionMonitor::shouldStop(const DecisionLook& look, double repetitionSeconds)
{
    if (look.decision != "inconclusive") {
        m_reason = "decided: " + look.decision;
        return true;
    }
    const double maxTime = m_spec.until ? m_spec.until->maxTime : 0;
    if (look.elapsed + repetitionSeconds > maxTime) {
        m_reason = fmt::format("max time reached: {:.1f} s measured, the next repetition would pass {:g} s",
                               look.elapsed, maxTime);
        return true;
    }
    return false;
}

DecisionRecord DecisionMonitor::record(bool planEnded) const
{
    const auto& u = m_spec.until.value_or(UntilDecided{});
    DecisionRecord r{.method = sequentialMethod(m_sequence.options()),
                     .metric = m_layout.metrics.empty() ? "" : m_layout.metrics.front().name,
                     .unit = m_unit,
                     .alpha = u.alpha,
                     .marginPct = u.marginPct,
                     .maxTime = u.maxTime,
                     .decision = m_last ? m_last->decision : "inconclusive",
                     .stopReason = m_reason.empty() && planEnded ? "the plan's repetitions ran out" : m_reason,
                     .secondsNeeded = -1,
                     .looks = {}};
    if (r.decision == "inconclusive" && m_last && m_last->elapsed > 0 && m_sequence.units() > 0) {
        if (const auto units = m_sequence.unitsStillNeeded()) {
            r.secondsNeeded = *units * m_last->elapsed / static_cast<double>(m_sequence.units());
        }
    }
    return r;
}

}  // namespace nf::engine
