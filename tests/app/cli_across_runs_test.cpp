// Cross-run verdicts end to end: compare --label pools every run under a label, calibrate
// --across-runs stores the run-to-run floor a one-run-per-side compare then uses, and says when
// there is none.

#include <gtest/gtest.h>

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

}  // namespace
}  // namespace nf::test
