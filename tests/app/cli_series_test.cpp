// noisefloor series end to end: five builds imported as labels, the third one slower.

#include <gtest/gtest.h>

#include <fstream>
#include <sstream>

#include "tests/app/cli_process.h"

namespace nf::test {
namespace {

class CliSeries : public CliTest {
protected:
    // page_frag_test logs of one build: `n` module loads taking about `us` each.
    void importStep(const std::string& label, int us, int n)
    {
        std::ostringstream log;
        for (int i = 0; i < n; ++i) {
            const int jitter = ((i * 7919) % 11 - 5) * 300;  // +-1500 us, deterministic
            log << "[ " << 100 + i << ".000000] 2000000 of iterations for non-aligned testing took: " << us + jitter
                << "us\n";
        }
        const auto path = m_dir.file(label + ".txt");
        std::ofstream(path) << log.str();
        // Steps of one level write the same log here (real boots never do): stored all the same.
        ASSERT_EQ(
            run({"import", "page-frag-test", path, "--label", label, "--kernel", "6.12-" + label, "--allow-duplicate"})
                .status,
            0);
    }
};

TEST_F(CliSeries, NamesTheStepThatMovedTheMetric)
{
    const int base = 400000;
    importStep("step1", base, 8);
    importStep("step2", base, 8);
    importStep("step3", base + 20000, 8);  // +5%
    importStep("step4", base + 20000, 8);
    importStep("step5", base + 20000, 8);
    const std::vector<std::string> labels = {"series", "--label", "step1", "--label", "step2", "--label",
                                             "step3",  "--label", "step4", "--label", "step5"};
    auto text = run(labels);
    ASSERT_EQ(text.status, 0) << text.err;
    EXPECT_NE(text.out.find("noisefloor series: ns_per_iteration (ns, lower is better), 5 steps"), std::string::npos)
        << text.out;
    EXPECT_NE(text.out.find("change at step3 (after step2): +5."), std::string::npos) << text.out;
    EXPECT_EQ(text.out.find("change at step4"), std::string::npos) << text.out;
    EXPECT_NE(text.out.find("kernels: 6.12-step1"), std::string::npos);
    std::istringstream lines(text.out);
    std::string line;
    while (std::getline(lines, line)) {
        EXPECT_LE(line.size(), 72u) << line;
    }

    auto args = labels;
    args.insert(args.end(), {"--format", "csv", "--metric", "took_us"});
    auto csv = run(args);
    ASSERT_EQ(csv.status, 0) << csv.err;
    std::istringstream rows(csv.out);
    std::vector<std::string> all;
    while (std::getline(rows, line)) {
        all.push_back(line);
    }
    ASSERT_EQ(all.size(), 6u);
    EXPECT_EQ(all[3].rfind("3,step3,took_us,us,8,", 0), 0u) << all[3];
    auto fields = [](const std::string& row) {
        std::vector<std::string> out;
        std::istringstream in(row);
        std::string f;
        while (std::getline(in, f, ',')) {
            out.push_back(f);
        }
        return out;
    };
    const auto step3 = fields(all[3]);
    ASSERT_GE(step3.size(), 12u);
    EXPECT_EQ(step3[10], "1");                    // change_here
    EXPECT_NEAR(std::stod(step3[11]), 5.0, 0.1);  // change_delta_pct
    EXPECT_EQ(fields(all[2])[10], "0");
}

TEST_F(CliSeries, PoolsTheRunsOfALabelWithTheRunAsTheUnit)
{
    // Three runs per build, each run off by up to 2% (drift between runs) while its repetitions
    // agree within 0.4%; the third build is 8% slower.
    const int base = 400000;
    const int drift[] = {-8000, 0, 8000};
    for (int step = 1; step <= 4; ++step) {
        for (int d : drift) {
            importStep("b" + std::to_string(step), (step >= 3 ? base + 32000 : base) + d * (step % 2 ? 1 : -1), 6);
        }
    }
    const std::vector<std::string> labels = {"series",  "--label", "b1",      "--label", "b2",
                                             "--label", "b3",      "--label", "b4"};
    auto text = run(labels);
    ASSERT_EQ(text.status, 0) << text.err;
    EXPECT_NE(text.out.find("design: 3 runs per step pooled"), std::string::npos) << text.out;
    EXPECT_NE(text.out.find("(n: runs;"), std::string::npos) << text.out;
    EXPECT_NE(text.out.find("change at b3 (after b2): +"), std::string::npos) << text.out;
    EXPECT_EQ(text.out.find("change at b2"), std::string::npos) << text.out;
    EXPECT_EQ(text.out.find("change at b4"), std::string::npos) << text.out;

    auto args = labels;
    args.insert(args.end(), {"--format", "csv"});
    auto csv = run(args);
    ASSERT_EQ(csv.status, 0) << csv.err;
    const auto row = csv.out.find("\n3,b3,ns_per_iteration,ns,3,");
    ASSERT_NE(row, std::string::npos) << csv.out;
    std::vector<std::string> fields;
    std::istringstream in(csv.out.substr(row + 1, csv.out.find('\n', row + 1) - row - 1));
    for (std::string f; std::getline(in, f, ',');) {
        fields.push_back(f);
    }
    ASSERT_GE(fields.size(), 12u);
    EXPECT_EQ(fields[10], "1");                    // change_here
    EXPECT_NEAR(std::stod(fields[11]), 8.0, 0.2);  // change_delta_pct
}

TEST_F(CliSeries, InterleavedMeasuresTheStepsAsVariantsOfOneRunAndPairsThem)
{
    // s1 and s2 are the same: at the default alpha 0.05 one run in twenty would call them
    // different by design, so the A/A half of this check runs at alpha 0.001. s4 shows that the
    // level s3 moved to stays (a last step that differs is not a change on its own).
    auto r = run(
        {"series",       "--alpha",   "0.001",        "--interleaved", "--",           "spin",      "--variant",
         "s1:work=1000", "--variant", "s2:work=1000", "--variant",     "s3:work=2000", "--variant", "s4:work=2000",
         "--reps",       "6",         "--duration",   "0.05",          "--warmup",     "0",         "--share-cpus"});
    ASSERT_EQ(r.status, 0) << r.err;
    EXPECT_NE(r.out.find("noisefloor series: tsc_per_op"), std::string::npos) << r.out;
    // spin alternates its variants in chunks: the rounds are the blocks.
    EXPECT_NE(r.out.find("design: the steps are the variants of one run, alternated in"), std::string::npos) << r.out;
    EXPECT_NE(r.out.find("change at s3 (after s2): +"), std::string::npos) << r.out;
    EXPECT_EQ(r.out.find("change at s2"), std::string::npos) << r.out;
    auto list = run({"list", "--format", "json"});
    ASSERT_EQ(list.status, 0) << list.err;
    EXPECT_NE(list.out.find("\"complete\""), std::string::npos) << list.out;

    // The stored run gives the same series again.
    auto again = run({"series", "last"});
    ASSERT_EQ(again.status, 0) << again.err;
    EXPECT_NE(again.out.find("change at s3 (after s2): +"), std::string::npos) << again.out;

    EXPECT_EQ(run({"series", "--interleaved", "--", "spin", "--variant", "a:work=1"}).status, 2);
    EXPECT_EQ(run({"series", "--interleaved", "--", "spin", "--bogus"}).status, 2);
    auto labels = run({"series", "--interleaved", "--label", "x", "--", "spin"});
    EXPECT_EQ(labels.status, 2);
    EXPECT_NE(labels.err.find("not --label"), std::string::npos) << labels.err;
}

// A last step that differs from the rest is said by name, with what to do, not called a change
// (nothing after it shows that its level stays) and not hidden as "no change" either.
TEST_F(CliSeries, ALastStepThatDiffersIsNamedWithWhatToDo)
{
    auto r = run({"series", "--interleaved", "--", "spin", "--variant", "s1:work=1000", "--variant", "s2:work=1000",
                  "--variant", "s3:work=2000", "--reps", "6", "--duration", "0.05", "--warmup", "0", "--share-cpus"});
    ASSERT_EQ(r.status, 0) << r.err;
    std::string text = r.out;  // the sentence as one line, unwrapped
    for (auto at = text.find("\n  "); at != std::string::npos; at = text.find("\n  ", at)) {
        text.replace(at, 3, " ");
    }
    EXPECT_EQ(text.find("change at s3"), std::string::npos) << r.out;
    EXPECT_NE(text.find("s3 differs from the rest (+"), std::string::npos) << r.out;
    EXPECT_NE(text.find("a change or a disturbed run; rerun s3 or add a step after it"), std::string::npos) << r.out;
    const auto csv = run({"series", "last", "--format", "csv"});
    ASSERT_EQ(csv.status, 0) << csv.err;
    EXPECT_NE(csv.out.find(",last,\n"), std::string::npos) << csv.out;  // then code_size_delta_bytes: none
}

TEST_F(CliSeries, OneStepOrAnUnknownMetricIsAUsageError)
{
    importStep("only", 400000, 4);
    EXPECT_EQ(run({"series", "--label", "only"}).status, 2);
    importStep("next", 400000, 4);
    auto r = run({"series", "--label", "only", "--label", "next", "--metric", "pps"});
    EXPECT_EQ(r.status, 2);
    EXPECT_NE(r.err.find("--metric pps"), std::string::npos) << r.err;
}

}  // namespace
}  // namespace nf::test
