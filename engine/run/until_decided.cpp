#include "engine/run/until_decided.h"

#include <fmt/format.h>
#include <cmath>
#include <map>
#include <utility>

#include "engine/analysis/analysis.h"
#include "engine/analysis/cell_interval.h"
#include "engine/model/metric.h"
#include "engine/stats/descriptive.h"

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
      m_place(layout.quantityIndex(quantity::kPlace)),
      m_unit(!spec.alternating() ? "repetition"
             : m_place >= 0      ? "setup"
                                 : "chunk pair")
{
}

namespace {

// Columns of a chunk as the monitor keeps it.
constexpr std::size_t kNumerator = 0;
constexpr std::size_t kDenominator = 1;
constexpr int kSwitches = 2;

}  // namespace

void DecisionMonitor::addRepetition(const RepetitionResult& rep)
{
    const auto& metric = m_layout.metrics.front();
    std::vector<const std::vector<double>*> rows[2];
    for (const auto& s : rep.samples) {
        if (s.variant == 0 || s.variant == 1) {
            rows[s.variant].push_back(&s.values);
        }
    }
    const auto b = metricValue(metric, m_layout.quantities, rows[0]);
    const auto c = metricValue(metric, m_layout.quantities, rows[1]);
    if (b && c && *b > 0 && *c > 0) {
        m_sequence.add(std::log(*c / *b));
    }
}

void DecisionMonitor::addChunks(const RepetitionResult& rep)
{
    const auto& metric = m_layout.metrics.front();
    const int num = m_layout.quantityIndex(metric.numerator);
    const int den = m_layout.quantityIndex(metric.denominator);
    auto column = [](const Sample& s, int q) {
        return q >= 0 && static_cast<std::size_t>(q) < s.values.size() ? s.values[static_cast<std::size_t>(q)] : NAN;
    };
    std::map<int, Round> rounds;
    for (const auto& s : rep.samples) {
        if (s.variant < 0 || s.variant > 1 || s.pair < 0) {
            continue;
        }
        auto& round = rounds[s.pair];
        round.chunks[s.variant].push_back(m_chunks.size());
        if (s.variant == 0 && m_place >= 0) {
            round.repetition = s.repetition;
            round.place = column(s, m_place);
        }
        m_chunks.append({.variant = s.variant,
                         .repetition = s.repetition,
                         .index = s.index,
                         .pair = s.pair,
                         .start = s.start,
                         .duration = s.duration,
                         .values = {column(s, num), column(s, den), column(s, m_switches)}});
    }
    for (auto& [pair, round] : rounds) {
        m_rounds.push_back(std::move(round));
    }
    const auto cut = preemptedChunks(m_chunks, m_switches >= 0 ? kSwitches : -1, 2);
    m_sequence = ConfidenceSequence(m_sequence.options());
    // A live run side by side: one unit per setup, the median of its pairs' log ratios, formed
    // when the next setup begins (or the repetition ends: a setup never spans two); those with
    // fewer pairs than the fixed-n analysis keeps (cellFloor) are left out as it leaves them out.
    std::pair<int, double> setup{-1, 0.0};
    std::vector<double> inSetup;
    std::vector<double> setupMedians;
    std::vector<double> setupPairs;
    auto endSetup = [&] {
        if (!inSetup.empty()) {
            setupMedians.push_back(median(inSetup));
            setupPairs.push_back(static_cast<double>(inSetup.size()));
            inSetup.clear();
        }
    };
    for (const auto& round : m_rounds) {
        const bool placed = std::isfinite(round.place);
        if (placed && std::pair{round.repetition, round.place} != setup) {
            endSetup();
            setup = {round.repetition, round.place};
        }
        double value[2] = {NAN, NAN};
        bool kept = !round.chunks[0].empty() && !round.chunks[1].empty();
        for (int v = 0; v < 2 && kept; ++v) {
            double n = 0;
            double d = 0;
            for (const auto i : round.chunks[v]) {
                kept = kept && !cut.leftOut[i];
                n += m_chunks.value(i, kNumerator);
                d += m_chunks.value(i, kDenominator);
            }
            value[v] = metricRatio(metric, n, d);
        }
        if (kept && value[0] > 0 && value[1] > 0) {
            if (placed) {
                inSetup.push_back(std::log(value[1] / value[0]));
            } else {
                m_sequence.add(std::log(value[1] / value[0]));
            }
        }
    }
    endSetup();
    const auto floor = static_cast<double>(cellFloor(setupPairs));
    for (std::size_t i = 0; i < setupMedians.size(); ++i) {
        if (setupPairs[i] >= floor) {
            m_sequence.add(setupMedians[i]);
        }
    }
}

DecisionLook DecisionMonitor::add(const RepetitionResult& rep)
{
    if (!m_layout.metrics.empty()) {
        if (m_spec.alternating()) {
            addChunks(rep);
        } else {
            addRepetition(rep);
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
    // With code layout as a factor, the sequence of chunk pairs does not hold the spread between
    // placements: a decision waits for every variant to have run every placement once, so that the
    // report's analysis over placement cells is complete.
    const int layouts = m_spec.layouts.value_or(0);
    if (look.decision != "inconclusive" && look.repetitions >= layouts) {
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
