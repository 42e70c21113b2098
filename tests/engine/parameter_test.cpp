#include "engine/model/parameter.h"

#include <gtest/gtest.h>

namespace nf::engine {
namespace {

const std::vector<ParamSpec> kSpecs = {
    {"work", ParamType::Int, "1000", "ops per call", 1, 1000000, {}, ""},
    {"pct", ParamType::Real, "0", "share", 0, 100, {}, "%"},
    {"check", ParamType::Choice, "late", "where", 0, 0, {"late", "early"}, ""},
};

TEST(ParamSet, DefaultsThenLayersInOrder)
{
    const std::map<std::string, std::string> all = {{"work", "10"}, {"pct", "0.001"}};
    const std::map<std::string, std::string> variant = {{"work", "20"}, {"check", "early"}};
    auto set = ParamSet::resolve(kSpecs, {&all, &variant}, "w");
    ASSERT_TRUE(set.ok()) << set.error().message;
    EXPECT_EQ(set->integer("work"), 20);
    EXPECT_DOUBLE_EQ(set->real("pct"), 0.001);
    EXPECT_EQ(set->text("check"), "early");
    EXPECT_EQ(set->all().at("work"), "20");
}

TEST(ParamSet, ErrorsNameTheParameterAndValue)
{
    auto check = [](std::map<std::string, std::string> layer) {
        auto set = ParamSet::resolve(kSpecs, {&layer}, "w");
        EXPECT_FALSE(set.ok());
        return set.ok() ? std::string() : set.error().message;
    };
    EXPECT_EQ(check({{"work", "0"}}), "work=0: out of range 1..1000000");
    EXPECT_EQ(check({{"work", "12x"}}), "work=12x: not an integer");
    EXPECT_EQ(check({{"work", "1.5"}}), "work=1.5: not an integer");
    EXPECT_EQ(check({{"work", ""}}), "work=: not an integer");
    EXPECT_EQ(check({{"pct", "nan"}}), "pct=nan: not a number");
    EXPECT_EQ(check({{"pct", "100.5"}}), "pct=100.5: out of range 0..100");
    EXPECT_EQ(check({{"check", "soon"}}), "check=soon: not one of late|early");
    EXPECT_EQ(check({{"size", "64"}}), "workload w has no parameter 'size' (parameters: work, pct, check)");
}

TEST(ParseAssignment, NeedsBothSides)
{
    auto ok = parseAssignment("work=5");
    ASSERT_TRUE(ok.ok());
    EXPECT_EQ(ok->first, "work");
    EXPECT_EQ(ok->second, "5");
    EXPECT_FALSE(parseAssignment("work").ok());
    EXPECT_FALSE(parseAssignment("=5").ok());
    EXPECT_FALSE(parseAssignment("work=").ok());
}

}  // namespace
}  // namespace nf::engine
