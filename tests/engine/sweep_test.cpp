// Parameter sweeps: parsing, expansion into one spec per point, and the report across points.

#include "engine/model/sweep.h"

#include <gtest/gtest.h>

#include <nlohmann/json.hpp>
#include <sstream>

#include "engine/analysis/analysis.h"
#include "engine/report/sweep_report.h"

namespace nf::engine {
namespace {

TEST(ParseSweep, ParamAndValuesInOrder)
{
    auto s = parseSweep("zero_size_pct=0,0.001,1,50,100");
    ASSERT_TRUE(s.ok()) << s.error().message;
    EXPECT_EQ(s->param, "zero_size_pct");
    EXPECT_EQ(s->values, (std::vector<std::string>{"0", "0.001", "1", "50", "100"}));
    auto one = parseSweep("work=7");
    ASSERT_TRUE(one.ok());
    EXPECT_EQ(one->values.size(), 1u);
}

TEST(ParseSweep, RejectsMalformedNamingTheInput)
{
    for (const char* bad : {"", "work", "=1,2", "work=", "work=1,,2", "work=1,2,", "work=1,1"}) {
        auto s = parseSweep(bad);
        ASSERT_FALSE(s.ok()) << bad;
        EXPECT_NE(s.error().message.find("'" + std::string(bad) + "'"), std::string::npos) << s.error().message;
    }
}

ExperimentSpec pagePoolSpec()
{
    ExperimentSpec spec;
    spec.workload = "page-pool";
    spec.params = {{"sync_size", "64"}};
    spec.variants = {{"late", {{"check", "late"}}}, {"early", {{"check", "early"}}}};
    return spec;
}

TEST(ExpandSweep, OneSpecPerPointWithTheValueForEveryVariant)
{
    const auto specs = expandSweep(pagePoolSpec(), {"zero_size_pct", {"0", "1", "100"}}, "sweep-1");
    ASSERT_EQ(specs.size(), 3u);
    for (int i = 0; i < 3; ++i) {
        const auto& s = specs[static_cast<std::size_t>(i)];
        ASSERT_TRUE(s.sweep.has_value());
        EXPECT_EQ(s.sweep->id, "sweep-1");
        EXPECT_EQ(s.sweep->index, i);
        EXPECT_EQ(s.sweep->points, 3);
        EXPECT_EQ(s.params.at("zero_size_pct"), s.sweep->value);
        EXPECT_EQ(s.params.at("sync_size"), "64");
        EXPECT_EQ(s.variants.size(), 2u);
    }
    EXPECT_EQ(specs[2].sweep->value, "100");
}

TEST(ExpandSweep, PointSurvivesTheSpecJson)
{
    const auto specs = expandSweep(pagePoolSpec(), {"zero_size_pct", {"0", "100"}}, "sweep-2");
    auto back = experimentSpecFromJson(toJson(specs[1]));
    ASSERT_TRUE(back.ok()) << back.error().message;
    ASSERT_TRUE(back->sweep.has_value());
    EXPECT_EQ(back->sweep->value, "100");
    EXPECT_EQ(back->sweep->index, 1);
    EXPECT_EQ(toJson(*back), toJson(specs[1]));
    EXPECT_NEAR(std::stod(newSweepId().substr(0, 4)), 2026, 100);  // starts with the year
}

// Two variants, 8 repetitions each; the candidate's level is `factor` times the baseline's.
SweepPointResult point(const std::string& value, double factor)
{
    AnalysisInput in;
    in.variants = {"a", "b"};
    MetricSpec metric;
    metric.name = "tsc_per_op";
    metric.unit = "ticks/op";
    metric.numerator = "tsc_ticks";
    metric.denominator = "ops";
    in.metrics = {metric};
    std::vector<double> a;
    std::vector<double> b;
    for (int i = 0; i < 8; ++i) {
        const double noise = 1 + 0.001 * ((i * 7) % 5 - 2);
        a.push_back(100 * noise);
        b.push_back(100 * factor * noise);
    }
    in.repetitions = {{a, b}};
    auto analysis = analyze(in, {});
    EXPECT_TRUE(analysis.ok());
    return {value, 10 + static_cast<std::int64_t>(factor * 10), *analysis};
}

TEST(SweepReport, OneRowPerPointAndVariantWithTheVerdict)
{
    CompareOptions margin2;
    margin2.marginPct = 2.0;
    SweepReport r{"s",
                  "page-pool",
                  "zero_size_pct",
                  "tsc_per_op",
                  {point("0", 1.0), point("100", 0.6)},
                  {"50 (run 9 aborted)"},
                  margin2,
                  ""};
    std::ostringstream compact;
    writeSweepText(r, compact);
    EXPECT_NE(compact.str().find("different\n"), std::string::npos) << compact.str();
    std::ostringstream text;
    writeSweepText(r, text, true);  // --verbose: the full table
    EXPECT_NE(text.str().find("Sweep of zero_size_pct (page-pool, 2 points), metric tsc_per_op"), std::string::npos)
        << text.str();
    EXPECT_NE(text.str().find("-40.00%"), std::string::npos) << text.str();
    EXPECT_NE(text.str().find("different: faster"), std::string::npos) << text.str();
    EXPECT_NE(text.str().find("equivalent"), std::string::npos) << text.str();
    EXPECT_NE(text.str().find("not compared: zero_size_pct=50 (run 9 aborted)"), std::string::npos);

    const auto json = sweepJson(r);
    ASSERT_EQ(json["points"].size(), 2u);
    EXPECT_EQ(json["points"][1]["value"], "100");
    EXPECT_EQ(json["points"][1]["variants"][1]["verdict"], "different");
    EXPECT_NEAR(json["points"][1]["variants"][1]["delta_pct"].get<double>(), -40.0, 0.01);
    EXPECT_FALSE(json["points"][0]["variants"][0].contains("verdict"));  // the baseline
    // The margin and both intervals a verdict is judged by: the 1 - 2 alpha one inside the other.
    EXPECT_EQ(json["margin_pct"].get<double>(), 2.0);
    EXPECT_EQ(json["alpha"].get<double>(), 0.05);
    const auto& c = json["points"][1]["variants"][1];
    EXPECT_GE(c["tost_low_pct"].get<double>(), c["ci_low_pct"].get<double>());
    EXPECT_LE(c["tost_high_pct"].get<double>(), c["ci_high_pct"].get<double>());
    EXPECT_LT(c["tost_level"].get<double>(), c["ci_level"].get<double>());

    std::ostringstream csv;
    writeSweepCsv(r, csv);
    std::istringstream lines(csv.str());
    std::string line;
    int rows = 0;
    while (std::getline(lines, line)) {
        ++rows;
    }
    EXPECT_EQ(rows, 1 + 4);  // header, 2 points x 2 variants
}

}  // namespace
}  // namespace nf::engine

namespace nf::engine {
namespace {

// A sweep stopped during its second of three points: the aborted point and the one never run are
// named, and the title counts the points against the plan.
TEST(SweepReport, AStoppedSweepNamesThePointsItNeverRan)
{
    std::vector<RunRow> rows(2);
    for (int i = 0; i < 2; ++i) {
        auto& row = rows[static_cast<std::size_t>(i)];
        row.id = i + 1;
        row.workload = "page-pool";
        row.status = RunStatus::Aborted;
        row.sweepId = "s1";
        row.sweepParam = "zero_size_pct";
        row.sweepValue = i == 0 ? "0" : "50";
        row.sweepIndex = i;
        row.sweepPoints = 3;
    }
    const auto report =
        compareSweep("s1", rows, [](std::int64_t) -> Result<RunRecord> { return Error{"not loaded"}; }, {}, {});
    ASSERT_TRUE(report) << report.error().message;
    EXPECT_EQ(report->planned, 3);
    ASSERT_EQ(report->missing.size(), 3u);
    EXPECT_EQ(report->missing[1], "50 (run 2 aborted)");
    EXPECT_EQ(report->missing[2], "point 3 of 3 (not run)");
    std::ostringstream text;
    writeSweepText(*report, text);
    EXPECT_NE(text.str().find("0 of 3 points"), std::string::npos) << text.str();
}

}  // namespace
}  // namespace nf::engine
