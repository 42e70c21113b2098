// End to end: imported results are ordinary runs (list, show, export, compare), bad input is one
// line naming the file and line with nothing stored, and cross-boot comparisons name both kernels
// and what else differs.

#include <gtest/gtest.h>

#include <algorithm>
#include <fstream>
#include <nlohmann/json.hpp>

#include "tests/app/cli_process.h"

namespace nf::test {
namespace {

class CliImport : public CliTest {
protected:
    static std::string sample(const std::string& name) { return std::string(NF_IMPORT_SAMPLES) + "/" + name; }
    std::string writeFile(const std::string& name, const std::string& text)
    {
        std::ofstream(m_dir.file(name)) << text;
        return m_dir.file(name);
    }
};

TEST_F(CliImport, ImportedRunIsListedShownExportedAndCompared)
{
    auto a = run({"import", "page-frag-test", sample("page_frag_test_dmesg.txt"), "--label", "vanilla", "--kernel",
                  "6.12.0", "--host", "lab1"});
    ASSERT_EQ(a.status, 0) << a.err;
    EXPECT_NE(a.out.find("imported 5 repetitions of page-frag-test as run 1 'vanilla' (kernel 6.12.0, host lab1)"),
              std::string::npos)
        << a.out;
    const auto list = nlohmann::json::parse(run({"list", "--format", "json"}).out);
    ASSERT_EQ(list.size(), 1u);
    EXPECT_EQ(list[0]["workload"], "import:page-frag-test");
    EXPECT_EQ(list[0]["kernel"], "6.12.0");
    EXPECT_EQ(list[0]["status"], "complete");
    const auto csv = run({"export", "1", "--format", "csv"});
    ASSERT_EQ(csv.status, 0) << csv.err;
    EXPECT_NE(csv.out.find("took_us"), std::string::npos);
    const auto show = run({"show", "1"});
    ASSERT_EQ(show.status, 0) << show.err;
    EXPECT_NE(show.out.find("ns_per_iteration"), std::string::npos);
    EXPECT_NE(show.out.find("imported from page-frag-test output: " + sample("page_frag_test_dmesg.txt") +
                            " (5 repetition(s)); host from option, kernel from option"),
              std::string::npos)
        << show.out;
}

TEST_F(CliImport, GarbageIsOneLineNamingFileAndLineWithNothingStored)
{
    const auto bad = writeFile("bad.txt", "[ 1.0] 2000000 of iterations for non-aligned testing took: 4013\n");
    auto r = run({"import", "page-frag-test", sample("page_frag_test_dmesg.txt"), bad, "--label", "x"});
    EXPECT_EQ(r.status, 1);
    EXPECT_EQ(
        r.err.rfind("noisefloor: " + bad + ":1: a 'testing took:' line that does not parse (truncated?): '[ 1.0] ", 0),
        0u)
        << r.err;
    EXPECT_EQ(std::count(r.err.begin(), r.err.end(), '\n'), 1);
    EXPECT_TRUE(r.out.empty());
    const auto list = run({"list", "--format", "json"});
    EXPECT_TRUE(list.out == "[]\n" || nlohmann::json::parse(list.out).empty()) << list.out;
}

TEST_F(CliImport, UnknownFormatAndMissingLabelAreUsageErrors)
{
    auto r = run({"import", "iperf", sample("sar_dev.txt"), "--label", "x"});
    EXPECT_EQ(r.status, 2);
    auto n = run({"import", "sar", sample("sar_dev.txt")});
    EXPECT_EQ(n.status, 2);
    EXPECT_NE(n.err.find("--label"), std::string::npos) << n.err;
}

TEST_F(CliImport, CrossBootComparisonNamesBothKernelsAndWarnsOfOtherDifferences)
{
    ASSERT_EQ(run({"import", "perf-stat", sample("perf_stat_appended.csv"), "--label", "vanilla", "--kernel", "6.12.0",
                   "--cpu-model", "Xeon A"})
                  .status,
              0);
    ASSERT_EQ(run({"import", "perf-stat", sample("perf_stat_r5.csv"), "--runs", "5", "--label", "patched", "--kernel",
                   "6.12.0+pp", "--cpu-model", "Xeon B"})
                  .status,
              0);
    const auto r = run({"compare", "--label", "vanilla", "--label", "patched", "--metric", "task-clock"});
    ASSERT_EQ(r.status, 0) << r.err;
    EXPECT_NE(r.out.find("kernels: 6.12.0 (run 1 'vanilla') vs 6.12.0+pp (run 2 'patched')"), std::string::npos)
        << r.out;
    EXPECT_NE(r.out.find("CPU model differs: Xeon A (run 1 'vanilla') vs Xeon B"), std::string::npos) << r.out;
    EXPECT_NE(r.out.find("values rebuilt from perf stat -r summaries"), std::string::npos) << r.out;
    EXPECT_NE(r.out.find("patched vs vanilla"), std::string::npos) << r.out;

    const auto v = run({"compare", "--label", "vanilla:default", "--label", "patched:default", "--format", "json"});
    ASSERT_EQ(v.status, 0) << v.err;
    const auto json = nlohmann::json::parse(v.out);
    EXPECT_EQ(json["comparisons"][0]["candidate"], "patched");
}

}  // namespace
}  // namespace nf::test
