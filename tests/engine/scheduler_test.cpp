#include "engine/run/scheduler.h"
#include "engine/workloads/registry.h"

#include <gtest/gtest.h>

#include <algorithm>
#include <chrono>
#include <set>
#include <thread>
#include <variant>

#include "engine/analysis/chunk_cut.h"
#include "engine/run/call_loop_worker.h"
#include "engine/run/run_collector.h"
#include "engine/stats/descriptive.h"

namespace nf::engine {
namespace {

ExperimentSpec spinSpec()
{
    ExperimentSpec spec;
    spec.workload = "spin";
    spec.variants = {{"a", {{"work", "200"}}}, {"b", {{"work", "400"}}}};
    spec.repetitions = 2;
    spec.duration = 0.05;
    spec.warmup = 0.02;
    spec.chunk = 0.002;
    spec.counters = {"task-clock", "context-switches"};
    return spec;
}

std::string prepareError(ExperimentSpec spec)
{
    auto p = prepareExperiment(std::move(spec), base::readSystemFacts(), workloads::implementations());
    return p.ok() ? std::string("(prepared)") : p.error().message;
}

TEST(PrepareExperiment, RejectsBadInputBeforeRunning)
{
    auto spec = spinSpec();
    spec.workload = "nope";
    EXPECT_EQ(prepareError(spec).rfind("unknown workload 'nope' (workloads: spin, ", 0), 0u);
    spec = spinSpec();
    spec.variants[1].overrides["work"] = "0";
    EXPECT_EQ(prepareError(spec), "variant b: work=0: out of range 1..100000000");
    spec = spinSpec();
    spec.params["colour"] = "red";
    // A setting for every variant is reported once, not once per variant.
    EXPECT_EQ(prepareError(spec).rfind("workload spin has no parameter 'colour'", 0), 0u);
    spec = spinSpec();
    spec.cpus = {9999};
    EXPECT_EQ(prepareError(spec).rfind("cpus 9999: no such CPU available", 0), 0u);
    spec = spinSpec();
    spec.counters = {"no-such-counter"};
    EXPECT_EQ(prepareError(spec).rfind("counters: unknown counter 'no-such-counter'", 0), 0u);
}

TEST(PrepareExperiment, FillsInDefaults)
{
    auto spec = spinSpec();
    spec.variants.clear();
    spec.chunk.reset();
    spec.counters.clear();
    auto p = prepareExperiment(spec, base::readSystemFacts(), workloads::implementations());
    ASSERT_TRUE(p.ok()) << p.error().message;
    ASSERT_EQ(p->spec.variants.size(), 1u);
    EXPECT_EQ(p->spec.variants[0].name, "default");
    EXPECT_EQ(*p->spec.chunk, 0.002);
    EXPECT_TRUE(p->spec.seed.has_value());
    EXPECT_EQ(p->spec.counters, probes::defaultEventNames());
    EXPECT_EQ(p->spec.cpus.size(), 1u);
}

TEST(RunExperiment, AlternatesChunksAndMeasuresBothVariants)
{
    auto p = prepareExperiment(spinSpec(), base::readSystemFacts(), workloads::implementations());
    ASSERT_TRUE(p.ok()) << p.error().message;
    RunCollector collector;
    const auto outcome = runExperiment(*p, collector, {});
    ASSERT_EQ(outcome.status, RunStatus::Complete) << outcome.reason;
    EXPECT_EQ(outcome.repetitionsDone, 2);
    const auto& data = collector.data();
    // 0.05 s per variant in 2 ms chunks: 25 rounds of (a, b) per repetition.
    EXPECT_EQ(data.samples.size(), 2u * 2u * 25u);
    std::set<int> pairs;
    for (const auto& s : data.samples.toSamples()) {
        pairs.insert(s.pair);
        EXPECT_GT(s.values.at(0), 0);  // ops
        EXPECT_GT(s.values.at(1), 0);  // tsc ticks
    }
    EXPECT_EQ(pairs.size(), 25u);
    EXPECT_EQ(data.layout.metrics.front().name, "tsc_per_op");
    EXPECT_NE(data.layout.quantityIndex("task-clock"), -1);
    // work=400 costs about twice work=200: a loose bound, this checks the plumbing, not the speed.
    const double a = mean(repetitionValues(data, chunkCut(data), 0, data.layout.metrics.front()));
    const double b = mean(repetitionValues(data, chunkCut(data), 1, data.layout.metrics.front()));
    EXPECT_GT(b / a, 1.5);
    EXPECT_LT(b / a, 2.5);
    const auto& env = collector.start().environment;
    EXPECT_TRUE(env.contains("system"));
    EXPECT_GT(env["tsc"]["hz"].get<double>(), 1e8);
    EXPECT_GT(env["measurement"]["loop_overhead_ticks_per_op"].get<double>(), 0);
}

TEST(RunExperiment, NotAlternatingSamplesEveryInterval)
{
    auto spec = spinSpec();
    spec.chunk = 0;
    spec.interval = 0.01;
    spec.order = Order::Blocked;
    auto p = prepareExperiment(spec, base::readSystemFacts(), workloads::implementations());
    ASSERT_TRUE(p.ok());
    RunCollector collector;
    ASSERT_EQ(runExperiment(*p, collector, {}).status, RunStatus::Complete);
    EXPECT_EQ(collector.repetitions(), 4);  // blocked: one variant per repetition unit
    EXPECT_EQ(collector.data().samples.size(), 2u * 2u * 5u);
    EXPECT_EQ(collector.data().samples.pair(0), -1);
}

// Stops the run once the first repetition is stored, as SIGINT would.
class StopAfterFirst : public RunCollector {
public:
    explicit StopAfterFirst(std::stop_source& stop) : m_stop(stop) {}
    Result<void> repetitionFinished(const RepetitionResult& rep) override
    {
        m_stop.request_stop();
        return RunCollector::repetitionFinished(rep);
    }
    void runFinished(RunStatus status, std::string_view) override { finished = status; }
    std::optional<RunStatus> finished;

private:
    std::stop_source& m_stop;
};

TEST(RunExperiment, StopKeepsFinishedRepetitionsAndAborts)
{
    auto spec = spinSpec();
    spec.repetitions = 50;
    auto p = prepareExperiment(spec, base::readSystemFacts(), workloads::implementations());
    ASSERT_TRUE(p.ok());
    std::stop_source stop;
    StopAfterFirst observer(stop);
    const auto outcome = runExperiment(*p, observer, {stop.get_token(), nullptr, ""});
    EXPECT_EQ(outcome.status, RunStatus::Aborted);
    EXPECT_LE(observer.repetitions(), 2);
    EXPECT_GE(observer.repetitions(), 1);
    EXPECT_EQ(observer.finished, RunStatus::Aborted);
    EXPECT_NE(outcome.reason.find("discarded"), std::string::npos);
}

class FailingStore : public RunCollector {
public:
    Result<void> repetitionFinished(const RepetitionResult&) override { return Error{"disk full"}; }
};

TEST(RunExperiment, StoreErrorFailsTheRun)
{
    auto p = prepareExperiment(spinSpec(), base::readSystemFacts(), workloads::implementations());
    ASSERT_TRUE(p.ok());
    FailingStore observer;
    const auto outcome = runExperiment(*p, observer, {});
    EXPECT_EQ(outcome.status, RunStatus::Failed);
    EXPECT_EQ(outcome.reason, "disk full");
}

}  // namespace
}  // namespace nf::engine

namespace nf::engine {
namespace {

// Keeps the run and what an until-decided run says about its looks and its decision.
class DecisionCollector : public RunCollector {
public:
    Result<void> decisionLook(const DecisionLook& look) override
    {
        looks.push_back(look);
        return {};
    }
    Result<void> decisionMade(const DecisionRecord& r) override
    {
        record = r;
        return {};
    }
    std::vector<DecisionLook> looks;
    std::optional<DecisionRecord> record;
};

// A candidate twice as slow is decided different at the first look; the run ends complete with
// the decision as its reason, and nothing measured after the decision is kept.
TEST(UntilDecided, StopsCompleteOnceDecidedAndKeepsOnlyWhatItLookedAt)
{
    auto spec = spinSpec();
    spec.variants[1].overrides["work"] = "400";
    spec.duration = 0.2;
    spec.shareCpus = true;
    spec.until = UntilDecided{.maxTime = 30, .marginPct = 1, .alpha = 0.05};
    auto p = prepareExperiment(spec, base::readSystemFacts(), workloads::implementations());
    ASSERT_TRUE(p.ok()) << p.error().message;
    EXPECT_EQ(p->spec.repetitions, 76);  // as many as 30 s holds: 30 / (2 x 0.2) + 1
    DecisionCollector collector;
    const auto outcome = runExperiment(*p, collector, {});
    ASSERT_EQ(outcome.status, RunStatus::Complete) << outcome.reason;
    EXPECT_EQ(outcome.reason, "decided: different");
    ASSERT_TRUE(collector.record.has_value());
    EXPECT_EQ(collector.record->decision, "different");
    ASSERT_FALSE(collector.looks.empty());
    EXPECT_EQ(static_cast<int>(collector.looks.size()), collector.repetitions());
    EXPECT_GT(collector.looks.back().lowPct, 50);  // +100%, give or take the machine's noise
}

// Two equal variants with a margin no spread can reach: out of time, inconclusive, complete.
TEST(UntilDecided, MaxTimeEndsItInconclusiveAndComplete)
{
    auto spec = spinSpec();
    spec.variants[1].overrides["work"] = "200";
    spec.duration = 0.1;
    spec.shareCpus = true;
    spec.until = UntilDecided{.maxTime = 0.5, .marginPct = 0.0001, .alpha = 0.05};
    auto p = prepareExperiment(spec, base::readSystemFacts(), workloads::implementations());
    ASSERT_TRUE(p.ok()) << p.error().message;
    DecisionCollector collector;
    const auto outcome = runExperiment(*p, collector, {});
    ASSERT_EQ(outcome.status, RunStatus::Complete) << outcome.reason;
    ASSERT_TRUE(collector.record.has_value());
    EXPECT_EQ(collector.record->decision, "inconclusive");
    EXPECT_EQ(outcome.reason.rfind("max time reached", 0), 0U) << outcome.reason;
    // It stopped at the first look after which another repetition would pass the time (how long a
    // repetition takes depends on the machine's load, so no wall-clock bound here).
    for (std::size_t i = 0; i + 1 < collector.looks.size(); ++i) {
        EXPECT_LT(collector.looks[i].elapsed, 0.5) << "look " << i + 1;
    }
}

}  // namespace
}  // namespace nf::engine

// What the calling thread does with a run's measurements is a list of stages (run_stages.h):
// the recorder, the samples and looks for a display that asked to watch, the progress, the
// decision. These check the list composed for each kind of run, in the order the event stream
// and the database have always seen it.
#include "engine/model/metric.h"
#include "engine/run/run_stages.h"

namespace nf::engine {
namespace {

// A log of what the observer and the watch are told, in order.
class Log : public RunCollector, public WatchObserver {
public:
    Result<void> repetitionFinished(const RepetitionResult& rep) override
    {
        lines.push_back("stored " + std::to_string(rep.index));
        if (failStore) {
            return Error{"disk full"};
        }
        return RunCollector::repetitionFinished(rep);
    }
    void progress(int done, int total, double) override
    {
        lines.push_back("progress " + std::to_string(done) + "/" + std::to_string(total));
    }
    Result<void> decisionLook(const DecisionLook& look) override
    {
        lines.push_back("decision look " + std::to_string(look.look));
        return {};
    }
    Result<void> decisionMade(const DecisionRecord& record) override
    {
        lines.push_back("decided: " + record.stopReason);
        return {};
    }
    void samplesMeasured(int repetition, const std::vector<Sample>& samples) override
    {
        lines.push_back("samples " + std::to_string(repetition) + " x" + std::to_string(samples.size()));
    }
    void watchLook(const WatchLook& look) override { lines.push_back("look " + std::to_string(look.units)); }

    bool failStore = false;
    std::vector<std::string> lines;
};

RunLayout callLoopLayout()
{
    RunLayout l;
    l.quantities = {quantity::kOps, quantity::kTscTicks, quantity::kElapsedNs};
    l.metrics = callLoopMetrics(l.quantities);
    return l;
}

// Repetition `index` of two variants in `pairs` chunk pairs of 10 ms.
RepetitionResult chunks(int index, int pairs)
{
    RepetitionResult rep{index, {0, 1}, 0, 0, {}};
    double t = index * 1.0;
    rep.start = t;
    for (int p = 0; p < pairs; ++p) {
        for (int v = 0; v < 2; ++v) {
            rep.samples.push_back({.variant = v,
                                   .repetition = index,
                                   .index = p,
                                   .pair = p,
                                   .start = t,
                                   .duration = 0.01,
                                   .values = {1000, v == 0 ? 30000.0 : 31000.0, 1e7}});
            t += 0.01;
        }
    }
    rep.end = t;
    return rep;
}

ExperimentSpec twoVariants()
{
    auto spec = spinSpec();
    spec.repetitions = 4;
    return spec;
}

TEST(RunStages, AWatchedRunGetsSamplesThenProgressAndLookAfterEveryBatch)
{
    const auto spec = twoVariants();
    Log log;
    Progress progress(log, 8);
    auto stages = composeStages(spec, callLoopLayout(), log, std::make_unique<RecordStage>(log), &log, progress);
    const auto rep = chunks(0, 3);
    stages.samplesMeasured(0, {rep.samples.begin(), rep.samples.begin() + 4});
    ASSERT_TRUE(stages.repetitionFinished(rep).ok());
    EXPECT_EQ(log.lines, (std::vector<std::string>{"samples 0 x4", "progress 0/8", "look 2", "stored 0", "progress 2/8",
                                                   "look 3"}));
    EXPECT_FALSE(stages.enough());
}

TEST(RunStages, WatchingIsAskedForNotFoundInTheObserver)
{
    const auto spec = twoVariants();
    Log log;  // a WatchObserver too, but not handed over as one
    Progress progress(log, 8);
    auto stages = composeStages(spec, callLoopLayout(), log, std::make_unique<RecordStage>(log), nullptr, progress);
    const auto rep = chunks(0, 3);
    stages.samplesMeasured(0, rep.samples);
    ASSERT_TRUE(stages.repetitionFinished(rep).ok());
    EXPECT_EQ(log.lines, (std::vector<std::string>{"stored 0", "progress 2/8"}));

    // One variant: its samples are watched, but there is no difference to look at.
    auto one = spec;
    one.variants.resize(1);
    Log single;
    Progress alone(single, 4);
    auto watched = composeStages(one, callLoopLayout(), single, std::make_unique<RecordStage>(single), &single, alone);
    RepetitionResult rep0{0, {0}, 0, 0.5, {{.variant = 0, .repetition = 0, .values = {1, 1, 1}}}};
    watched.samplesMeasured(0, rep0.samples);
    ASSERT_TRUE(watched.repetitionFinished(rep0).ok());
    EXPECT_EQ(single.lines, (std::vector<std::string>{"samples 0 x1", "stored 0", "progress 1/4"}));
}

TEST(RunStages, AStoreErrorStopsTheStagesAfterTheRecorder)
{
    auto spec = twoVariants();
    spec.until = UntilDecided{.maxTime = 30, .marginPct = 1, .alpha = 0.05};
    Log log;
    log.failStore = true;
    Progress progress(log, 8);
    auto record = std::make_unique<RecordStage>(log);
    const auto* recorder = record.get();
    auto stages = composeStages(spec, callLoopLayout(), log, std::move(record), &log, progress);
    const auto stored = stages.repetitionFinished(chunks(0, 3));
    ASSERT_FALSE(stored.ok());
    EXPECT_EQ(stored.error().message, "disk full");
    EXPECT_EQ(log.lines, (std::vector<std::string>{"stored 0"}));
    EXPECT_EQ(recorder->stored(), 0);
}

TEST(RunStages, UntilDecidedLooksAfterTheProgressAndSaysTheDecisionAtTheEnd)
{
    auto spec = twoVariants();
    spec.until = UntilDecided{.maxTime = 30, .marginPct = 1, .alpha = 0.05};
    Log log;
    Progress progress(log, 8);
    auto stages = composeStages(spec, callLoopLayout(), log, std::make_unique<RecordStage>(log), nullptr, progress);
    ASSERT_TRUE(stages.repetitionFinished(chunks(0, 3)).ok());
    EXPECT_EQ(log.lines, (std::vector<std::string>{"stored 0", "progress 2/8", "decision look 1"}));

    RunOutcome aborted{RunStatus::Aborted, "stopped during repetition 2 of 4 (discarded; 1 kept)", 1};
    ASSERT_TRUE(stages.runEnded(aborted).ok());
    EXPECT_EQ(aborted.status, RunStatus::Aborted) << "a stop before a decision says nothing of one";
    EXPECT_EQ(log.lines.size(), 3u);

    RunOutcome complete{RunStatus::Complete, "", 1};
    ASSERT_TRUE(stages.runEnded(complete).ok());
    EXPECT_EQ(complete.status, RunStatus::Complete);
    EXPECT_EQ(complete.reason, "the plan's repetitions ran out");
    EXPECT_EQ(complete.repetitionsDone, 1);
    EXPECT_EQ(log.lines.back(), "decided: the plan's repetitions ran out");
}

TEST(HeldWarnings, HeldUntilTheRunIsStoredAndSaidOnce)
{
    Log log;
    HeldWarnings held(log, {"CPU 0 is shared"});
    held.warning("helper thread: cannot pin to CPU 9");
    EXPECT_TRUE(log.warnings().empty());
    held.release(true);
    held.warning("counters multiplexed");
    EXPECT_EQ(log.warnings(), (std::vector<std::string>{"CPU 0 is shared", "helper thread: cannot pin to CPU 9",
                                                        "counters multiplexed"}));

    Log never;  // the run was never stored: said at the end, each once
    HeldWarnings notStored(never, {"CPU 0 is shared"});
    notStored.release(false);
    notStored.warning("variant a: no socket");
    notStored.release(false);
    EXPECT_EQ(never.warnings(), (std::vector<std::string>{"CPU 0 is shared", "variant a: no socket"}));
}

// End to end: a watch handed to runExperiment sees every repetition's look after its progress; the
// same object passed only as the observer is not watched.
TEST(RunExperiment, WatchesOnlyWhenAWatchIsHandedOver)
{
    auto p = prepareExperiment(spinSpec(), base::readSystemFacts(), workloads::implementations());
    ASSERT_TRUE(p.ok()) << p.error().message;
    Log unwatched;
    ASSERT_EQ(runExperiment(*p, unwatched, {}).status, RunStatus::Complete);
    EXPECT_EQ(std::count_if(unwatched.lines.begin(), unwatched.lines.end(),
                            [](const std::string& l) { return l.rfind("look", 0) == 0 || l.rfind("samples", 0) == 0; }),
              0);
    Log watched;
    ASSERT_EQ(runExperiment(*p, watched, {}, &watched).status, RunStatus::Complete);
    const auto& lines = watched.lines;
    for (const char* stored : {"stored 0", "stored 1"}) {
        const auto at = std::find(lines.begin(), lines.end(), stored);
        ASSERT_NE(at, lines.end()) << stored;
        ASSERT_LT(at + 2, lines.end());
        EXPECT_EQ(at[1].rfind("progress ", 0), 0u) << at[1];
        EXPECT_EQ(at[2].rfind("look ", 0), 0u) << at[2];
    }
}

}  // namespace
}  // namespace nf::engine

namespace nf::engine {
namespace {

// A running repetition's samples go to the recording thread every 100 ms when something watches
// the run; unwatched only every 250 ms, for the look for runs joining its CPUs: each send is a
// wakeup on a CPU the run may be measuring.
TEST(PartialSender, SendsLessOftenWhenNothingWatches)
{
    const Sample one{.variant = 0, .repetition = 0, .values = {1, 1, 1}};
    RepetitionResult rep{0, {0}, 0, 0, {one}};
    Channel<WorkerMessage> unwatchedOut;
    Channel<WorkerMessage> watchedOut;
    PartialSender unwatched(unwatchedOut, false);
    PartialSender watched(watchedOut, true);
    std::this_thread::sleep_for(std::chrono::duration<double>(kPartialEverySeconds * 1.5));
    unwatched.offer(0, rep);  // too soon unwatched
    watched.offer(0, rep);
    rep.samples.push_back(one);
    watched.offer(0, rep);  // too soon again
    std::this_thread::sleep_for(std::chrono::duration<double>(kPartialUnwatchedSeconds));
    unwatched.offer(0, rep);
    watched.offer(0, rep);
    for (auto* out : {&unwatchedOut, &watchedOut}) {
        out->push(WorkerDone{});
    }
    // Unwatched: one send, with both samples; watched: the first sample, then the second.
    auto first = unwatchedOut.pop();
    ASSERT_TRUE(std::holds_alternative<WorkerPartial>(first));
    EXPECT_EQ(std::get<WorkerPartial>(first).samples.size(), 2u);
    EXPECT_TRUE(std::holds_alternative<WorkerDone>(unwatchedOut.pop()));
    for (int i = 0; i < 2; ++i) {
        auto partial = watchedOut.pop();
        ASSERT_TRUE(std::holds_alternative<WorkerPartial>(partial)) << i;
        EXPECT_EQ(std::get<WorkerPartial>(partial).samples.size(), 1u) << i;
    }
    EXPECT_TRUE(std::holds_alternative<WorkerDone>(watchedOut.pop()));
}

}  // namespace
}  // namespace nf::engine
