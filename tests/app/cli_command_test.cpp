// The command workload end to end: the metric read by regex, a failing command recorded and left
// out with a warning, a timeout, the environment's pad stored and exported per repetition.

#include <gtest/gtest.h>

#include <algorithm>
#include <map>
#include <nlohmann/json.hpp>
#include <set>

#include "tests/app/cli_process.h"

namespace nf::test {
namespace {

class CliCommand : public CliTest {};

TEST_F(CliCommand, MetricByRegexIsComparedLikeAnyMetric)
{
    auto r =
        run({"run", "command", "-p", "metric_regex=took: ([0-9]+) us", "-p", "metric_name=took", "-p", "metric_unit=us",
             "--variant", "a:cmd=echo took: 100 us", "--variant", "b:cmd=echo took: 110 us", "--reps", "3"});
    ASSERT_EQ(r.status, 0) << r.err;
    const auto json = nlohmann::json::parse(run({"compare", "last", "--metric", "took", "--format", "json"}).out);
    const auto& c = json["comparisons"][0];
    EXPECT_EQ(c["metric"], "took");
    EXPECT_NEAR(c["delta_pct"].get<double>(), 10.0, 1e-9);
    const auto csv = run({"export", "last", "--format", "csv"});
    EXPECT_NE(csv.out.find("wall_ns"), std::string::npos);
    EXPECT_NE(csv.out.find("exit_status"), std::string::npos);
}

TEST_F(CliCommand, FailingRepetitionIsRecordedAndLeftOutWithAWarning)
{
    const auto flag = m_dir.file("flag");  // the first repetition succeeds, the others fail
    auto r = run({"run", "command", "-p", "cmd=sh -c 'test -e " + flag + " && exit 3; touch " + flag + "; echo v: 7'",
                  "-p", "metric_regex=v: ([0-9]+)", "--reps", "3"});
    ASSERT_EQ(r.status, 0) << r.err;
    EXPECT_NE(r.err.find("repetition 1 failed: exit status 3; it is recorded (ok=0) and left out"), std::string::npos)
        << r.err;
    const auto show = run({"show", "last", "--format", "json"});
    ASSERT_EQ(show.status, 0) << show.err;
    // The warnings are stored with the run: show and compare say them later.
    const auto warnings = nlohmann::json::parse(show.out)["warnings"];
    ASSERT_EQ(warnings.size(), 2u) << show.out;
    EXPECT_NE(warnings[0].get<std::string>().find("repetition 1 failed: exit status 3"), std::string::npos);
    EXPECT_NE(run({"show", "last"}).out.find("  warning: variant default repetition 2 failed"), std::string::npos);
    const auto csv = run({"export", "last", "--format", "csv"}).out;
    EXPECT_EQ(std::count(csv.begin(), csv.end(), '\n'), 4);  // header and three repetitions, the failed ones too
    const auto json = nlohmann::json::parse(run({"compare", "last", "--format", "json"}).out);
    int seen = 0;
    for (const auto& v : json["variants"]) {
        if (v["metric"] == "metric") {
            EXPECT_EQ(v["n"], 1);  // only the repetition that succeeded
            EXPECT_EQ(v["mean"], 7.0);
            ++seen;
        }
    }
    EXPECT_EQ(seen, 1);
}

TEST_F(CliCommand, TimeoutEndsTheCommand)
{
    auto r = run({"run", "command", "-p", "cmd=sleep 10", "-p", "timeout=0.2", "--reps", "1"});
    ASSERT_EQ(r.status, 0) << r.err;
    EXPECT_NE(r.err.find("timed out after 0.2"), std::string::npos) << r.err;
}

// Each repetition and variant ran with the pad of the placement stored for it (784 * L mod 4096
// bytes), every variant every placement once in 8 repetitions; the analysis is not told of them.
TEST_F(CliCommand, ThePadOfEveryRepetitionIsStoredAndExported)
{
    auto r = run({"run", "command", "--share-cpus", "--seed", "5", "--reps", "8", "-p", "shell=yes", "-p",
                  "metric_regex=pad: ([0-9]+)", "-p", "metric_name=pad", "-p",
                  "cmd=printf 'pad: '; printf %s \"$NOISEFLOOR_LAYOUT_PAD\" | wc -c", "--variant", "a", "--variant",
                  "b:timeout=30"});
    ASSERT_EQ(r.status, 0) << r.err;
    const auto json = nlohmann::json::parse(run({"export", "last", "--format", "json"}).out);
    EXPECT_EQ(json["environment"]["measurement"]["layouts"]["pad_bytes"][1], 784);
    std::map<std::string, std::set<int>> ran;
    ASSERT_EQ(json["samples"].size(), 16u);
    for (const auto& sample : json["samples"]) {
        ASSERT_TRUE(sample["layout"].is_number()) << sample.dump();
        const int layout = sample["layout"];
        ran[sample["variant_name"]].insert(layout);
        EXPECT_EQ(sample["metrics"]["pad"], layout * 784 % 4096) << sample.dump();
    }
    const std::set<int> all{0, 1, 2, 3, 4, 5, 6, 7};
    EXPECT_EQ(ran["a"], all);
    EXPECT_EQ(ran["b"], all);
    const auto csv = run({"export", "last", "--format", "csv"}).out;
    EXPECT_EQ(csv.rfind("run,variant,repetition,sample,pair,layout,", 0), 0u) << csv;
    const auto compared = nlohmann::json::parse(run({"compare", "last", "--format", "json"}).out);
    for (const auto& c : compared["comparisons"]) {
        EXPECT_EQ(c.value("layouts_planned", 0), 0) << c.dump();
    }
}

TEST_F(CliCommand, BadRegexIsRefusedBeforeAnythingRuns)
{
    auto r = run({"run", "command", "-p", "cmd=true", "-p", "metric_regex=(a)(b)"});
    EXPECT_NE(r.status, 0);
    EXPECT_NE(r.err.find("has 2 capture groups; it needs exactly one"), std::string::npos) << r.err;
}

}  // namespace
}  // namespace nf::test
