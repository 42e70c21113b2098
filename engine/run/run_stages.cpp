#include "engine/run/run_stages.h"

#include <utility>

#include "engine/run/scheduler.h"

namespace nf::engine {

HeldWarnings::HeldWarnings(RunObserver& observer, std::vector<std::string> early)
    : m_observer(observer), m_held(std::move(early))
{
}

void HeldWarnings::warning(std::string text)
{
    if (m_through) {
        m_observer.warning(text);
    } else {
        m_held.push_back(std::move(text));
    }
}

void HeldWarnings::release(bool stored)
{
    for (const auto& text : std::exchange(m_held, {})) {
        m_observer.warning(text);
    }
    m_through = stored;
}

double Progress::plannedSecondsLeft(const RepetitionResult& rep) const
{
    const double perVariantRep = (rep.end - rep.start) / static_cast<double>(rep.variants.size());
    return perVariantRep * (m_total - m_done);
}

Result<void> RecordStage::repetitionFinished(const RepetitionResult& rep)
{
    NF_TRY(m_observer.repetitionFinished(rep));
    ++m_stored;
    return {};
}

void SamplesStage::samplesMeasured(int repetition, const std::vector<Sample>& samples)
{
    m_watch.samplesMeasured(repetition, samples);
}

WatchStage::WatchStage(const ExperimentSpec& spec, const RunLayout& layout, WatchObserver& watch, Progress& progress)
    : m_runWatch(spec, layout), m_watch(watch), m_progress(progress)
{
}

void WatchStage::samplesMeasured(int /*repetition*/, const std::vector<Sample>& samples)
{
    m_runWatch.add(samples);
    look();
}

Result<void> WatchStage::repetitionFinished(const RepetitionResult& rep)
{
    m_progress.count(rep);
    m_runWatch.finishRepetition(rep);
    look();
    return {};
}

void WatchStage::look()
{
    const auto look = m_runWatch.look();
    m_progress.say(look.secondsLeft);
    m_watch.watchLook(look);
}

Result<void> PlanProgressStage::repetitionFinished(const RepetitionResult& rep)
{
    m_progress.count(rep);
    m_progress.say(m_progress.plannedSecondsLeft(rep));
    return {};
}

DecisionStage::DecisionStage(const ExperimentSpec& spec, const RunLayout& layout, RunObserver& observer)
    : m_monitor(spec, layout), m_observer(observer)
{
}

Result<void> DecisionStage::repetitionFinished(const RepetitionResult& rep)
{
    const auto look = m_monitor.add(rep);
    NF_TRY(m_observer.decisionLook(look));
    if (m_monitor.shouldStop(look, rep.end - rep.start)) {
        m_enough = true;
    }
    return {};
}

Result<void> DecisionStage::runEnded(RunOutcome& outcome)
{
    if (!m_enough && outcome.status != RunStatus::Complete) {
        return {};  // stopped or failed before a decision: nothing to add
    }
    // Stopped by the decision (or out of time, or the plan ran out): complete, with why.
    const auto record = m_monitor.record(!m_enough);
    outcome = {RunStatus::Complete, record.stopReason, outcome.repetitionsDone};
    return m_observer.decisionMade(record);
}

void RunStages::samplesMeasured(int repetition, const std::vector<Sample>& samples)
{
    for (auto& stage : m_stages) {
        stage->samplesMeasured(repetition, samples);
    }
}

Result<void> RunStages::repetitionFinished(const RepetitionResult& rep)
{
    for (auto& stage : m_stages) {
        NF_TRY(stage->repetitionFinished(rep));
    }
    return {};
}

bool RunStages::enough() const
{
    for (const auto& stage : m_stages) {
        if (stage->enough()) {
            return true;
        }
    }
    return false;
}

Result<void> RunStages::runEnded(RunOutcome& outcome)
{
    for (auto& stage : m_stages) {
        NF_TRY(stage->runEnded(outcome));
    }
    return {};
}

RunStages composeStages(const ExperimentSpec& spec, const RunLayout& layout, RunObserver& observer,
                        std::unique_ptr<RecordStage> record, WatchObserver* watch, Progress& progress)
{
    RunStages stages;
    stages.add(std::move(record));
    if (watch != nullptr) {
        stages.add(std::make_unique<SamplesStage>(*watch));
    }
    if (watch != nullptr && spec.variants.size() >= 2) {
        stages.add(std::make_unique<WatchStage>(spec, layout, *watch, progress));
    } else {
        stages.add(std::make_unique<PlanProgressStage>(progress));
    }
    if (spec.until) {
        stages.add(std::make_unique<DecisionStage>(spec, layout, observer));
    }
    return stages;
}

}  // namespace nf::engine
