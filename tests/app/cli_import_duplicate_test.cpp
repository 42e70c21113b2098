// End to end: content is imported once. The same file again (under another label, or copied to
// another name) is refused with one line and nothing stored, for every importer; a perf stat
// --append file stores only its new blocks and says which it skipped; a file given twice in one
// import is stored once; --allow-duplicate stores it anyway with a warning naming the runs that
// hold it; a merged database still knows what it holds.

#include <gtest/gtest.h>

#include <algorithm>
#include <filesystem>
#include <fstream>
#include <nlohmann/json.hpp>
#include <string>
#include <vector>

#include "tests/app/cli_process.h"

namespace nf::test {
namespace {

class CliImportDuplicate : public CliTest {
protected:
    static std::string sample(const std::string& name) { return std::string(NF_IMPORT_SAMPLES) + "/" + name; }
    static std::string real(const std::string& name) { return sample("real/" + name); }
    std::string writeFile(const std::string& name, const std::string& text)
    {
        std::ofstream(m_dir.file(name), std::ios::binary) << text;
        return m_dir.file(name);
    }
    std::size_t runs()
    {
        const auto list = run({"list", "--format", "json"});
        EXPECT_EQ(list.status, 0) << list.err;
        return list.out == "[]\n" ? 0 : nlohmann::json::parse(list.out).size();
    }
    static std::string refusal(const std::string& file, const std::string& holders, const char* noun = "repetition")
    {
        return "noisefloor: every " + std::string(noun) + " of " + file + " is already stored (" + holders +
               "); --allow-duplicate stores it again\n";
    }
};

// The outputs of one tool appended to one file (perf stat --append -o, 2>>), each starting with
// `mark`.
std::vector<std::string> blocksOf(const std::string& text, const std::string& mark)
{
    std::vector<std::string> blocks;
    for (std::size_t at = text.find(mark); at != std::string::npos;) {
        const std::size_t next = text.find(mark, at + mark.size());
        blocks.push_back(text.substr(at, next == std::string::npos ? std::string::npos : next - at));
        at = next;
    }
    return blocks;
}

// CSV rows without their first column, the run's id.
std::string withoutRunIds(const std::string& csv)
{
    std::string out;
    for (std::size_t at = 0; at < csv.size();) {
        const auto end = csv.find('\n', at);
        const auto line = csv.substr(at, end == std::string::npos ? std::string::npos : end - at);
        out += line.substr(std::min(line.size(), line.find(',') + 1)) + '\n';
        at = end == std::string::npos ? csv.size() : end + 1;
    }
    return out;
}

std::string joined(const std::vector<std::string>& blocks, std::size_t first, std::size_t n)
{
    std::string text;
    for (std::size_t i = first; i < first + n; ++i) {
        text += blocks.at(i);
    }
    return text;
}

TEST_F(CliImportDuplicate, TheSameFileAgainIsRefusedUnderAnyLabelOrName)
{
    const auto file = sample("perf_stat_appended.csv");
    const auto first = run({"import", "perf-stat", file, "--label", "vanilla", "--kernel", "6.1"});
    ASSERT_EQ(first.status, 0) << first.err;
    EXPECT_NE(first.out.find("imported 5 repetitions of perf-stat as run 1 'vanilla'"), std::string::npos) << first.out;
    for (const auto& label : {"vanilla", "patched"}) {
        const auto again = run({"import", "perf-stat", file, "--label", label, "--kernel", "6.1"});
        EXPECT_EQ(again.status, 2) << label;
        EXPECT_EQ(again.err, refusal(file, "run 1 'vanilla'"));
        EXPECT_TRUE(again.out.empty()) << again.out;
    }
    const auto copy = m_dir.file("out-boot2.csv");
    std::filesystem::copy_file(file, copy);
    const auto renamed = run({"import", copy, "--label", "boot2", "--kernel", "6.1"});
    EXPECT_EQ(renamed.status, 2);
    EXPECT_EQ(renamed.err, refusal(copy, "run 1 'vanilla'"));
    EXPECT_EQ(runs(), 1u);
}

// perf stat --append after every boot: the file grows by one block a boot, and each import after a
// boot adds that one.
TEST_F(CliImportDuplicate, AnAppendedFileAddsOnlyItsNewBlock)
{
    const auto blocks = blocksOf(readFile(sample("perf_stat_appended.csv")), "# started on");
    ASSERT_EQ(blocks.size(), 5u);
    const auto out = writeFile("out.csv", joined(blocks, 0, 2));
    const auto two = run({"import", "perf-stat", out, "--label", "vanilla", "--kernel", "6.1"});
    ASSERT_EQ(two.status, 0) << two.err;
    EXPECT_NE(two.out.find("imported 2 repetitions of perf-stat as run 1"), std::string::npos) << two.out;

    writeFile("out.csv", joined(blocks, 0, 3));
    const auto three = run({"import", "perf-stat", out, "--label", "vanilla", "--kernel", "6.1"});
    ASSERT_EQ(three.status, 0) << three.err;
    EXPECT_EQ(three.out.rfind("skipped 2 of 3 repetitions already stored (run 1 'vanilla'): repetitions 1-2 of " + out +
                                  "\nimported 1 repetition of perf-stat as run 2 'vanilla'",
                              0),
              0u)
        << three.out;
    EXPECT_TRUE(three.err.empty()) << three.err;
    const auto show = run({"show", "2"});
    ASSERT_EQ(show.status, 0) << show.err;
    EXPECT_NE(show.out.find("note: skipped 2 of 3 repetitions already stored (run 1 'vanilla')"), std::string::npos)
        << show.out;

    // Run 2 holds what an import of the third block alone holds.
    const auto alone = writeFile("third.csv", blocks[2]);
    ASSERT_EQ(
        runCli({"--db", m_dir.file("alone.db"), "import", "perf-stat", alone, "--label", "vanilla", "--kernel", "6.1"},
               m_dir)
            .status,
        0);
    const auto stored = run({"export", "2", "--format", "csv"});
    ASSERT_EQ(stored.status, 0) << stored.err;
    EXPECT_EQ(withoutRunIds(stored.out),
              withoutRunIds(runCli({"--db", m_dir.file("alone.db"), "export", "1", "--format", "csv"}, m_dir).out));

    // The whole file after the fifth boot: its last two blocks are new.
    writeFile("out.csv", joined(blocks, 0, 5));
    const auto five = run({"import", "perf-stat", out, "--label", "vanilla", "--kernel", "6.1"});
    ASSERT_EQ(five.status, 0) << five.err;
    EXPECT_NE(five.out.find("skipped 3 of 5 repetitions already stored (runs 1 'vanilla' and 2 'vanilla'): "
                            "repetitions 1-3 of " +
                            out + "\nimported 2 repetitions"),
              std::string::npos)
        << five.out;
    EXPECT_EQ(run({"import", "perf-stat", out, "--label", "vanilla", "--kernel", "6.1"}).err,
              refusal(out, "runs 1 'vanilla', 2 'vanilla' and 3 'vanilla'"));
    EXPECT_EQ(runs(), 3u);
}

// perf stat -r 5, its output appended to one file (2>>): a block is a summary.
TEST_F(CliImportDuplicate, AppendedSummariesAddOnlyTheNewSummary)
{
    const auto blocks = blocksOf(readFile(sample("perf_stat_r5_text.txt")), " Performance counter stats for");
    ASSERT_EQ(blocks.size(), 4u);
    const auto out = writeFile("r5.txt", joined(blocks, 0, 2));
    ASSERT_EQ(run({"import", out, "--label", "vanilla", "--kernel", "6.1"}).status, 0);
    writeFile("r5.txt", joined(blocks, 0, 3));
    const auto three = run({"import", out, "--label", "vanilla", "--kernel", "6.1"});
    ASSERT_EQ(three.status, 0) << three.err;
    EXPECT_NE(three.out.find("skipped 2 of 3 summaries already stored (run 1 'vanilla'): summaries 1-2 of " + out +
                             "\nimported 1 summary of perf-stat as run 2"),
              std::string::npos)
        << three.out;
    const auto again = run({"import", "perf-stat", out, "--label", "patched"});
    EXPECT_EQ(again.status, 2);
    EXPECT_EQ(again.err, refusal(out, "runs 1 'vanilla' and 2 'vanilla'", "summary"));
}

TEST_F(CliImportDuplicate, AFileGivenTwiceInOneImportIsStoredOnce)
{
    const auto file = sample("page_frag_test_dmesg.txt");
    const auto copy = m_dir.file("again.txt");
    std::filesystem::copy_file(file, copy);
    const auto r = run({"import", "page-frag-test", file, copy, "--label", "x", "--kernel", "6.1"});
    ASSERT_EQ(r.status, 0) << r.err;
    EXPECT_EQ(r.out.rfind("skipped 5 of 10 repetitions given earlier in this import: repetitions 1-5 of " + copy +
                              "\nimported 5 repetitions of page-frag-test as run 1 'x'",
                          0),
              0u)
        << r.out;
    EXPECT_TRUE(r.err.empty()) << r.err;
}

TEST_F(CliImportDuplicate, AllowDuplicateStoresItAgainWithAWarning)
{
    const auto file = real("perf-stat_r30_netcat_yunsheng.txt");
    ASSERT_EQ(run({"import", file, "--label", "vanilla", "--kernel", "6.9"}).status, 0);
    const auto r = run({"import", file, "--label", "patched", "--kernel", "6.9", "--allow-duplicate"});
    ASSERT_EQ(r.status, 0) << r.err;
    EXPECT_NE(r.out.find("imported 1 summary of perf-stat as run 2 'patched'"), std::string::npos) << r.out;
    EXPECT_EQ(r.out.find("skipped"), std::string::npos) << r.out;
    EXPECT_EQ(r.err,
              "noisefloor: warning: run 2 stored again 1 of 1 summary already stored (run 1 'vanilla'): "
              "summary 1 of " +
                  file + " (--allow-duplicate)\n");
    EXPECT_EQ(runs(), 2u);
    // Both runs hold the content now: a third import names them both.
    EXPECT_EQ(run({"import", file, "--label", "third"}).err,
              refusal(file, "runs 1 'vanilla' and 2 'patched'", "summary"));
}

// Every importer's output goes through the same check: a repetition is a run of the tool, a file,
// or a slice of a recording.
TEST_F(CliImportDuplicate, EveryImporterRefusesContentStoredAlready)
{
    const std::vector<std::vector<std::string>> imports = {
        {"perf-stat", real("perf-stat_v6_text_user-sys_modprobe-amd.txt")},
        {"perf-stat", real("perf-stat_csv-interval_summary-column_jinyao.txt")},
        {"sar", sample("sar_dev.txt"), "--iface", "lo"},
        {"xdpsock", real("xdpsock_rxdrop_two-periods_shenwei.txt")},
        {"xdp-bench", real("xdp-bench_drop_imx93_weifang.txt")},
        {"time-bench", real("time-bench_page-pool-simple_3-loads_arm64_yunsheng.txt")},
        {"pktgen", real("pktgen_sample04_n1_indented_juhee.txt")},
        {"netperf", real("netperf_udp-rr_5-runs_eelinux.txt")},
        {"perf-report", real("perf-report_flat_unknown-kernel-addr_tip-footer_acme.txt")},
        {"perf-script", real("perf-script_iperf_pid-tid_flamegraph.txt")},
        {"perf-script", real("perf-script_numa_32-cpus_kallsyms_flamegraph.txt"), "--slice", "0.01"},
    };
    std::size_t stored = 0;
    for (const auto& args : imports) {
        std::vector<std::string> first = {"import"};
        first.insert(first.end(), args.begin(), args.end());
        first.insert(first.end(), {"--label", "first", "--kernel", "k"});
        const auto r = run(first);
        ASSERT_EQ(r.status, 0) << args[1] << ": " << r.err;
        ++stored;
        auto second = first;
        second[second.size() - 3] = "second";
        const auto again = run(second);
        EXPECT_EQ(again.status, 2) << args[1] << ": " << again.out;
        EXPECT_EQ(again.err, refusal(args[1], "run " + std::to_string(stored) + " 'first'")) << args[1];
    }
    EXPECT_EQ(runs(), stored);
    // Other CPUs of the same recording are other content.
    const auto cpus = run({"import", "perf-script", real("perf-script_numa_32-cpus_kallsyms_flamegraph.txt"), "--slice",
                           "0.01", "--cpu", "0-15", "--label", "low", "--kernel", "k"});
    EXPECT_EQ(cpus.status, 0) << cpus.err;
}

TEST_F(CliImportDuplicate, AMergedDatabaseKnowsWhatItHolds)
{
    const auto file = sample("perf_stat_appended.csv");
    const auto lab = m_dir.file("lab.db");
    ASSERT_EQ(runCli({"--db", lab, "import", file, "--label", "vanilla", "--kernel", "6.1"}, m_dir).status, 0);
    const auto merged = run({"merge", lab});
    ASSERT_EQ(merged.status, 0) << merged.err;
    const auto again = run({"import", file, "--label", "vanilla", "--kernel", "6.1"});
    EXPECT_EQ(again.status, 2);
    EXPECT_EQ(again.err, refusal(file, "run 1 'vanilla'"));
    EXPECT_EQ(runs(), 1u);
}

}  // namespace
}  // namespace nf::test
