// End to end: imported results are ordinary runs (list, show, export, compare), bad input is one
// line naming the file and line with nothing stored, and cross-boot comparisons name both kernels
// and what else differs.

#include <gtest/gtest.h>

#include <algorithm>
#include <filesystem>
#include <fstream>
#include <nlohmann/json.hpp>
#include <sstream>
#include <vector>

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
    EXPECT_NE(show.out.find("imported from page-frag-test output in " + sample("page_frag_test_dmesg.txt") +
                            " (page_frag_test, 5 module loads, mode non-aligned); 5 repetition(s); host from option, "
                            "kernel from option"),
              std::string::npos)
        << show.out;
}

TEST_F(CliImport, GarbageIsOneLineNamingFileAndLineWithNothingStored)
{
    const auto bad = writeFile("bad.txt", "[ 1.0] 2000000 of iterations for non-aligned testing took: 4013\n");
    auto r = run({"import", "page-frag-test", sample("page_frag_test_dmesg.txt"), bad, "--label", "x"});
    EXPECT_EQ(r.status, 2);
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

TEST_F(CliImport, CsvExportOfPerfStatRunsHasEachColumnOnce)
{
    ASSERT_EQ(run({"import", "perf-stat", sample("perf_stat_appended.csv"), "--label", "x"}).status, 0);
    const auto csv = run({"export", "1", "--format", "csv"});
    ASSERT_EQ(csv.status, 0) << csv.err;
    const auto header = csv.out.substr(0, csv.out.find('\n'));
    std::vector<std::string> names;
    std::istringstream in(header);
    for (std::string name; std::getline(in, name, ',');) {
        EXPECT_EQ(std::count(names.begin(), names.end(), name), 0) << name << " twice in " << header;
        names.push_back(name);
    }
    EXPECT_NE(std::find(names.begin(), names.end(), "task-clock"), names.end()) << header;
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
    const auto r = run({"compare", "--label", "vanilla", "--label", "patched", "--metric", "task-clock", "--verbose"});
    ASSERT_EQ(r.status, 0) << r.err;
    EXPECT_NE(r.out.find("kernels: 6.12.0 (run 1 'vanilla') vs 6.12.0+pp (run 2 'patched')"), std::string::npos)
        << r.out;
    EXPECT_NE(r.out.find("CPU model differs: Xeon A (run 1 'vanilla') vs Xeon B"), std::string::npos) << r.out;
    EXPECT_NE(r.out.find("perf stat -r summaries: compared from n, mean and standard error"), std::string::npos)
        << r.out;
    EXPECT_NE(r.out.find("Mann-Whitney not run (needs the runs)"), std::string::npos) << r.out;
    EXPECT_NE(r.out.find("patched vs vanilla"), std::string::npos) << r.out;

    const auto v = run({"compare", "--label", "vanilla:default", "--label", "patched:default", "--format", "json"});
    ASSERT_EQ(v.status, 0) << v.err;
    const auto json = nlohmann::json::parse(v.out);
    EXPECT_EQ(json["comparisons"][0]["candidate"], "patched");
}

}  // namespace
}  // namespace nf::test

namespace nf::test {
namespace {

class CliImportReal : public CliTest {
protected:
    static std::string real(const std::string& name) { return std::string(NF_IMPORT_SAMPLES) + "/real/" + name; }
    std::string writeFile(const std::string& name, const std::string& text)
    {
        std::ofstream(m_dir.file(name), std::ios::binary) << text;
        return m_dir.file(name);
    }
    std::size_t runs() { return nlohmann::json::parse(run({"list", "--format", "json"}).out).size(); }
};

TEST_F(CliImportReal, TheToolIsDetectedAndNamedAndStillTakesItsName)
{
    auto r = run({"import", real("xdp-bench_redirect_err-drop-xmit_enetc_weifang.txt"), "--label", "enetc"});
    ASSERT_EQ(r.status, 0) << r.err;
    EXPECT_EQ(r.out.rfind("detected xdp-bench: xdp-bench redirect, 2 intervals with detail lines\n", 0), 0U) << r.out;
    EXPECT_NE(r.out.find("every packet received was dropped or failed"), std::string::npos) << r.out;
    auto a = run({"import", "auto", real("pktgen_sample04_t4_ctrl-c_soscon19.txt"), "--label", "t4"});
    ASSERT_EQ(a.status, 0) << a.err;
    EXPECT_NE(a.out.find("detected pktgen: pktgen, 1 run of 4 threads each (their rates summed)"), std::string::npos)
        << a.out;
    auto named = run({"import", "perf-stat", real("perf-stat_r4_C0_dma01.txt"), "--label", "dma"});
    ASSERT_EQ(named.status, 0) << named.err;
    EXPECT_EQ(named.out.find("detected"), std::string::npos) << named.out;  // named: nothing to detect
    const auto show = run({"show", "2"});
    EXPECT_NE(show.out.find("pps     packets/s  default  1  14134309"), std::string::npos) << show.out;
    const auto evidence = run({"compare", "1", "--verbose"});
    EXPECT_NE(evidence.out.find("imported from xdp-bench output in"), std::string::npos) << evidence.out;
    EXPECT_NE(evidence.out.find("(xdp-bench redirect, 2 intervals with detail lines)"), std::string::npos)
        << evidence.out;
}

TEST_F(CliImportReal, SummariesAreShownExportedAndComparedAsSummaries)
{
    ASSERT_EQ(run({"import", real("perf-stat_r200_netcat_zero-variance-row_yunsheng.txt"), "--label", "before"}).status,
              0);
    ASSERT_EQ(run({"import", real("perf-stat_r200_netcat_yunsheng.txt"), "--label", "after"}).status, 0);
    const auto show = run({"show", "1"});
    ASSERT_EQ(show.status, 0) << show.err;
    // cycles: 32077623335 +- 0.03% over 200 runs: se 9623287, stddev se * sqrt(200) = 136093830.
    EXPECT_NE(show.out.find("cycles            count  default  200  3.2078e+10       -  136093830"), std::string::npos)
        << show.out;
    EXPECT_NE(show.out.find("stddev (se x sqrt(n))"), std::string::npos) << show.out;
    const auto csv = run({"export", "1", "--format", "csv"});
    EXPECT_EQ(csv.out.rfind("run,variant,repetition,row,quantity,n,mean,se,stddev\n", 0), 0U) << csv.out;
    EXPECT_NE(csv.out.find("1,default,0,summary,cycles,200,32077623335,"), std::string::npos) << csv.out;
    const auto json = nlohmann::json::parse(run({"export", "1", "--format", "json"}).out);
    EXPECT_EQ(json["stored_as"], "summaries");
    EXPECT_EQ(json["summaries"][0]["row"], "summary");
    const auto cmp = run({"compare", "--label", "before", "--label", "after", "--metric", "cycles", "--verbose"});
    ASSERT_EQ(cmp.status, 0) << cmp.err;
    EXPECT_NE(cmp.out.find("Mann-Whitney not run (needs the runs)"), std::string::npos) << cmp.out;
    EXPECT_NE(cmp.out.find("over 200 runs"), std::string::npos) << cmp.out;
}

// The importers' list is the CLI's: `import --help` names every importer with its summary, and
// a netperf before/after pair imports and compares like any run.
TEST_F(CliImportReal, EveryImporterIsATool)
{
    const auto help = run({"import", "--help"});
    EXPECT_NE(help.out.find("Store results of perf stat, sar, sadf,"), std::string::npos) << help.out;
    EXPECT_NE(help.out.find("  netperf: netperf TCP_STREAM"), std::string::npos) << help.out;
    auto before = run({"import", real("netperf_tcp-rr_cpu-util-ipv6_before_dumazet.txt"), "--label", "before"});
    ASSERT_EQ(before.status, 0) << before.err;
    EXPECT_EQ(before.out.rfind("detected netperf: netperf TCP_RR, with CPU utilization, 1 run\n", 0), 0U) << before.out;
    auto after = run({"import", "netperf", real("netperf_tcp-rr_cpu-util-ipv6_after_dumazet.txt"), "--label", "after"});
    ASSERT_EQ(after.status, 0) << after.err;
    const auto show = run({"show", "2"});
    EXPECT_NE(show.out.find("transaction_rate       trans/s  default  1   8384.0"), std::string::npos) << show.out;
    EXPECT_NE(show.out.find("local_service_demand   us/Tr    default  1   54.432"), std::string::npos) << show.out;
    auto loop = run({"import", real("netperf_udp-rr_5-runs_eelinux.txt"), "--label", "busy-poll-off"});
    ASSERT_EQ(loop.status, 0) << loop.err;
    EXPECT_NE(loop.out.find("imported 5 repetitions of netperf"), std::string::npos) << loop.out;
}

// Bad input is one line naming the file (and line), exit status 2, and nothing is stored.
TEST_F(CliImportReal, BadInputIsOneLineExitTwoAndNothingStored)
{
    const auto empty = writeFile("empty.txt", "");
    const std::string elf =
        "Summary 1 rx/s\n\x7f"
        "ELF\x02\x01\x01";
    const auto binary = writeFile("bin.txt", elf + std::string(8, '\0'));
    const auto unknown = writeFile("notes.txt", "hello\nworld\n");
    const auto sar = real("sar_dev_1_no-header_veth-overflow_jdxj.txt");
    const auto perf = real("perf-stat_r4_C0_dma01.txt");
    const auto truncated = real("perf-stat_r4_da-DK_truncated_page-pool06.txt");
    const auto thread = real("pktgen_proc-thread_kpktgend_pktgen-rst.txt");
    // A missing file or a directory is a runtime failure (status 1), as everywhere in the CLI.
    const std::vector<std::pair<std::vector<std::string>, std::string>> cases = {
        {{empty}, empty + ": the file is empty"},
        {{binary}, binary + ":2: binary data (a NUL byte), not a tool's text"},
        {{unknown}, unknown + ": not output of perf stat"},
        {{perf, sar}, sar + ": sar output, but " + perf + " is perf-stat output"},
        {{"sar", perf}, perf + ": no sar -n DEV lines"},
        {{truncated}, truncated + ":22: the perf stat block that starts at line 8 ends without"},
        {{thread}, thread + ":5: a pktgen thread file"},
        {{"/dev/zero"}, "/dev/zero:1: binary data (a NUL byte)"},
        {{m_dir.path()}, m_dir.path() + ": a directory, not a file"},
        {{m_dir.file("missing.txt")}, "cannot read " + m_dir.file("missing.txt")},
    };
    for (const auto& [files, message] : cases) {
        std::vector<std::string> args = {"import"};
        args.insert(args.end(), files.begin(), files.end());
        args.insert(args.end(), {"--label", "x"});
        const auto r = run(args);
        const bool runtime = message.find("directory") != std::string::npos || message.rfind("cannot read", 0) == 0;
        EXPECT_EQ(r.status, runtime ? 1 : 2) << message << ": " << r.err;
        EXPECT_EQ(r.err.rfind("noisefloor: " + message, 0), 0U) << r.err;
        EXPECT_EQ(std::count(r.err.begin(), r.err.end(), '\n'), 1) << r.err;
    }
    EXPECT_EQ(runs(), 0U);
}

// Seed 001 as pasted: the pre-patch block with its header ('CPU(s) 20'), the post-patch one without
// it. perf stat -C 20 over 10 s counts cpu-clock 10,000 ms whatever the patch does: the primary
// metric is ipc.
TEST_F(CliImportReal, SeedBlocksImportAndCompareWithIpcFirst)
{
    ASSERT_EQ(run({"import", real("perf-stat_C20_mail-wrapped_bjorn.txt"), "--label", "pre"}).status, 0);
    const auto post = run({"import", real("perf-stat_C20_no-header_bjorn.txt"), "--label", "post"});
    ASSERT_EQ(post.status, 0) << post.err;
    EXPECT_NE(post.out.find("  note: no 'Performance counter stats for' header before the counter lines at line 2: "
                            "the target perf stat counted (CPUs, a command) is unknown"),
              std::string::npos)
        << post.out;
    const auto cmp = run({"compare", "--label", "pre", "--label", "post", "--format", "json"});
    ASSERT_EQ(cmp.status, 0) << cmp.err;
    const auto comparisons = nlohmann::json::parse(cmp.out)["comparisons"];
    ASSERT_FALSE(comparisons.empty());
    EXPECT_EQ(comparisons[0]["metric"], "ipc");
    EXPECT_EQ(comparisons[0]["primary_metric"], true);
    for (std::size_t i = 1; i < comparisons.size(); ++i) {
        EXPECT_EQ(comparisons[i]["primary_metric"], false) << comparisons[i]["metric"];
    }
    const auto text = run({"compare", "--label", "pre", "--label", "post"});
    EXPECT_NE(text.out.find("* ipc                2.758   -   2.816   -      +2.13"), std::string::npos) << text.out;
}

// The rate the mail gives (or xdpsock's output of the same 10 s) joined with the counters: cycles and
// branch misses per packet, as the live workloads name them.
TEST_F(CliImportReal, ARateJoinedWithTheCountersGivesThemPerPacket)
{
    const auto pre =
        run({"import", real("perf-stat_C20_mail-wrapped_bjorn.txt"), "--label", "pre", "--rate", "22.8Mpps"});
    ASSERT_EQ(pre.status, 0) << pre.err;
    EXPECT_NE(pre.out.find("  note: packets = 22.8 Mpps x 10.0006 s elapsed = 228014501: the per-packet counters rest "
                           "on a packet rate measured apart from them (given as --rate 22.8Mpps)"),
              std::string::npos)
        << pre.out;
    ASSERT_EQ(
        run({"import", real("perf-stat_C20_no-header_bjorn.txt"), "--label", "post", "--rate", "23.2 Mpps"}).status, 0);
    const auto show = run({"show", "1"});
    EXPECT_NE(show.out.find("cycles_per_packet         per packet     default  1      131.27"), std::string::npos)
        << show.out;
    EXPECT_NE(show.out.find("(perf stat text, packets from --rate 22.8 Mpps measured apart)"), std::string::npos)
        << show.out;
    const auto exported = nlohmann::json::parse(run({"export", "1", "--format", "json"}).out);
    const auto rate = exported["environment"]["import"]["rate"];
    EXPECT_EQ(rate["figure"], "22.8Mpps") << exported["environment"].dump();
    EXPECT_DOUBLE_EQ(rate["packets"].get<double>(), 22.8e6 * 10.000636027);
    const auto cmp = run({"compare", "--label", "pre", "--label", "post", "--format", "json"});
    ASSERT_EQ(cmp.status, 0) << cmp.err;
    const auto comparisons = nlohmann::json::parse(cmp.out)["comparisons"];
    ASSERT_GE(comparisons.size(), 2u);
    EXPECT_EQ(comparisons[0]["metric"], "ipc");  // the counters' own question stays first
    EXPECT_EQ(comparisons[1]["metric"], "cycles_per_packet");
    // The compact text says, for each run, that its per-packet values rest on a rate from elsewhere.
    const auto text = run({"compare", "--label", "pre", "--label", "post"});
    EXPECT_NE(text.out.find("! run 1 'pre': per packet: the packets are a rate measured apart from\n"
                            "  the counters (--rate 22.8Mpps), not counted with them"),
              std::string::npos)
        << text.out;
    EXPECT_NE(text.out.find("(--rate 23.2 Mpps)"), std::string::npos) << text.out;

    // The same counters at the same rate (the file averages exactly 22.8 Mpps): the same content as
    // run 1, stored again on purpose.
    const std::string xdpsock = std::string(NF_IMPORT_SAMPLES) + "/xdpsock_rxdrop_10s.txt";
    const auto file = run({"import", real("perf-stat_C20_mail-wrapped_bjorn.txt"), "--label", "pre-x", "--rate",
                           xdpsock, "--allow-duplicate"});
    ASSERT_EQ(file.status, 0) << file.err;
    EXPECT_NE(file.out.find("(rx_pps of xdpsock rxdrop output in " + xdpsock + ")"), std::string::npos) << file.out;
    const auto fileShow = run({"show", "3"});
    EXPECT_NE(fileShow.out.find("cycles_per_packet         per packet     default  1      131.27"), std::string::npos)
        << fileShow.out;
}

// A rate of another length, a figure in another unit, a file that is not a rate: one line, exit
// status 2, nothing stored.
TEST_F(CliImportReal, ARateThatCannotBeJoinedIsOneLineExitTwo)
{
    const auto block = real("perf-stat_C20_mail-wrapped_bjorn.txt");
    const auto other = real("xdpsock_rxdrop_2019-layout_bjorn.txt");
    const std::vector<std::pair<std::vector<std::string>, std::string>> cases = {
        {{block, "--rate", other},
         "--rate: the rate was measured over 1 s (rx_pps of xdpsock rxdrop output in " + other +
             "), the perf stat block over 10.0006 s: more than 10% apart"},
        {{block, "--rate", "10Gbps"}, "--rate '10Gbps': 'bps' is not a unit of packets per second"},
        {{block, "--rate", "fast"}, "--rate 'fast': no such file, and not a packet rate (22.8Mpps, 22.8 Mpps"},
        {{block, "--rate", block}, "--rate: " + block + ": perf-stat output, which gives no packet rate"},
        {{other, "--rate", "1Mpps"}, "--rate joins a packet rate with perf stat counters, not with xdpsock output"},
    };
    for (const auto& [args, message] : cases) {
        std::vector<std::string> all = {"import"};
        all.insert(all.end(), args.begin(), args.end());
        all.insert(all.end(), {"--label", "x"});
        const auto r = run(all);
        EXPECT_EQ(r.status, 2) << message << ": " << r.err;
        EXPECT_EQ(r.err.rfind("noisefloor: " + message, 0), 0U) << r.err;
        EXPECT_EQ(std::count(r.err.begin(), r.err.end(), '\n'), 1) << r.err;
    }
    EXPECT_EQ(runs(), 0U);
}

// A file over the limit is refused before it is read: a sparse 1 GiB file costs nothing.
TEST_F(CliImportReal, AFileOverTheSizeLimitIsRefusedUnread)
{
    const auto big = m_dir.file("big.txt");
    std::ofstream(big) << "Summary 1 rx/s\n";
    std::filesystem::resize_file(big, std::uintmax_t{1} << 30);
    const auto r = run({"import", big, "--label", "x"});
    EXPECT_EQ(r.status, 2);
    EXPECT_EQ(r.err, "noisefloor: " + big +
                         ": 1024 MiB, more than the 64 MiB an import reads: import the tool's "
                         "output, not a capture of everything\n");
    EXPECT_EQ(runs(), 0U);
}

}  // namespace
}  // namespace nf::test
