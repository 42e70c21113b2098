#include "engine/model/experiment_spec.h"

#include <gtest/gtest.h>

#include <cmath>
#include <nlohmann/json.hpp>

namespace nf::engine {
namespace {

TEST(ParseVariant, NameAlone)
{
    auto v = parseVariant("base");
    ASSERT_TRUE(v.ok());
    EXPECT_EQ(v->name, "base");
    EXPECT_TRUE(v->overrides.empty());
}

TEST(ParseVariant, NameAndOverrides)
{
    auto v = parseVariant("b:work=1000,check=early");
    ASSERT_TRUE(v.ok()) << v.error().message;
    EXPECT_EQ(v->name, "b");
    EXPECT_EQ(v->overrides.at("work"), "1000");
    EXPECT_EQ(v->overrides.at("check"), "early");
}

TEST(ParseVariant, RejectsMalformed)
{
    for (const char* bad : {"", ":work=1", "b:", "b:work", "b:work=1,", "b:work=1,work=2", "a b", "b:=3"}) {
        EXPECT_FALSE(parseVariant(bad).ok()) << bad;
    }
}

TEST(ExperimentSpec, JsonRoundTrip)
{
    ExperimentSpec spec;
    spec.workload = "spin";
    spec.params = {{"work", "10"}};
    spec.variants = {{"a", {}}, {"b", {{"work", "20"}}}};
    spec.repetitions = 7;
    spec.duration = 0.25;
    spec.chunk = 0.004;
    spec.cpus = {1};
    spec.counters = {"task-clock"};
    spec.order = Order::Random;
    spec.seed = 42;
    spec.label = "x";
    auto back = experimentSpecFromJson(toJson(spec));
    ASSERT_TRUE(back.ok()) << back.error().message;
    EXPECT_EQ(toJson(*back), toJson(spec));
    EXPECT_FALSE(toJson(spec).contains("housekeeping"));  // written only when given

    spec.housekeeping = {0, 2};
    back = experimentSpecFromJson(toJson(spec));
    ASSERT_TRUE(back.ok()) << back.error().message;
    EXPECT_EQ(back->housekeeping, (std::vector<int>{0, 2}));
    auto bad = toJson(spec);
    bad["housekeeping"] = "0-1";
    EXPECT_EQ(experimentSpecFromJson(bad).error().message,
              "experiment spec: housekeeping \"0-1\": expected a list of CPU numbers");

    EXPECT_FALSE(toJson(spec).contains("setups"));  // written only when given: older runs read as before
    spec.setups = 20;
    back = experimentSpecFromJson(toJson(spec));
    ASSERT_TRUE(back.ok()) << back.error().message;
    EXPECT_EQ(back->setups, 20);
    bad = toJson(spec);
    bad["setups"] = "many";
    EXPECT_FALSE(experimentSpecFromJson(bad).ok());
}

// --counters-mode: stored with the run as given or resolved; unset is written as null and reads back
// unset; a spec stored before the field existed (no key at all) reads back as all, the user and
// kernel mode every run counted then.
TEST(ExperimentSpec, CountersModeRoundTripsAndOldSpecsReadAsUserAndKernel)
{
    ExperimentSpec spec;
    spec.workload = "spin";
    spec.variants = {{"a", {}}};
    for (const auto mode : {CountersMode::User, CountersMode::All}) {
        spec.countersMode = mode;
        auto back = experimentSpecFromJson(toJson(spec));
        ASSERT_TRUE(back.ok()) << back.error().message;
        EXPECT_EQ(back->countersMode, mode);
        EXPECT_EQ(toJson(*back)["counters_mode"], toString(mode));
    }
    spec.countersMode.reset();
    auto unset = experimentSpecFromJson(toJson(spec));
    ASSERT_TRUE(unset.ok());
    EXPECT_FALSE(unset->countersMode.has_value());

    auto old = toJson(spec);
    old.erase("counters_mode");
    auto before = experimentSpecFromJson(old);
    ASSERT_TRUE(before.ok()) << before.error().message;
    EXPECT_EQ(before->countersMode, CountersMode::All);

    old["counters_mode"] = "kernel";
    EXPECT_EQ(experimentSpecFromJson(old).error().message,
              "experiment spec: counters_mode 'kernel': expected user (user mode only) or all (user and kernel mode)");
    old["counters_mode"] = 1;
    EXPECT_FALSE(experimentSpecFromJson(old).ok());
}

TEST(ParseCountersMode, KnownNamesOnly)
{
    EXPECT_EQ(parseCountersMode("user").value(), CountersMode::User);
    EXPECT_EQ(parseCountersMode("all").value(), CountersMode::All);
    EXPECT_FALSE(parseCountersMode("User").ok());
    EXPECT_FALSE(parseCountersMode("").ok());
    EXPECT_EQ(describe(CountersMode::User), "user mode (kernel excluded)");
    EXPECT_EQ(describe(CountersMode::All), "user and kernel mode");
}

// Found by tests/fuzz/experiment_json_fuzz.cpp: integers out of range were cast (1e300 is
// undefined behaviour, 4294967297 became 1 repetition); now they are errors naming the field.
TEST(ExperimentSpec, JsonIntegersOutOfRangeAreErrors)
{
    const auto spec = [](const std::string& fields) {
        return experimentSpecFromJson(
            nlohmann::json::parse(R"({"workload":"spin","variants":[{"name":"a"}],)" + fields + "}"));
    };
    for (const char* bad : {R"("repetitions":1e300)", R"("repetitions":4294967297)", R"("repetitions":2.5)",
                            R"("seed":-1)", R"("cpus":[1e10])", R"("cpus":3)",
                            R"("sweep":{"id":"s","param":"work","value":"1","index":1e10,"points":2})"}) {
        auto r = spec(bad);
        ASSERT_FALSE(r.ok()) << bad;
        const std::string field = std::string(bad).substr(1, std::string(bad).find('"', 1) - 1);
        EXPECT_NE(r.error().message.find(field), std::string::npos) << r.error().message;
    }
    auto whole = spec(R"("repetitions":5.0,"seed":18446744073709551615,"cpus":[0,3])");
    ASSERT_TRUE(whole.ok()) << whole.error().message;
    EXPECT_EQ(whole->repetitions, 5);
    EXPECT_EQ(*whole->seed, 18446744073709551615ULL);
    EXPECT_EQ(whole->cpus, (std::vector<int>{0, 3}));
    EXPECT_FALSE(experimentSpecFromJson(nlohmann::json::array()).ok());
}

TEST(ParseOrder, KnownNamesOnly)
{
    EXPECT_EQ(*parseOrder("blocked"), Order::Blocked);
    EXPECT_FALSE(parseOrder("sideways").ok());
}

}  // namespace
}  // namespace nf::engine

namespace nf::engine {
namespace {

TEST(ExperimentSpecUntil, RoundTripsAndRefusesBadValues)
{
    ExperimentSpec spec;
    spec.workload = "spin";
    spec.variants = {{"a", {}}, {"b", {}}};
    EXPECT_FALSE(toJson(spec).contains("until"));  // written only when set
    spec.until = UntilDecided{.maxTime = 42, .marginPct = 0.5, .alpha = 0.01};
    auto back = experimentSpecFromJson(toJson(spec));
    ASSERT_TRUE(back.ok()) << back.error().message;
    ASSERT_TRUE(back->until.has_value());
    EXPECT_EQ(back->until->maxTime, 42);
    EXPECT_EQ(back->until->marginPct, 0.5);
    EXPECT_EQ(back->until->alpha, 0.01);

    auto j = toJson(spec);
    j["until"] = "soon";
    EXPECT_EQ(experimentSpecFromJson(j).error().message, "experiment spec: until \"soon\": expected \"decided\"");
    j = toJson(spec);
    j["max_time"] = "ten";
    EXPECT_EQ(experimentSpecFromJson(j).error().message, "experiment spec: max_time \"ten\": expected a number");
    j = toJson(spec);
    j.erase("until");
    EXPECT_EQ(experimentSpecFromJson(j).error().message, "experiment spec: max_time: only with \"until\": \"decided\"");
}

}  // namespace
}  // namespace nf::engine
