// End-to-end tests of compare, stat and calibrate: the evidence a reviewer reads.

#include <gtest/gtest.h>

#include <csignal>

#include <algorithm>
#include <fstream>
#include <nlohmann/json.hpp>
#include <sstream>

#include "tests/app/cli_process.h"

namespace nf::test {
namespace {

class CliCompare : public CliTest {
protected:
    std::string writeFile(const std::string& name, const std::string& text)
    {
        std::ofstream(m_dir.file(name)) << text;
        return m_dir.file(name);
    }
};

TEST_F(CliCompare, RunEndsWithTheComparisonAndCompareRepeatsItWithinSeventyTwoColumns)
{
    const auto r = run({"run", "spin", "--variant", "a:work=400", "--variant", "b:work=800", "--reps", "3",
                        "--duration", "0.1", "--warmup", "0.05"});
    ASSERT_EQ(r.status, 0) << r.err;
    // The compact report: the primary metric's line ends with the verdict word. Its name is
    // tsc_per_op, or tsc/op when the figures leave too few columns for the long one.
    const auto row = r.out.find("\n* tsc");
    ASSERT_NE(row, std::string::npos) << r.out;
    EXPECT_NE(r.out.substr(row, r.out.find('\n', row + 1) - row).find(" different"), std::string::npos) << r.out;
    EXPECT_NE(r.out.find("design: paired"), std::string::npos) << r.out;
    for (const bool verbose : {false, true}) {
        const auto text = run(verbose ? std::vector<std::string>{"compare", "last", "--verbose"}
                                      : std::vector<std::string>{"compare", "last"});
        ASSERT_EQ(text.status, 0) << text.err;
        std::istringstream lines(text.out);
        std::string line;
        while (std::getline(lines, line)) {
            EXPECT_LE(line.size(), 72u) << line;
        }
        EXPECT_NE(text.out.find("$ noisefloor --db"), std::string::npos);  // the command line
        if (verbose) {  // every detail: the design, the verdict sentence
            EXPECT_NE(text.out.find("paired design"), std::string::npos) << text.out;
            EXPECT_NE(text.out.find("verdict: b is "), std::string::npos) << text.out;
            EXPECT_NE(text.out.find("slower than a"), std::string::npos) << text.out;
        } else {
            // Compact: under 25 lines besides the warnings, which are whole (wrapped, never cut with
            // "..."): on this VM a run carries up to four (chunks left out, drift of each variant,
            // no PMU).
            std::istringstream all(text.out);
            int facts = 0;
            bool inWarning = false;
            for (std::string l; std::getline(all, l);) {
                inWarning = l.starts_with("! ") || (inWarning && l.starts_with("  "));
                facts += inWarning ? 0 : 1;
            }
            EXPECT_LT(facts, 25) << text.out;
            EXPECT_EQ(text.out.find("..."), std::string::npos) << text.out;
        }
    }

    const auto json = nlohmann::json::parse(run({"compare", "1", "--format", "json"}).out);
    EXPECT_EQ(json["schema_version"], 1);
    const auto& c = json["comparisons"][0];
    EXPECT_EQ(c["design"], "paired");
    EXPECT_EQ(c["verdict"], "different");
    EXPECT_NEAR(c["delta_pct"].get<double>(), 100.0, 10.0);
    EXPECT_TRUE(c.contains("p_wilcoxon"));
    EXPECT_TRUE(c.contains("n_needed"));
    const auto csv = run({"compare", "1", "--format", "csv"});
    EXPECT_EQ(csv.out.rfind("metric,design,primary,baseline,candidate,", 0), 0u);
}

// A run that ran until decided: compare puts its sequential decision in the compact header, with
// the method, and the verbose report keeps the full block; the JSON carries it as "sequential".
TEST_F(CliCompare, AnUntilDecidedRunShowsItsSequentialDecisionByDefault)
{
    const auto r = run({"run", "spin", "--variant", "a:work=400", "--variant", "b:work=800", "--until", "decided",
                        "--max-time", "20", "--duration", "0.2", "--warmup", "0.05"});
    ASSERT_EQ(r.status, 0) << r.err;
    const auto text = run({"compare", "last"});
    ASSERT_EQ(text.status, 0) << text.err;
    EXPECT_NE(text.out.find("until decided: different on tsc_per_op"), std::string::npos) << text.out;
    EXPECT_NE(text.out.find("  margin +-1%; confidence sequence (normal mixture"), std::string::npos) << text.out;
    EXPECT_NE(text.out.find("fixed-n analysis of the same data"), std::string::npos) << text.out;
    std::istringstream lines(text.out);
    std::string line;
    while (std::getline(lines, line)) {
        EXPECT_LE(line.size(), 72u) << line;
    }
    const auto verbose = run({"compare", "last", "--verbose"});
    EXPECT_NE(verbose.out.find("Until decided (the run's own verdict"), std::string::npos) << verbose.out;
    const auto json = nlohmann::json::parse(run({"compare", "last", "--format", "json"}).out);
    EXPECT_EQ(json["sequential"]["decision"], "different");
}

// An until-decided run stopped before it decided has no decision row; compare still uses the
// margin and alpha it ran with, not the defaults (+-1%, 0.05). The variants are the same code and
// the margin too narrow to show equivalence in a few repetitions, so the run is still undecided
// when it is stopped.
TEST_F(CliCompare, AnAbortedUntilDecidedRunIsComparedWithItsOwnMargin)
{
    CliProcess p({"--db",        m_dir.file("runs.db"),
                  "run",         "spin",
                  "--variant",   "a",
                  "--variant",   "b",
                  "--until",     "decided",
                  "--margin",    "0.001",
                  "--alpha",     "0.01",
                  "--max-time",  "120",
                  "--duration",  "0.1",
                  "--warmup",    "0",
                  "--share-cpus"},
                 m_dir);
    ASSERT_TRUE(waitForRepetitions(3));
    ::kill(p.pid(), SIGTERM);
    ASSERT_EQ(p.wait().status, 143);
    const auto r = run({"compare", "last", "--format", "json"});
    ASSERT_EQ(r.status, 0) << r.err;
    const auto j = nlohmann::json::parse(r.out);
    EXPECT_EQ(j["options"]["margin_pct"], 0.001) << r.out;
    EXPECT_EQ(j["options"]["alpha"], 0.01) << r.out;
    const auto given = nlohmann::json::parse(run({"compare", "last", "--format", "json", "--margin", "2"}).out);
    EXPECT_EQ(given["options"]["margin_pct"], 2.0);
}

TEST_F(CliCompare, AcrossRunsByLabelIsIndependent)
{
    ASSERT_EQ(run({"run", "spin", "--reps", "3", "--duration", "0.05", "--warmup", "0", "--label", "vanilla"}).status,
              0);
    ASSERT_EQ(run({"run", "spin", "-p", "work=1100", "--reps", "3", "--duration", "0.05", "--warmup", "0", "--label",
                   "patched"})
                  .status,
              0);
    const auto r = run({"compare", "--label", "vanilla", "--label", "patched", "--format", "json"});
    ASSERT_EQ(r.status, 0) << r.err;
    const auto j = nlohmann::json::parse(r.out);
    const auto& c = j["comparisons"][0];
    EXPECT_EQ(c["design"], "independent");
    EXPECT_EQ(c["baseline"], "vanilla");
    EXPECT_EQ(c["candidate"], "patched");
    EXPECT_TRUE(c.contains("p_welch"));
    EXPECT_TRUE(c.contains("p_mwu"));
    const auto byId = run({"compare", "1:default", "2:default", "--format", "json"});
    ASSERT_EQ(byId.status, 0) << byId.err;
    EXPECT_EQ(nlohmann::json::parse(byId.out)["comparisons"][0]["design"], "independent");
}

// Two variants chosen of a run of three keep the run's design: the chunk pairs of those two, the
// same figures as the run's own comparison of them (not two runs' independent repetitions).
TEST_F(CliCompare, VariantsOfOneRunKeepItsDesignWhicheverAreChosen)
{
    ASSERT_EQ(run({"run", "spin", "--variant", "direct:work=400", "--variant", "indirect:work=440", "--variant",
                   "retpoline:work=480", "--reps", "2", "--duration", "0.1", "--warmup", "0", "--share-cpus"})
                  .status,
              0);
    const auto all = run({"compare", "1", "--format", "json"});
    ASSERT_EQ(all.status, 0) << all.err;
    const auto allJson = nlohmann::json::parse(all.out);
    nlohmann::json whole;
    for (const auto& c : allJson["comparisons"]) {
        if (c["primary"].get<bool>() && c["primary_metric"].get<bool>() && c["candidate"] == "indirect") {
            whole = c;
        }
    }
    ASSERT_TRUE(whole.is_object()) << all.out;
    const auto two = run({"compare", "1:direct", "1:indirect", "--format", "json"});
    ASSERT_EQ(two.status, 0) << two.err;
    const auto c = nlohmann::json::parse(two.out)["comparisons"][0];
    EXPECT_EQ(c["design"], "paired") << two.out;
    EXPECT_EQ(c["baseline"], "direct");
    EXPECT_EQ(c["candidate"], "indirect");
    EXPECT_EQ(c["n"], whole["n"]);
    EXPECT_DOUBLE_EQ(c["delta_pct"].get<double>(), whole["delta_pct"].get<double>());
    EXPECT_DOUBLE_EQ(c["ci_low_pct"].get<double>(), whole["ci_low_pct"].get<double>());
    const auto text = run({"compare", "1:direct", "1:indirect"});
    EXPECT_EQ(text.out.find("run-to-run calibration"), std::string::npos) << text.out;
    // The report says which variants it compares and which it leaves out, in both texts.
    for (const auto* verbose : {"", "--verbose"}) {
        std::vector<std::string> args = {"compare", "1:direct", "1:indirect"};
        if (*verbose != 0) {
            args.emplace_back(verbose);
        }
        EXPECT_NE(run(args).out.find("variants direct, indirect of the run's 3 (retpoline left out)"),
                  std::string::npos)
            << verbose;
    }
    // In the order chosen: the first is the baseline.
    const auto swapped = run({"compare", "1:indirect", "1:direct", "--format", "json"});
    ASSERT_EQ(swapped.status, 0) << swapped.err;
    EXPECT_EQ(nlohmann::json::parse(swapped.out)["comparisons"][0]["baseline"], "indirect");
    const auto missing = run({"compare", "1:direct", "1:nosuch"});
    EXPECT_EQ(missing.status, 2) << missing.err;
}

TEST_F(CliCompare, StatMatchesScipyOnPlainFiles)
{
    // The same data as the Welch/Mann-Whitney reference in tests/engine/stats_test.cpp.
    const auto a = writeFile("x10",
                             "99.0004\n96.8421\n94.6112\n100.1967\n98.2409\n99.3016\n100.1367\n102.0218\n"
                             "98.2494\n101.5926\n");
    const auto b = writeFile("y12",
                             "# run time, ms\n101.3062\n99.6684\n111.2481\n102.6494\n99.8493\n106.971\n"
                             "96.8338\n99.3586\n104.9527\n101.7126\n103.7261\n112.4243\n");
    const auto r = run({"stat", a, b, "--format", "json"});
    ASSERT_EQ(r.status, 0) << r.err;
    const auto j = nlohmann::json::parse(r.out);
    const auto& c = j["comparisons"][0];
    EXPECT_EQ(c["design"], "independent");
    EXPECT_NEAR(c["p_welch"].get<double>(), 0.012172473655001376, 1e-6);
    EXPECT_NEAR(c["p_mwu"].get<double>(), 0.01689950915957108, 1e-6);
    EXPECT_NEAR(c["ci_low_pct"].get<double>(), 1.10137274706954, 1e-6);
    const auto text = run({"stat", a, b});
    EXPECT_NE(text.out.find("y12 vs x10"), std::string::npos) << text.out;
}

TEST_F(CliCompare, StatPairedReadsAColumn)
{
    const auto a = writeFile("a.csv", "1,10.0\n2,10.1\n3,9.9\n4,10.2\n5,10.0\n6,9.8\n7,10.1\n");
    const auto b = writeFile("b.csv", "1,10.5\n2,10.6\n3,10.3\n4,10.8\n5,10.4\n6,10.3\n7,10.7\n");
    const auto r = run({"stat", "--paired", "-C", "2", a, b, "--format", "json"});
    ASSERT_EQ(r.status, 0) << r.err;
    const auto j = nlohmann::json::parse(r.out);
    const auto& c = j["comparisons"][0];
    EXPECT_EQ(c["design"], "paired");
    EXPECT_EQ(c["n"], 7);
    EXPECT_GT(c["delta_pct"].get<double>(), 3.0);
}

TEST_F(CliCompare, StatReadsACommaAsTheDelimitersGivenSayAndConstantFilesAreEquivalent)
{
    const auto a = writeFile("a", "10,5\n11,5\n12,5\n");
    const auto r = run({"stat", "-d", ",", "-C", "2", a, a, "--format", "json"});
    ASSERT_EQ(r.status, 0) << r.err;
    const auto j = nlohmann::json::parse(r.out);
    EXPECT_EQ(j["variants"][0]["mean"], 5.0);
    const auto& c = j["comparisons"][0];
    EXPECT_EQ(c["verdict"], "equivalent") << c["verdict_text"];
    EXPECT_TRUE(c["p"].is_null());
}

TEST_F(CliCompare, StatOnValuesNear1eMinus100)
{
    // Before: "internal error: ... Degrees of freedom argument is -nan".
    std::string b;
    std::string c;
    for (double v : {99.0004, 96.8421, 94.6112, 100.1967, 98.2409, 99.3016, 100.1367, 102.0218, 98.2494, 101.5926}) {
        b += std::to_string(v) + "e-100\n";
    }
    for (double v : {101.3062, 99.6684, 111.2481, 102.6494, 99.8493, 106.971, 96.8338, 99.3586, 104.9527, 101.7126,
                     103.7261, 112.4243}) {
        c += std::to_string(v) + "e-100\n";
    }
    const auto r = run({"stat", writeFile("tiny-b", b), writeFile("tiny-c", c), "--format", "json"});
    ASSERT_EQ(r.status, 0) << r.err;
    const auto json = nlohmann::json::parse(r.out);
    const auto& j = json["comparisons"][0];
    EXPECT_NEAR(j["ci_low_pct"].get<double>(), 1.10137274706954, 1e-6);  // as for x10 and y12
    EXPECT_EQ(j["verdict"], "different");
}

// --primary chooses the metric the verdict rests on: stored with the run (listed first, tested at
// alpha alone, `primary_metric: true` in the JSON), chosen again by compare, and refused when the
// run does not measure it, before anything runs or is stored.
TEST_F(CliCompare, PrimaryMetricIsChosenOnRunAndCompare)
{
    const auto r = run({"run", "spin", "--variant", "a:work=400", "--variant", "b:work=800", "--reps", "3",
                        "--duration", "0.1", "--warmup", "0.05", "--primary", "ns_per_op"});
    ASSERT_EQ(r.status, 0) << r.err;
    const auto primaryOf = [](const nlohmann::json& report) {
        std::vector<std::string> primary;
        for (const auto& c : report["comparisons"]) {
            if (c["primary_metric"].get<bool>() && c["primary"].get<bool>()) {  // its primary design
                primary.push_back(c["metric"]);
            }
        }
        return primary;
    };
    const auto stored = nlohmann::json::parse(run({"compare", "last", "--format", "json"}).out);
    EXPECT_EQ(primaryOf(stored), std::vector<std::string>{"ns_per_op"});
    EXPECT_EQ(stored["comparisons"][0]["metric"], "ns_per_op");
    const auto exported = nlohmann::json::parse(run({"export", "last", "--format", "json"}).out);
    EXPECT_EQ(exported["spec"]["primary_metric"], "ns_per_op");

    const auto chosen =
        nlohmann::json::parse(run({"compare", "last", "--format", "json", "--primary", "tsc_per_op"}).out);
    EXPECT_EQ(primaryOf(chosen), std::vector<std::string>{"tsc_per_op"});
    EXPECT_EQ(chosen["comparisons"][0]["metric"], "tsc_per_op");

    const auto notCompared = run({"compare", "last", "--primary", "no_such_metric"});
    EXPECT_EQ(notCompared.status, 2);
    EXPECT_NE(notCompared.err.find("--primary no_such_metric: not among the metrics compared"), std::string::npos)
        << notCompared.err;
    const auto before = run({"list"}).out;
    const auto refused = run({"run", "spin", "--reps", "2", "--duration", "0.05", "--primary", "pps"});
    EXPECT_EQ(refused.status, 2);
    EXPECT_NE(refused.err.find("--primary pps: not a metric of spin"), std::string::npos) << refused.err;
    EXPECT_EQ(std::count(refused.err.begin(), refused.err.end(), '\n'), 1) << refused.err;
    EXPECT_EQ(run({"list"}).out, before) << "nothing stored";
}

TEST_F(CliCompare, CalibrateReportsTheNoiseFloor)
{
    const auto r =
        run({"calibrate", "spin", "--reps", "3", "--duration", "0.1", "--warmup", "0.05", "--format", "json"});
    ASSERT_EQ(r.status, 0) << r.err;
    const auto j = nlohmann::json::parse(r.out);
    EXPECT_EQ(j["metric"], "tsc_per_op");
    EXPECT_EQ(j["designs"].size(), 2u);
    EXPECT_GT(j["designs"][0]["mde_pct"].get<double>(), 0.0);
    EXPECT_TRUE(j["cv_of_repetition_means"].contains("a1"));
    const auto list = nlohmann::json::parse(run({"list", "--format", "json"}).out);
    EXPECT_EQ(list[0]["label"], "calibrate");
}

TEST_F(CliCompare, SweepRunsEveryPointAndComparesEach)
{
    // page-pool's known truth: with every call at size 0 the early check is much cheaper. The
    // default warmup calibrates the chunk lengths; a much shorter one can leave one variant's
    // chunks half as long on a loaded machine, which pulls the paired delta toward zero.
    const auto r = run({"run", "page-pool", "--variant", "late:check=late", "--variant", "early:check=early", "--sweep",
                        "zero_size_pct=0,100", "--reps", "2", "--duration", "0.2", "--warmup", "0.2", "--label", "pp"});
    ASSERT_EQ(r.status, 0) << r.err;
    EXPECT_NE(r.out.find("zero_size_pct=0 (point 1 of 2): run 1 complete"), std::string::npos) << r.out;
    EXPECT_NE(r.out.find("zero_size_pct=100 (point 2 of 2): run 2 complete"), std::string::npos) << r.out;
    EXPECT_NE(r.out.find("Sweep of zero_size_pct (page-pool, 2 points)"), std::string::npos) << r.out;

    const auto json = nlohmann::json::parse(run({"compare", "--sweep", "1", "--format", "json"}).out);
    ASSERT_EQ(json["points"].size(), 2u);
    EXPECT_EQ(json["param"], "zero_size_pct");
    EXPECT_EQ(json["points"][1]["value"], "100");
    EXPECT_EQ(json["points"][1]["run"], 2);
    const auto& early = json["points"][1]["variants"][1];
    EXPECT_EQ(early["name"], "early");
    EXPECT_EQ(early["verdict"], "different");
    EXPECT_LT(early["delta_pct"].get<double>(), -15.0);

    const auto list = nlohmann::json::parse(run({"list", "--format", "json"}).out);
    ASSERT_EQ(list.size(), 2u);
    EXPECT_EQ(list[0]["sweep"]["value"], "100");
    EXPECT_EQ(list[0]["sweep"]["id"], json["sweep"]);
    EXPECT_EQ(list[1]["label"], "pp");
}

TEST_F(CliCompare, BadInputFailsCleanly)
{
    ASSERT_EQ(
        run({"run", "spin", "--variant", "a", "--variant", "b", "--reps", "2", "--duration", "0.02", "--warmup", "0"})
            .status,
        0);
    const auto one = writeFile("one", "1\n2\n3\n");
    const auto bad = writeFile("bad", "1\n2\nthree\n");
    const auto shortFile = writeFile("short", "1\n2\n");
    const auto grouped = writeFile("grouped", "1000.5\n1,010.5\n");
    const auto decimalComma = writeFile("decimal-comma", "10,5\n11,5\n");
    struct Case {
        std::vector<std::string> args;
        int status;
        std::string message;
    };
    const std::vector<Case> cases = {
        {{"compare", "--alpha", "0.7"}, 2, "--alpha"},
        {{"compare", "--margin", "-1"}, 2, "--margin"},
        {{"compare", "--target", "0"}, 2, "--target"},
        {{"compare", "--metric", "warp"}, 2, "--metric warp"},
        {{"compare", "--baseline", "zz"}, 2, "--baseline zz"},
        {{"compare", "1:zz"}, 2, "no variant 'zz'"},
        {{"compare", "7"}, 1, "no run 7"},
        {{"compare", "--label", "nope"}, 2, "--label nope"},
        {{"compare", "1", "--label", "x"}, 2, "not both"},
        {{"compare", "--format", "xml"}, 2, "--format"},
        {{"stat", one}, 2, "at least two files"},
        {{"stat", one, bad}, 2, "bad:3: 'three' is not a finite number"},
        {{"stat", one, m_dir.file("missing")}, 2, "cannot read"},
        {{"stat", "--paired", one, shortFile}, 2, "--paired"},
        {{"stat", "-C", "0", one, shortFile}, 2, "-C 0"},
        {{"stat", "-C", "3", one, shortFile}, 2, "no column 3"},
        {{"stat", one, grouped}, 2, "grouped:2: '1,010.5' is ambiguous"},
        {{"stat", decimalComma, one}, 2, "decimal-comma:1: '10,5' is ambiguous"},
        {{"stat", "--margin", "-1", one, one}, 2, "--margin -1: must be"},
        {{"stat", "--margin", "nan", one, one}, 2, "--margin nan: must be"},
        {{"stat", "--margin", "100", one, one}, 2, "--margin 100: must be"},
        {{"stat", "--alpha", "0.5", one, one}, 2, "--alpha 0.5: must be"},
        {{"stat", "--alpha", "nan", one, one}, 2, "--alpha nan: must be"},
        {{"stat", "--target", "nan", one, one}, 2, "--target nan: must be"},
        {{"stat", "--target", "-2", one, one}, 2, "--target -2: must be"},
        {{"stat", "-d", "5", one, one}, 2, "-d '5': '5' is part of numbers"},
        {{"stat", "-d", "", one, one}, 2, "-d ''"},
        {{"compare", "--target", "nan"}, 2, "--target nan: must be"},
        {{"compare", "--margin", "nan"}, 2, "--margin nan: must be"},
        {{"calibrate", "nope"}, 2, "unknown workload 'nope'"},
        {{"calibrate", "spin", "--reps", "0"}, 2, "--reps 0"},
    };
    for (const auto& c : cases) {
        const auto r = run(c.args);
        EXPECT_EQ(r.status, c.status) << c.args[0] << " " << c.args.back() << "\n" << r.err;
        EXPECT_NE(r.err.find(c.message), std::string::npos) << r.err;
        EXPECT_EQ(std::count(r.err.begin(), r.err.end(), '\n'), 1) << r.err;
    }
}

}  // namespace
}  // namespace nf::test
