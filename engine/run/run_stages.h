#pragma once
// What the thread that called runExperiment does with a run's measurements, one piece per concern,
// composed in a list rather than written into one loop: the recorder (the RunObserver), the watch a
// display asked for, the progress (at the plan's rate, or the watch's), and the until-decided
// monitor. Each stored repetition and each batch of samples measured goes to every stage in order;
// no stage knows another. Warnings held until the run is stored are one more small piece.

#include <memory>
#include <string>
#include <vector>

#include "base/result.h"
#include "engine/model/run_data.h"
#include "engine/run/run_watch.h"
#include "engine/run/until_decided.h"

namespace nf::engine {

struct RunOutcome;

// Warnings that arrive before the run is stored (a CPU shared, a thread not pinned) are held and
// said once it is; when it never is, at the end: what went wrong on the way is still said.
class HeldWarnings {
public:
    HeldWarnings(RunObserver& observer, std::vector<std::string> early);
    // Said now once the run is stored, else held.
    void warning(std::string text);
    // Says the held warnings; when the run is `stored`, later ones pass straight through.
    void release(bool stored);

private:
    RunObserver& m_observer;
    std::vector<std::string> m_held;
    bool m_through = false;
};

// How far the run is, said to the observer: variant-repetitions done of those planned, and the
// seconds left.
class Progress {
public:
    Progress(RunObserver& observer, int total) : m_observer(observer), m_total(total) {}
    void count(const RepetitionResult& rep) { m_done += static_cast<int>(rep.variants.size()); }
    // At the pace of `rep`: its seconds per variant for every variant-repetition left.
    double plannedSecondsLeft(const RepetitionResult& rep) const;
    void say(double secondsLeft) { m_observer.progress(m_done, m_total, secondsLeft); }

private:
    RunObserver& m_observer;
    int m_total;
    int m_done = 0;
};

// One piece of what is done with a run's measurements. Called on the thread that called
// runExperiment, once the run is stored, until it ends.
class RunStage {
public:
    virtual ~RunStage() = default;
    // Samples measured so far in a running repetition, a few times a second (its result repeats them).
    virtual void samplesMeasured(int /*repetition*/, const std::vector<Sample>& /*samples*/) {}
    // A finished repetition. An error ends the run failed; the stages after this one do not see it.
    virtual Result<void> repetitionFinished(const RepetitionResult& /*rep*/) { return {}; }
    // Whether the run has measured enough (decided, or out of time): it stops, and what was measured
    // after the repetition that said so is not stored.
    virtual bool enough() const { return false; }
    // The worker ended the run with `outcome` and no stage failed: a stage may say more (the
    // decision) and change the outcome.
    virtual Result<void> runEnded(RunOutcome& /*outcome*/) { return {}; }
};

// Stores each repetition with the observer (the recorder), and counts those it stored.
class RecordStage : public RunStage {
public:
    explicit RecordStage(RunObserver& observer) : m_observer(observer) {}
    Result<void> repetitionFinished(const RepetitionResult& rep) override;
    int stored() const { return m_stored; }

private:
    RunObserver& m_observer;
    int m_stored = 0;
};

// The samples of each running repetition, for a display (WatchObserver::samplesMeasured).
class SamplesStage : public RunStage {
public:
    explicit SamplesStage(WatchObserver& watch) : m_watch(watch) {}
    void samplesMeasured(int repetition, const std::vector<Sample>& samples) override;

private:
    WatchObserver& m_watch;
};

// The difference between the first two variants as it forms (RunWatch), after every batch of
// samples and every repetition: the progress with the watch's estimate of the time left, then the
// look for the display.
class WatchStage : public RunStage {
public:
    WatchStage(const ExperimentSpec& spec, const RunLayout& layout, WatchObserver& watch, Progress& progress);
    void samplesMeasured(int repetition, const std::vector<Sample>& samples) override;
    Result<void> repetitionFinished(const RepetitionResult& rep) override;

private:
    void look();

    RunWatch m_runWatch;
    WatchObserver& m_watch;
    Progress& m_progress;
};

// The progress after every repetition at the pace the plan has gone so far, for a run nobody
// watches the difference of.
class PlanProgressStage : public RunStage {
public:
    explicit PlanProgressStage(Progress& progress) : m_progress(progress) {}
    Result<void> repetitionFinished(const RepetitionResult& rep) override;

private:
    Progress& m_progress;
};

// --until decided: a look after every stored repetition (DecisionMonitor), said to the observer,
// and enough once decided or out of time; at the end the decision and why the run stopped.
class DecisionStage : public RunStage {
public:
    DecisionStage(const ExperimentSpec& spec, const RunLayout& layout, RunObserver& observer);
    Result<void> repetitionFinished(const RepetitionResult& rep) override;
    bool enough() const override { return m_enough; }
    Result<void> runEnded(RunOutcome& outcome) override;

private:
    DecisionMonitor m_monitor;
    RunObserver& m_observer;
    bool m_enough = false;
};

// The stages of one run, in order; each call goes to every stage.
class RunStages {
public:
    void add(std::unique_ptr<RunStage> stage) { m_stages.push_back(std::move(stage)); }
    void samplesMeasured(int repetition, const std::vector<Sample>& samples);
    Result<void> repetitionFinished(const RepetitionResult& rep);  // stops at the first error
    bool enough() const;
    Result<void> runEnded(RunOutcome& outcome);

private:
    std::vector<std::unique_ptr<RunStage>> m_stages;
};

// After `record`: with `watch` the samples to it and, when the run has two variants or more, the
// watch's looks and progress, else the progress at the plan's pace; with spec.until the decision.
RunStages composeStages(const ExperimentSpec& spec, const RunLayout& layout, RunObserver& observer,
                        std::unique_ptr<RecordStage> record, WatchObserver* watch, Progress& progress);

}  // namespace nf::engine
