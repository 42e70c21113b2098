#include "engine/run/scheduler.h"
#include "engine/workloads/registry.h"

#include <gtest/gtest.h>

#include <set>

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
    const double a = mean(data.repetitionValues(0, data.layout.metrics.front()));
    const double b = mean(data.repetitionValues(1, data.layout.metrics.front()));
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
