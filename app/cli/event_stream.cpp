#include "app/cli/event_stream.h"

#include <cmath>

#include "engine/report/run_text.h"

namespace nf::cli {

namespace {

// NaN and infinities are not JSON: they travel as null.
nlohmann::json number(double value)
{
    return std::isfinite(value) ? nlohmann::json(value) : nlohmann::json(nullptr);
}

nlohmann::json sampleJson(const engine::Sample& s, const engine::RunLayout& layout)
{
    nlohmann::json values = nlohmann::json::array();
    for (double v : s.values) {
        values.push_back(number(v));
    }
    std::optional<double> primary;
    if (!layout.metrics.empty()) {
        primary = engine::metricValue(layout.metrics.front(), layout.quantities, {&s.values});
    }
    return {{"variant", s.variant},
            {"repetition", s.repetition},
            {"index", s.index},
            {"pair", s.pair},
            {"start", s.start},
            {"duration", s.duration},
            {"values", std::move(values)},
            {"primary", primary ? number(*primary) : nlohmann::json(nullptr)}};
}

}  // namespace

EventStream::EventStream(engine::RunObserver& inner, std::ostream& out, std::string dbPath)
    : m_inner(inner), m_out(out), m_dbPath(std::move(dbPath))
{
}

void EventStream::emit(const nlohmann::json& event)
{
    if (m_broken) {
        return;
    }
    m_out << event.dump(-1, ' ', false, nlohmann::json::error_handler_t::replace) << '\n';
    m_out.flush();
    if (!m_out) {
        m_broken = true;
        if (m_onBroken) {
            m_onBroken();
        }
    }
}

Result<void> EventStream::runStarted(const engine::RunStart& start)
{
    auto r = m_inner.runStarted(start);
    if (!r) {
        return r;
    }
    m_layout = start.layout;
    nlohmann::json variants = nlohmann::json::array();
    for (std::size_t v = 0; v < start.spec.variants.size(); ++v) {
        variants.push_back({{"name", start.spec.variants[v].name},
                            {"params", v < start.variantParams.size() ? start.variantParams[v] : nlohmann::json()}});
    }
    nlohmann::json metrics = nlohmann::json::array();
    for (const auto& m : start.layout.metrics) {
        metrics.push_back(
            {{"name", m.name}, {"unit", m.unit}, {"higher_is_better", m.higherIsBetter}, {"alias_of", m.aliasOf}});
    }
    emit(
        {{"event", "run_started"},
         {"schema_version", kEventsSchemaVersion},
         {"run", runId()},
         {"db", m_dbPath},
         {"spec", engine::toJson(start.spec)},
         {"variants", std::move(variants)},
         {"quantities", start.layout.quantities},
         {"metrics", std::move(metrics)},
         {"not_measured", engine::RunEnvironment::fromJson(start.environment).notMeasuredLines()},
         {"simulated_counters", start.spec.pmu.simulated ? nlohmann::json(engine::simulatedCountersNote(start.spec.pmu))
                                                         : nlohmann::json(nullptr)}});
    return {};
}

Result<void> EventStream::repetitionFinished(const engine::RepetitionResult& rep)
{
    auto r = m_inner.repetitionFinished(rep);
    if (!r) {
        return r;
    }
    nlohmann::json samples = nlohmann::json::array();
    for (const auto& s : rep.samples) {
        samples.push_back(sampleJson(s, m_layout));
    }
    emit({{"event", "samples"}, {"run", runId()}, {"repetition", rep.index}, {"samples", std::move(samples)}});
    emit({{"event", "repetition_done"},
          {"run", runId()},
          {"repetition", rep.index},
          {"variants", rep.variants},
          {"start", rep.start},
          {"end", rep.end}});
    return {};
}

void EventStream::samplesMeasured(int repetition, const std::vector<engine::Sample>& samples)
{
    nlohmann::json list = nlohmann::json::array();
    for (const auto& s : samples) {
        list.push_back(sampleJson(s, m_layout));
    }
    emit({{"event", "partial_samples"}, {"run", runId()}, {"repetition", repetition}, {"samples", std::move(list)}});
}

void EventStream::watchLook(const engine::WatchLook& look)
{
    emit({{"event", "look"},
          {"run", runId()},
          {"provisional", true},
          {"units", look.units},
          {"elapsed", number(look.elapsed)},
          {"estimate_pct", number(look.estimatePct)},
          {"low_pct", number(look.lowPct)},
          {"high_pct", number(look.highPct)},
          {"margin_pct", number(look.marginPct)},
          {"detectable_pct", number(look.detectablePct)},
          {"seconds_to_decision", number(look.secondsToDecision)},
          {"seconds_left", number(look.secondsLeft)},
          {"decision", look.decision}});
}

void EventStream::warning(std::string_view text)
{
    m_inner.warning(text);
    emit({{"event", "warning"}, {"run", runId()}, {"message", std::string(text)}});
}

void EventStream::progress(int done, int total, double secondsLeft)
{
    m_inner.progress(done, total, secondsLeft);
    emit({{"event", "progress"},
          {"run", runId()},
          {"done", done},
          {"total", total},
          {"seconds_left", number(secondsLeft)}});
}

void EventStream::runFinished(engine::RunStatus status, std::string_view reason)
{
    m_inner.runFinished(status, reason);
    emit({{"event", "finished"},
          {"run", runId()},
          {"status", std::string(engine::toString(status))},
          {"reason", std::string(reason)}});
}

void EventStream::error(const std::string& message, int exitStatus)
{
    emit({{"event", "error"}, {"run", runId()}, {"message", message}, {"exit_status", exitStatus}});
}

}  // namespace nf::cli
