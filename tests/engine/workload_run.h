#pragma once
// Runs a workload's variants briefly through the real scheduler, for the workload tests.

#include <gtest/gtest.h>

#include <map>
#include <memory>
#include <string>
#include <vector>

#include "engine/run/run_collector.h"
#include "engine/run/scheduler.h"
#include "engine/workloads/registry.h"

namespace nf::engine::test {

// Two repetitions of short 2 ms chunks with task-clock only; fails the test (and returns nullptr)
// unless the run completes with samples whose ops and TSC ticks are positive.
inline std::unique_ptr<RunCollector> runBriefly(const std::string& workload, std::vector<VariantSpec> variants,
                                                std::map<std::string, std::string> params = {})
{
    ExperimentSpec spec;
    spec.workload = workload;
    spec.variants = std::move(variants);
    spec.params = std::move(params);
    spec.repetitions = 2;
    spec.duration = 0.04;
    spec.warmup = 0.01;
    spec.chunk = 0.002;
    spec.counters = {"task-clock"};
    auto p = prepareExperiment(spec, base::readSystemFacts(), workloads::implementations());
    EXPECT_TRUE(p.ok()) << p.error().message;
    if (!p.ok()) {
        return nullptr;
    }
    auto collector = std::make_unique<RunCollector>();
    const auto outcome = runExperiment(*p, *collector, {});
    EXPECT_EQ(outcome.status, RunStatus::Complete) << outcome.reason;
    EXPECT_EQ(outcome.repetitionsDone, 2);
    EXPECT_FALSE(collector->data().samples.empty());
    for (const auto& s : collector->data().samples.toSamples()) {
        EXPECT_GT(s.values.at(0), 0);  // ops
        EXPECT_GT(s.values.at(1), 0);  // tsc ticks
    }
    if (outcome.status != RunStatus::Complete || collector->data().samples.empty()) {
        return nullptr;
    }
    return collector;
}

}  // namespace nf::engine::test
