#include "engine/workloads/indirect_call.h"
#include "engine/catalog/workload_catalog.h"

#include <gtest/gtest.h>

#include <map>
#include <string>

#include "tests/engine/workload_run.h"

namespace nf::engine {
namespace {

using workloads::CallKind;
namespace ic = workloads::indirect_call;

std::string factValue(const CallLoop& loop, const std::string& key)
{
    for (const auto& [k, v] : loop.facts()) {
        if (k == key) {
            return v;
        }
    }
    return "(missing)";
}

TEST(IndirectCall, IsRegistered)
{
    const WorkloadDescriptor* info = findWorkload("indirect-call");
    ASSERT_NE(info, nullptr);
    EXPECT_EQ(info->primaryMetric, "tsc_per_op");
    ASSERT_EQ(info->params.size(), 2u);
    EXPECT_EQ(info->params[0].name, "call");
    EXPECT_EQ(info->params[0].defaultValue, "indirect");
    EXPECT_EQ(info->params[1].name, "work");
    EXPECT_EQ(info->params[1].defaultValue, "4");
}

TEST(IndirectCall, EveryKindCallsTheCalleeOncePerCall)
{
    for (CallKind kind : {CallKind::Direct, CallKind::Indirect, CallKind::Retpoline}) {
        if (kind == CallKind::Retpoline && !ic::retpolineThunkInUse()) {
            continue;
        }
        for (std::uint64_t work : {0u, 4u, 100u}) {
            auto loop = ic::makeIndirectCallLoop(kind, work);
            ASSERT_TRUE(loop.ok()) << loop.error().message;
            EXPECT_EQ((*loop)->calleeCalls(), 0u);
            (*loop)->run(1000);
            EXPECT_EQ((*loop)->calleeCalls(), 1000u);
            (*loop)->run(0);
            (*loop)->run(7);
            EXPECT_EQ((*loop)->calleeCalls(), 1007u);
        }
    }
}

TEST(IndirectCall, LoopFunctionsCallThroughTheStructPointer)
{
    // A different callback in the struct is what the indirect loops call; the direct loop ignores it.
    static int others = 0;
    ic::Sock sk;
    sk.dataReady = [](ic::Sock*) { ++others; };
    ic::runIndirect(&sk, 5);
    EXPECT_EQ(others, 5);
    ic::runRetpoline(&sk, 3);
    EXPECT_EQ(others, 8);
    ic::runDirect(&sk, 2);
    EXPECT_EQ(others, 8);
    EXPECT_EQ(sk.readableCalls, 2u);
}

TEST(IndirectCall, MakeThroughRegistryAndFacts)
{
    const WorkloadDescriptor* info = findWorkload("indirect-call");
    ASSERT_NE(info, nullptr);
    for (const std::string call : {"direct", "indirect", "retpoline"}) {
        const std::map<std::string, std::string> overrides{{"call", call}};
        auto params = ParamSet::resolve(info->params, {&overrides}, info->name);
        ASSERT_TRUE(params.ok()) << params.error().message;
        auto loop = workloads::makeIndirectCall(*params);
        if (call == "retpoline" && !ic::retpolineThunkInUse()) {
            ASSERT_FALSE(loop.ok());
            EXPECT_NE(loop.error().message.find("call=retpoline"), std::string::npos);
            continue;
        }
        ASSERT_TRUE(loop.ok()) << loop.error().message;
        (*loop)->run(100);
        EXPECT_EQ(factValue(**loop, "call"), call);
        EXPECT_EQ(factValue(**loop, "retpoline_thunk"), call == "retpoline" ? "yes" : "no");
    }
}

TEST(IndirectCall, ParametersAreValidated)
{
    const WorkloadDescriptor* info = findWorkload("indirect-call");
    ASSERT_NE(info, nullptr);
    auto resolve = [&](const std::map<std::string, std::string>& overrides) {
        return ParamSet::resolve(info->params, {&overrides}, info->name);
    };
    auto defaults = resolve({});
    ASSERT_TRUE(defaults.ok()) << defaults.error().message;
    EXPECT_EQ(defaults->text("call"), "indirect");
    EXPECT_EQ(defaults->integer("work"), 4);
    EXPECT_TRUE(resolve({{"work", "0"}}).ok());
    EXPECT_TRUE(resolve({{"work", "10000"}}).ok());

    auto jump = resolve({{"call", "jump"}});
    ASSERT_FALSE(jump.ok());
    EXPECT_NE(jump.error().message.find("call=jump"), std::string::npos) << jump.error().message;
    EXPECT_NE(jump.error().message.find("direct|indirect|retpoline"), std::string::npos) << jump.error().message;
    auto negative = resolve({{"work", "-1"}});
    ASSERT_FALSE(negative.ok());
    EXPECT_NE(negative.error().message.find("work=-1"), std::string::npos) << negative.error().message;
    EXPECT_FALSE(resolve({{"work", "10001"}}).ok());
}

TEST(IndirectCall, RunsThreeVariantsThroughTheScheduler)
{
    std::vector<VariantSpec> variants = {{"direct", {{"call", "direct"}}}, {"indirect", {{"call", "indirect"}}}};
    if (ic::retpolineThunkInUse()) {
        variants.push_back({"retpoline", {{"call", "retpoline"}}});
    }
    const auto run = test::runBriefly("indirect-call", variants);
    ASSERT_NE(run, nullptr);
    const auto& collector = *run;
    std::map<int, int> perVariant;
    for (const auto& s : collector.data().samples.toSamples()) {
        ++perVariant[s.variant];
    }
    EXPECT_EQ(perVariant.size(), variants.size());
    // Each variant's own facts are recorded with the run.
    const auto& facts = collector.start().environment["measurement"]["variant_facts"];
    EXPECT_EQ(facts["direct"]["call"], "direct");
    EXPECT_EQ(facts["indirect"]["call"], "indirect");
}

}  // namespace
}  // namespace nf::engine
