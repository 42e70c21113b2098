// Cross-run verdicts end to end: compare --label pools every run under a label, calibrate
// --across-runs stores the run-to-run floor a one-run-per-side compare then uses, and says when
// there is none; compare --placebo and calibrate --layout count code layout between builds.

#include <gtest/gtest.h>

#include <fstream>
#include <regex>

#include <nlohmann/json.hpp>

#include "tests/app/cli_process.h"

namespace nf::test {
namespace {

class CliAcrossRuns : public CliTest {
protected:
    void spinRun(const std::string& label, int work = 1000)
    {
        const auto r = run({"run", "spin", "-p", "work=" + std::to_string(work), "--reps", "3", "--duration", "0.05",
                            "--warmup", "0", "--share-cpus", "--label", label});
        ASSERT_EQ(r.status, 0) << r.err;
    }

    nlohmann::json compareJson(const std::string& a, const std::string& b)
    {
        const auto r = run({"compare", "--label", a, "--label", b, "--metric", "tsc_per_op", "--format", "json"});
        EXPECT_EQ(r.status, 0) << r.err;
        return nlohmann::json::parse(r.out)["comparisons"][0];
    }

    // An imported kernel module run (page_frag_test, one line per load) of about `us` microseconds
    // per load, as a build of a kernel gives it: the same five loads around its level.
    void moduleRun(const std::string& label, double us)
    {
        const std::string path = m_dir.file(label + std::to_string(m_imports++) + ".txt");
        writePageFragTestOutput(path, us);
        // Two builds may write the same loads here (408000 us * 1.001 is both a rebuild's and a patch's),
        // which real boots never do: stored all the same.
        const auto r = run({"import", "page-frag-test", path, "--label", label, "--allow-duplicate"});
        ASSERT_EQ(r.status, 0) << r.err;
    }

    int m_imports = 0;

    // The same two runs named by id (compare RUN RUN), as a vanilla/patched compare names them.
    nlohmann::json compareIdsJson(const std::string& a, const std::string& b)
    {
        const auto r = run({"compare", a, b, "--metric", "tsc_per_op", "--format", "json"});
        EXPECT_EQ(r.status, 0) << r.err;
        return nlohmann::json::parse(r.out)["comparisons"][0];
    }
};

TEST_F(CliAcrossRuns, EveryRunUnderALabelIsPooledWithTheRunAsTheUnit)
{
    spinRun("vanilla");
    spinRun("vanilla");
    spinRun("patched", 1100);
    spinRun("patched", 1100);
    spinRun("patched", 1100);
    const auto c = compareJson("vanilla", "patched");
    EXPECT_EQ(c["unit_of_analysis"], "run");
    EXPECT_EQ(c["n"], 2);
    EXPECT_EQ(c["n_candidate"], 3);
    EXPECT_NE(c["design_levels"].get<std::string>().find("2 against 3 runs"), std::string::npos) << c;
    EXPECT_NE(c["design_levels"].get<std::string>().find("estimated from the runs"), std::string::npos) << c;
    const auto text =
        run({"compare", "--label", "vanilla", "--label", "patched", "--metric", "tsc_per_op", "--verbose"});
    EXPECT_NE(text.out.find("    design: 2 against 3 runs"), std::string::npos) << text.out;
}

TEST_F(CliAcrossRuns, OneRunPerSideUsesTheCalibrationAndSaysWhenThereIsNone)
{
    spinRun("a");
    spinRun("b");
    const auto before = compareJson("a", "b");
    EXPECT_EQ(before["unit_of_analysis"], "repetition");
    EXPECT_EQ(before["warnings"][0], "no run-to-run calibration: this interval is too narrow");
    EXPECT_EQ(compareIdsJson("1", "2")["warnings"][0], "no run-to-run calibration: this interval is too narrow");
    const auto text = run({"compare", "1", "2"});
    EXPECT_NE(text.out.find("\n! no run-to-run calibration: this interval is too narrow\n"), std::string::npos)
        << text.out;

    const auto one = run(
        {"calibrate", "--across-runs", "spin", "--reps", "3", "--duration", "0.05", "--warmup", "0", "--share-cpus"});
    ASSERT_EQ(one.status, 0) << one.err;
    EXPECT_NE(one.out.find("one run so far"), std::string::npos) << one.out;
    const auto cal = run({"calibrate", "--across-runs", "spin", "--runs", "2", "--reps", "3", "--duration", "0.05",
                          "--warmup", "0", "--share-cpus"});
    ASSERT_EQ(cal.status, 0) << cal.err;
    EXPECT_NE(cal.out.find("run-to-run noise floor from 3 runs in 1 boots"), std::string::npos) << cal.out;

    const auto after = compareJson("a", "b");
    EXPECT_EQ(after["unit_of_analysis"], "run");
    EXPECT_NE(after["design_levels"].get<std::string>().find("calibration"), std::string::npos) << after;
    for (const auto& w : after["warnings"]) {
        EXPECT_NE(w, "no run-to-run calibration: this interval is too narrow");
    }
    // The floor's run-to-run variance is added to the within-run one. The interval is not always
    // wider for it: a floor estimated as 0 (repetitions inside a run vary as much as the runs do)
    // adds nothing, and the calibration's degrees of freedom then shrink the t quantile. That the
    // interval covers at the stated rate is checked by the seeded simulations (AcrossRuns.*).
    EXPECT_LT(after["ci_low_pct"].get<double>(), after["ci_high_pct"].get<double>()) << after;

    const auto byId = compareIdsJson("1", "2");  // the calibration applies however the runs are named
    EXPECT_EQ(byId["unit_of_analysis"], "run");
    EXPECT_DOUBLE_EQ(byId["ci_low_pct"].get<double>(), after["ci_low_pct"].get<double>());
    EXPECT_DOUBLE_EQ(byId["ci_high_pct"].get<double>(), after["ci_high_pct"].get<double>());
}

TEST_F(CliAcrossRuns, SeveralVariantsPerRunSayTheRunToRunVarianceIsNotCounted)
{
    for (int i = 0; i < 2; ++i) {
        const auto r = run({"run", "spin", "--variant", "a:work=1000", "--variant", "b:work=1000", "--reps", "3",
                            "--duration", "0.05", "--warmup", "0", "--share-cpus"});
        ASSERT_EQ(r.status, 0) << r.err;
    }
    const auto text = run({"compare", "1", "2"});
    ASSERT_EQ(text.status, 0) << text.err;
    EXPECT_NE(text.out.find("! run-to-run variance not counted: several variants per run"), std::string::npos)
        << text.out;
}

constexpr const char* kLayoutWarning =
    "code layout not controlled: differences below a few percent may be placement (give --placebo LABEL: a "
    "rebuild of the baseline that changes only layout, docs/workflows.md)";

bool hasWarning(const nlohmann::json& report, const std::string& text)
{
    const auto& w = report["warnings"];
    return std::find(w.begin(), w.end(), text) != w.end();
}

// The text as one line: a wrapped sentence found whatever the width cut it at.
std::string unwrapped(const std::string& text)
{
    return std::regex_replace(text, std::regex("\n +"), " ");
}

TEST_F(CliAcrossRuns, APlaceboCountsCodeLayoutAndACalibrationKeepsItForLaterCompares)
{
    // Two runs of each build, 0.2% apart.
    for (const double drift : {-0.001, 0.001}) {
        moduleRun("vanilla", 400000 * (1 + drift));
        moduleRun("vanilla-rebuilt", 408000 * (1 + drift));   // the same code linked elsewhere: 2% slower
        moduleRun("patched", 408000 * (1 - drift));           // a patch that moves code as far
        moduleRun("rewritten", 600000 * (1 + drift));         // a real change: 50% slower
        moduleRun("vanilla-rebuilt2", 392000 * (1 - drift));  // another rebuild: 2% faster
    }
    auto compare = [&](const std::vector<std::string>& extra) {
        std::vector<std::string> args = {"compare", "--label", "vanilla", "--label", "patched", "--format", "json"};
        args.insert(args.end(), extra.begin(), extra.end());
        const auto r = run(args);
        EXPECT_EQ(r.status, 0) << r.err;
        return nlohmann::json::parse(r.out);
    };
    const auto alone = compare({});
    EXPECT_EQ(alone["comparisons"][0]["verdict"], "different") << alone["comparisons"][0];
    EXPECT_FALSE(alone["comparisons"][0].contains("layout_spread_pct"));
    EXPECT_TRUE(hasWarning(alone, kLayoutWarning)) << alone["warnings"];

    const auto placebo = compare({"--placebo", "vanilla-rebuilt"});
    const auto& c = placebo["comparisons"][0];
    EXPECT_NE(c["verdict"], "different") << c;
    EXPECT_NEAR(c["layout_spread_pct"].get<double>(), 2.0, 0.002) << c;
    EXPECT_EQ(c["layouts_measured"], 2);
    EXPECT_EQ(c["layout_source"], "vanilla against its rebuild vanilla-rebuilt");
    EXPECT_LT(c["ci_low_pct"].get<double>(), alone["comparisons"][0]["ci_low_pct"].get<double>());
    EXPECT_FALSE(hasWarning(placebo, kLayoutWarning)) << placebo["warnings"];
    for (const auto& args : {std::vector<std::string>{}, std::vector<std::string>{"--verbose"}}) {
        std::vector<std::string> text = {"compare", "--label",   "vanilla",        "--label",
                                         "patched", "--placebo", "vanilla-rebuilt"};
        text.insert(text.end(), args.begin(), args.end());
        const auto r = run(text);
        ASSERT_EQ(r.status, 0) << r.err;
        EXPECT_NE(unwrapped(r.out).find("layout spread +-2.00% (vanilla against its rebuild vanilla-rebuilt): where "
                                        "the code sits moves a difference this much; the interval includes it"),
                  std::string::npos)
            << r.out;
        EXPECT_EQ(unwrapped(r.out).find("code layout not controlled"), std::string::npos) << r.out;
    }
    const auto real = run(
        {"compare", "--label", "vanilla", "--label", "rewritten", "--placebo", "vanilla-rebuilt", "--format", "json"});
    ASSERT_EQ(real.status, 0) << real.err;
    EXPECT_EQ(nlohmann::json::parse(real.out)["comparisons"][0]["verdict"], "different") << real.out;
    // Two rebuilds: two draws of layout, 2 degrees of freedom, a narrower interval.
    const auto two = compare({"--placebo", "vanilla-rebuilt", "--placebo", "vanilla-rebuilt2"});
    const auto& t = two["comparisons"][0];
    EXPECT_EQ(t["layouts_measured"], 3);
    EXPECT_EQ(t["layout_source"], "vanilla against its rebuilds vanilla-rebuilt, vanilla-rebuilt2");
    EXPECT_GT(t["ci_low_pct"].get<double>(), c["ci_low_pct"].get<double>()) << t;
    const auto withoutJson = run({"compare", "--label", "vanilla", "--label", "patched"});
    EXPECT_NE(unwrapped(withoutJson.out).find(std::string("! ") + kLayoutWarning), std::string::npos)
        << withoutJson.out;

    const auto cal = run({"calibrate", "--layout", "--label", "vanilla", "--placebo", "vanilla-rebuilt"});
    ASSERT_EQ(cal.status, 0) << cal.err;
    EXPECT_NE(cal.out.find("code layout floor of import:page-frag-test from vanilla against its rebuild "
                           "vanilla-rebuilt"),
              std::string::npos)
        << cal.out;
    const auto later = compare({});
    const auto& l = later["comparisons"][0];
    EXPECT_NEAR(l["layout_spread_pct"].get<double>(), c["layout_spread_pct"].get<double>(), 1e-9) << l;
    EXPECT_EQ(l["layout_source"].get<std::string>().rfind("calibrated ", 0), 0U) << l;
    EXPECT_NE(l["layout_source"].get<std::string>().find("vanilla against its rebuild vanilla-rebuilt"),
              std::string::npos)
        << l;
    EXPECT_EQ(l["verdict"], c["verdict"]);
    EXPECT_DOUBLE_EQ(l["ci_low_pct"].get<double>(), c["ci_low_pct"].get<double>());
    EXPECT_FALSE(hasWarning(later, kLayoutWarning)) << later["warnings"];
    // The run-to-run floors are not mistaken for layout floors, nor the other way round.
    const auto runs = run({"compare", "--label", "vanilla", "--label", "patched", "--format", "json"});
    EXPECT_EQ(nlohmann::json::parse(runs.out)["comparisons"][0]["design_levels"].get<std::string>().find("calibration"),
              std::string::npos);
}

TEST_F(CliAcrossRuns, APlaceboWithoutRunsOrWithoutLabelsIsOneLineAndExitTwo)
{
    moduleRun("vanilla", 400000);
    moduleRun("patched", 408000);
    const std::vector<std::pair<std::vector<std::string>, std::string>> cases = {
        {{"compare", "--label", "vanilla", "--label", "patched", "--placebo", "nope"},
         "--placebo nope: no complete run with that label"},
        {{"compare", "1", "2", "--placebo", "vanilla"}, "--placebo vanilla takes --label"},
        {{"compare", "--placebo", "vanilla"}, "--placebo vanilla takes --label"},
        {{"compare", "--label", "vanilla", "--label", "patched", "--placebo", "patched"},
         "--placebo patched: also given as --label"},
        {{"compare", "--label", "vanilla", "--label", "patched", "--placebo", "vanilla", "--placebo", "vanilla"},
         "--placebo vanilla: given twice"},
        {{"calibrate", "--layout", "--label", "vanilla", "--placebo", "nope"},
         "--placebo nope: no complete run with that label"},
        {{"calibrate", "--layout", "--label", "nope", "--placebo", "vanilla"}, "--label nope: no complete run"},
        {{"calibrate", "--layout", "--placebo", "vanilla"}, "calibrate --layout takes --label BASELINE"},
    };
    for (const auto& [args, message] : cases) {
        const auto r = run(args);
        std::string shown;
        for (const auto& a : args) {
            shown += a + " ";
        }
        EXPECT_EQ(r.status, 2) << shown << r.err;
        EXPECT_EQ(std::count(r.err.begin(), r.err.end(), '\n'), 1) << shown << r.err;
        EXPECT_NE(r.err.find(message), std::string::npos) << shown << r.err;
        EXPECT_TRUE(r.out.empty()) << shown << r.out;
    }
}

}  // namespace
}  // namespace nf::test
