#include "engine/run/run_watch.h"

#include <algorithm>
#include <cmath>

#include "engine/model/metric.h"

namespace nf::engine {

RunWatch::RunWatch(const ExperimentSpec& spec, const RunLayout& layout)
    : m_spec(spec),
      m_layout(layout),
      m_sequence(decisionOptions(spec.until.value_or(UntilDecided{}))),
      m_monitor(m_spec, m_layout),
      m_switches(layout.quantityIndex("context-switches")),
      m_setups(spec.alternating() && layout.quantityIndex(quantity::kPlace) >= 0)
{
}

void RunWatch::add(const std::vector<Sample>& samples)
{
    for (const auto& s : samples) {
        addOne(s);
    }
}

void RunWatch::addOne(const Sample& s)
{
    ++m_seen[s.repetition];
    ++m_samples;
    m_elapsed = std::max(m_elapsed, s.start + s.duration);
    if (s.variant < 0 || s.variant > 1) {
        return;
    }
    const Key key{s.repetition, m_spec.alternating() ? s.pair : 0};
    if (m_spec.alternating() && s.pair >= 0) {
        auto& durations = m_chunkDurations[s.variant];
        durations.insert(std::upper_bound(durations.begin(), durations.end(), s.duration), s.duration);
    }
    auto& open = m_open[key];
    open.push_back(s);
    if (m_spec.alternating()) {
        // A chunk pair holds one chunk of each variant: complete once both are in.
        const bool both = std::any_of(open.begin(), open.end(), [](const Sample& x) { return x.variant == 0; }) &&
                          std::any_of(open.begin(), open.end(), [](const Sample& x) { return x.variant == 1; });
        if (both) {
            close(key);
        }
    }
}

void RunWatch::finishRepetition(const RepetitionResult& rep)
{
    const std::size_t seen = m_seen[rep.index];
    for (std::size_t i = seen; i < rep.samples.size(); ++i) {
        addOne(rep.samples[i]);
    }
    std::vector<Key> keys;
    for (const auto& [key, samples] : m_open) {
        if (std::get<0>(key) == rep.index) {
            keys.push_back(key);
        }
    }
    for (const auto& key : keys) {
        close(key);
    }
    m_seen.erase(rep.index);
    m_elapsed = std::max(m_elapsed, rep.end);
    m_monitor.add(rep);
    m_sequence = m_monitor.sequence();
}

double RunWatch::medianChunk(int variant) const
{
    const auto& d = m_chunkDurations[variant];
    if (d.empty()) {
        return INFINITY;
    }
    const std::size_t mid = d.size() / 2;
    return d.size() % 2 == 1 ? d[mid] : (d[mid - 1] + d[mid]) / 2;
}

// The unit's log ratio candidate / baseline, as DecisionMonitor::add forms it.
void RunWatch::close(const Key& key)
{
    const auto it = m_open.find(key);
    if (it == m_open.end()) {
        return;
    }
    std::vector<const std::vector<double>*> rows[2];
    bool preempted = false;
    const auto col = static_cast<std::size_t>(m_switches);
    for (const auto& s : it->second) {
        rows[s.variant].push_back(&s.values);
        if (m_spec.alternating()) {
            const bool switched = m_switches >= 0 && col < s.values.size() && s.values[col] > 0;
            preempted = preempted || switched || s.duration > 1.5 * medianChunk(s.variant);
        }
    }
    if (!m_setups && !m_layout.metrics.empty() && !preempted && !rows[0].empty() && !rows[1].empty()) {
        const auto& metric = m_layout.metrics.front();
        const auto b = metricValue(metric, m_layout.quantities, rows[0]);
        const auto c = metricValue(metric, m_layout.quantities, rows[1]);
        if (b && c && *b > 0 && *c > 0) {
            m_sequence.add(std::log(*c / *b));
        }
    }
    m_open.erase(it);
}

WatchLook RunWatch::look() const
{
    const auto s = m_sequence.look();
    const auto& options = m_sequence.options();
    WatchLook l{.units = s.units,
                .elapsed = m_elapsed,
                .estimatePct = s.estimatePct,
                .lowPct = s.ci.low,
                .highPct = s.ci.high,
                .marginPct = options.marginPct,
                .decision = std::string(toString(s.decision))};
    const double units = static_cast<double>(s.units);
    const double rate = units > 0 && m_elapsed > 0 ? units / m_elapsed : 0;  // units per second
    // The units the run will have when it ends: the plan's, or as many as fit in the maximum time.
    const double rounds = m_spec.alternating() ? std::max(1.0, std::round(m_spec.duration / *m_spec.chunk)) : 1.0;
    const double setups = static_cast<double>(m_spec.setups.value_or(static_cast<int>(m_spec.variants.size())));
    double finalUnits = (m_setups ? setups : rounds) * m_spec.repetitions;
    // The plan is a count of samples (chunks come out longer than asked on a busy machine): those
    // still to measure, at the time each has taken so far.
    double left = NAN;
    if (m_samples > 0) {
        const double perVariant =
            m_spec.alternating() ? rounds : std::max(1.0, std::round(m_spec.duration / m_spec.interval));
        const double planned = perVariant * static_cast<double>(m_spec.variants.size()) * m_spec.repetitions;
        const auto seen = static_cast<double>(m_samples);
        left = std::max(0.0, planned - seen) * m_elapsed / seen;
    }
    if (m_spec.until) {
        finalUnits = rate > 0 ? rate * m_spec.until->maxTime : finalUnits;
        left =
            std::min(std::isnan(left) ? m_spec.until->maxTime : left, std::max(0.0, m_spec.until->maxTime - m_elapsed));
    }
    l.secondsLeft = left;
    if (std::isfinite(s.sdLog) && finalUnits >= 2) {
        const double precision = normalMixturePrecision(m_sequence.plannedUnits(), options.alpha);
        l.detectablePct =
            std::expm1(normalMixtureHalfWidth(std::max(finalUnits, units), s.sdLog, precision, options.alpha)) * 100;
    }
    if (l.decision != "inconclusive") {
        l.secondsToDecision = 0;
    } else if (rate > 0) {
        if (const auto needed = m_sequence.unitsStillNeeded()) {
            l.secondsToDecision = *needed / rate;
        }
    }
    return l;
}

}  // namespace nf::engine
