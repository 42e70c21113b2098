// The importers against real captured outputs (perf stat, sar) and outputs written exactly as the
// tools' sources print them (xdpsock, xdp-bench, time_bench, page_frag_test, pktgen, netperf).

#include <gtest/gtest.h>

#include <algorithm>
#include <cmath>
#include <fstream>
#include <numeric>
#include <set>
#include <sstream>
#include <string>
#include <vector>

#include "engine/import/import_format.h"
#include "engine/import/imported_run.h"
#include "engine/import/rate_join.h"
#include "engine/stats/descriptive.h"
#include "tests/engine/import_test_support.h"

namespace nf::engine::import_test {
namespace {

const ImportSummary& summaryOf(const ImportTable& t, std::size_t rep, const std::string& quantity)
{
    static const ImportSummary none{};
    for (const auto& s : t.summaries.at(rep)) {
        if (s.quantity == quantity) {
            return s;
        }
    }
    ADD_FAILURE() << "no summary of " << quantity;
    return none;
}

// Replaces the `n`-th line (1-based) of `text`, or removes it when `with` is null.
std::string editLine(const std::string& text, std::size_t n, const char* with)
{
    std::istringstream in(text);
    std::string out;
    std::string line;
    for (std::size_t i = 1; std::getline(in, line); ++i) {
        if (i == n) {
            if (with != nullptr) {
                out += std::string(with) + "\n";
            }
        } else {
            out += line + "\n";
        }
    }
    return out;
}

// `src` with its `n`-th line replaced, or removed when `with` is null.
ImportSource edited(ImportSource src, std::size_t n, const char* with)
{
    src.text = editLine(src.text, n, with);
    return src;
}

// `r` is refused with a message that contains `part`.
void expectRefused(const Result<ImportTable>& r, const std::string& part)
{
    ASSERT_FALSE(r.ok()) << "imported; expected: " << part;
    EXPECT_NE(r.error().message.find(part), std::string::npos) << r.error().message << "\nlooked for: " << part;
}

// `r` is refused with a message that starts with `prefix`.
void expectRefusedStartingWith(const Result<ImportTable>& r, const std::string& prefix)
{
    ASSERT_FALSE(r.ok()) << "imported; expected: " << prefix;
    EXPECT_EQ(r.error().message.rfind(prefix, 0), 0U) << r.error().message << "\nlooked for at its start: " << prefix;
}

TEST(PerfStatImport, AppendedRunsAreOneRepetitionEachAndUncountedEventsAreRecorded)
{
    auto t = parse("perf-stat", sample("perf_stat_appended.csv"));
    ASSERT_TRUE(t.ok()) << t.error().message;
    EXPECT_EQ(t->repetitions.size(), 5u);
    ASSERT_EQ(t->layout.metrics.size(), 3u);
    EXPECT_EQ(t->layout.metrics[0].name, "task-clock");
    EXPECT_EQ(t->layout.metrics[0].unit, "msec");
    EXPECT_EQ(t->layout.metrics[2].name, "page-faults");
    ASSERT_EQ(t->unsupported.size(), 1u);
    EXPECT_EQ(t->unsupported[0]["name"], "cycles");
    EXPECT_EQ(t->unsupported[0]["reason"], "<not supported>");
    EXPECT_DOUBLE_EQ(values(*t, "task-clock")[0], 0.55);  // the file's first run
    EXPECT_DOUBLE_EQ(values(*t, "page-faults")[1], 50);
    EXPECT_FALSE(t->summarised());
}

TEST(PerfStatImport, CsvSummaryNeedsItsRunCountAndKeepsMeanAndNoise)
{
    const auto src = sample("perf_stat_r5.csv");
    const auto missing = parse("perf-stat", src);
    expectRefused(missing, "perf_stat_r5.csv:3:");
    expectRefused(missing, "--runs");

    auto t = parse("perf-stat", src, {"", 5});
    ASSERT_TRUE(t.ok()) << t.error().message;
    ASSERT_TRUE(t->summarised());
    ASSERT_EQ(t->repetitions.size(), 1u);  // one summary, not five made-up values
    const auto& s = summaryOf(*t, 0, "task-clock");
    EXPECT_EQ(s.n, 5);
    EXPECT_NEAR(s.mean, 0.47, 1e-12);
    // perf's "3.40%" is the standard error of the mean.
    EXPECT_NEAR(s.se, 0.47 * 0.034, 1e-12);
}

TEST(PerfStatImport, TextSummariesGiveNValuesEachAndTheElapsedTime)
{
    auto t = parse("perf-stat", sample("perf_stat_r5_text.txt"));
    ASSERT_TRUE(t.ok()) << t.error().message;
    ASSERT_EQ(t->repetitions.size(), 4u);  // four "-r 5" invocations of the same command
    ASSERT_EQ(t->summaries.size(), 4u);
    const auto& first = summaryOf(*t, 0, "task-clock");
    EXPECT_EQ(first.n, 5);
    EXPECT_NEAR(first.mean, 0.53, 1e-12);
    EXPECT_NEAR(first.se, 0.53 * 0.0412, 1e-12);
    EXPECT_NEAR(summaryOf(*t, 0, "time_elapsed").mean, 0.000575, 1e-15);
    EXPECT_DOUBLE_EQ(values(*t, "task-clock")[0], 0.53);  // the repetition's one sample holds the means
}

TEST(PerfStatImport, TwoSummariesOfDifferentCommandsAreRefused)
{
    const std::string a =
        " Performance counter stats for 'true' (5 runs):\n\n  0.43 msec task-clock  ( +- 5.28% )\n\n"
        "  0.00319 +- 0.00244 seconds time elapsed  ( +- 76.57% )\n\n";
    std::string b = a;
    b.replace(b.find("'true'"), 6, "'false'");
    expectRefused(parse("perf-stat", {"two.txt", a + b}), "two.txt:7: perf stat of 'false' after perf stat of 'true'");
}

TEST(PerfStatImport, SingleTextRunIsOneRepetition)
{
    auto t = parse("perf-stat", sample("perf_stat_single_text.txt"));
    ASSERT_TRUE(t.ok()) << t.error().message;
    EXPECT_EQ(t->repetitions.size(), 1u);
    EXPECT_DOUBLE_EQ(values(*t, "task-clock")[0], 0.56);
    EXPECT_DOUBLE_EQ(values(*t, "time_elapsed")[0], 0.001232848);
}

TEST(PerfStatImport, TruncatedMixedAndGarbageInputNameTheLine)
{
    auto src = sample("perf_stat_appended.csv");
    src.text = src.text.substr(0, src.text.rfind("page-faults") - 4);  // the last run cut short
    expectRefused(parse("perf-stat", src), "truncated");

    const auto mixed =
        edited(sample("perf_stat_appended.csv"), 10, "0.61,msec,cpu-clock,535213,100.00,0.034,CPUs utilized");
    expectRefused(parse("perf-stat", mixed), "perf_stat_appended.csv:10: event 'cpu-clock'");

    EXPECT_EQ(refusal(parse("perf-stat", {"junk.bin", std::string("0.5,msec,task-clock,1,100\n") + "\x01\x02\x7f"})),
              "junk.bin:2: binary data, not perf stat output");
    EXPECT_EQ(refusal(parse("perf-stat", {"notes.txt", "hello world\n"})), "notes.txt: no perf stat results in it");

    // Inside a block every line must be understood; text after the block is not read.
    const std::string block =
        " Performance counter stats for 'true':\n\n    0.43 msec task-clock\n"
        "           5      context-switches\n\n       0.00319 seconds time elapsed\n";
    EXPECT_EQ(refusal(parse("perf-stat", {"in.txt", editLine(block, 4, "    this is not a counter")})),
              "in.txt:4: not a perf stat counter line: 'this is not a counter'");
    auto after = parse("perf-stat", {"after.txt", block + "$ echo done\ndone\n"});
    ASSERT_TRUE(after.ok()) << after.error().message;
    expectRefused(parse("perf-stat", {"cut.txt", editLine(block, 6, nullptr)}),
                  "cut.txt:4: the perf stat block that starts at line 1 ends without");
}

TEST(SarImport, OneInterfaceRatesAgreeWithSarsOwnAverage)
{
    const auto src = sample("sar_dev.txt");
    expectRefused(parse("sar", src), "--iface");

    auto t = parse("sar", src, {"lo", std::nullopt});
    ASSERT_TRUE(t.ok()) << t.error().message;
    EXPECT_EQ(t->kernel, "6.18.44-fc-v857");
    EXPECT_EQ(t->host, "vm");
    ASSERT_EQ(t->repetitions.size(), 1u);
    EXPECT_EQ(t->repetitions[0].size(), 3u);
    // sar's "Average:" line for lo divides by the true elapsed time; the intervals here come from
    // its one-second timestamps, so the two agree to the timestamps' rounding (well within 0.5%).
    double average = 0;
    std::istringstream in(src.text);
    std::string line;
    while (std::getline(in, line)) {
        std::istringstream words(line);
        std::string a;
        std::string iface;
        if (words >> a >> iface && a == "Average:" && iface == "lo") {
            words >> average;
        }
    }
    ASSERT_GT(average, 0);
    EXPECT_NEAR(values(*t, "rx_pps")[0] / average, 1.0, 0.005);
}

TEST(SarImport, TruncatedLineIsAnError)
{
    const auto src = edited(sample("sar_dev.txt"), 4, "03:44:59           lo  67722.77  67722.77");
    expectRefused(parse("sar", src, {"lo", std::nullopt}), "sar_dev.txt:4: expected 9 fields after the time");
}

TEST(XdpsockImport, IntervalsWeightedByTheirPeriodMatchTheCumulativeCount)
{
    const auto src = sample("xdpsock_rxdrop.txt");
    auto t = parse("xdpsock", src);
    ASSERT_TRUE(t.ok()) << t.error().message;
    ASSERT_EQ(t->repetitions.size(), 1u);
    EXPECT_EQ(t->repetitions[0].size(), 5u);
    // The last "rx" line's pkts column is the total; over 4.41 s it is the mean rate.
    const auto last = src.text.rfind("\nrx ");
    std::istringstream words(src.text.substr(last + 4));
    std::string pps;
    std::string pkts;
    words >> pps >> pkts;
    pkts.erase(std::remove(pkts.begin(), pkts.end(), ','), pkts.end());
    EXPECT_NEAR(values(*t, "rx_pps")[0], std::stod(pkts) / 4.41, 1.0);

    auto cut = src;
    cut.text = cut.text.substr(0, cut.text.rfind("rx "));
    expectRefused(parse("xdpsock", cut), "truncated");
}

TEST(XdpBenchImport, SummaryLinesAreTheIntervals)
{
    const auto src = sample("xdp_bench_drop.txt");
    auto t = parse("xdp-bench", src);
    ASSERT_TRUE(t.ok()) << t.error().message;
    ASSERT_EQ(t->repetitions[0].size(), 6u);
    EXPECT_DOUBLE_EQ(t->repetitions[0][0].values[0], 2015738);
    expectRefused(parse("xdp-bench", edited(src, 2, "Summary                 2,015,7")), "xdp_bench_drop.txt:2:");
}

TEST(TimeBenchImport, OneMetricPerTypeAndOneRepetitionPerModuleLoad)
{
    const auto src = sample("time_bench_dmesg.txt");
    auto t = parse("time-bench", src);
    ASSERT_TRUE(t.ok()) << t.error().message;
    EXPECT_EQ(t->repetitions.size(), 3u);
    ASSERT_EQ(t->layout.metrics.size(), 12u);  // six Types in cycles, and in ns as their aliases
    EXPECT_EQ(t->layout.metrics[3].name, "no-softirq-page_pool01");
    EXPECT_EQ(t->layout.metrics[6 + 3].aliasOf, "no-softirq-page_pool01");
    EXPECT_DOUBLE_EQ(values(*t, "atomic_inc")[0], 19);

    const auto cut = edited(src, 4, nullptr);  // the first load's "lock" line lost
    expectRefused(parse("time-bench", cut), "Type:lock appears 2 times");
}

TEST(PageFragTestImport, TimePerIterationAndMixedModesRefused)
{
    const auto src = sample("page_frag_test_dmesg.txt");
    auto t = parse("page-frag-test", src);
    ASSERT_TRUE(t.ok()) << t.error().message;
    ASSERT_EQ(t->repetitions.size(), 5u);
    const double us = t->repetitions[0][0].values[0];
    EXPECT_DOUBLE_EQ(values(*t, "ns_per_iteration")[0], us * 1000 / 2000000);

    auto mixed = src;
    mixed.text += "[ 2000.000000] 2000000 of iterations for aligned testing took: 398000us\n";
    expectRefused(parse("page-frag-test", mixed), "page_frag_test_dmesg.txt:11: test mode 'aligned'");
}

TEST(PktgenImport, EachFileIsARunAndTheRateAgreesWithPktgens)
{
    const std::vector<ImportSource> files = {sample("pktgen_veth0_run1.txt"), sample("pktgen_veth0_run2.txt"),
                                             sample("pktgen_veth0_run3.txt")};
    auto t = parseImportFiles(*findImportFormat("pktgen"), files, {});
    ASSERT_TRUE(t.ok()) << t.error().message;
    ASSERT_EQ(t->repetitions.size(), 3u);
    const auto pps = values(*t, "pps");
    for (std::size_t i = 0; i < files.size(); ++i) {
        const auto at = files[i].text.find("pps ");
        const auto start = files[i].text.rfind(' ', at) + 1;
        const double printed = std::stod(files[i].text.substr(start, at - start));
        EXPECT_NEAR(pps[i] / printed, 1.0, 1e-5);  // pktgen divides by ns, the Result line shows us
    }
    const auto idle = edited(edited(files[0], 20, nullptr), 19, "Result: Idle");
    EXPECT_EQ(refusal(parse("pktgen", idle)), "pktgen_veth0_run1.txt:19: pktgen did not finish a run: 'Result: Idle'");
}

TEST(ImportFiles, FilesWithOtherMetricsAreRefusedByName)
{
    expectRefusedStartingWith(
        parseImportFiles(*findImportFormat("perf-stat"),
                         {sample("perf_stat_appended.csv"), sample("perf_stat_single_text.txt")}, {}),
        "perf_stat_single_text.txt: its metrics");
}

// netperf without its banner and headers (-P 0): the number of columns tells the test's shape, and
// the throughput is read in netperf's default unit, which a note says.
TEST(NetperfImport, ResultLinesWithoutHeadersAreReadByTheirColumns)
{
    auto stream = parse("netperf", {"made.txt", " 87380  16384  16384    10.00     915.55\n"});
    ASSERT_TRUE(stream.ok()) << stream.error().message;
    EXPECT_EQ(stream->layout.metrics.front().name, "throughput");
    EXPECT_EQ(values(*stream, "throughput"), (std::vector<double>{915.55}));
    ASSERT_EQ(stream->notes.size(), 1U);
    EXPECT_NE(stream->notes[0].find("-P 0"), std::string::npos);
    auto rr = parse("netperf", {"made.txt",
                                "16384  87380  1  1  10.00  2504.92\n16384  87380\n"
                                "16384  87380  1  1  10.00  2410.14\n16384  87380\n"});
    ASSERT_TRUE(rr.ok()) << rr.error().message;
    EXPECT_EQ(values(*rr, "transaction_rate"), (std::vector<double>{2504.92, 2410.14}));
    auto udp = parse("netperf", {"made.txt", "212992 65507 10.00 18192 0 953.35\n212992 10.00 18100 949.00\n"});
    ASSERT_TRUE(udp.ok()) << udp.error().message;
    EXPECT_EQ(values(*udp, "recv_throughput"), (std::vector<double>{949.00}));
    EXPECT_EQ(values(*udp, "send_throughput"), (std::vector<double>{953.35}));
}

// Throughputs are stored in Mbit/s whatever -f printed; the readings keep what netperf printed.
TEST(NetperfImport, ThroughputUnitsAreConvertedToMegabits)
{
    const std::string header =
        "MIGRATED TCP STREAM TEST from 0.0.0.0 (0.0.0.0) port 0 AF_INET to h () port 0 AF_INET\n"
        "Recv   Send    Send\nSocket Socket  Message  Elapsed\n"
        "Size   Size    Size     Time     Throughput\n";
    auto gbits = parse("netperf", {"made.txt", header + "bytes  bytes   bytes    secs.    10^9bits/sec\n\n"
                                                        "131072  16384  16384    10.00      13.05\n"});
    ASSERT_TRUE(gbits.ok()) << gbits.error().message;
    EXPECT_NEAR(values(*gbits, "throughput")[0], 13050, 1e-9);
    EXPECT_EQ(gbits->readings[4].key, "throughput");
    EXPECT_EQ(gbits->readings[4].value, 13.05);
    auto kbytes = parse("netperf", {"made.txt", header + "bytes  bytes   bytes    secs.    KBytes/sec\n\n"
                                                         "131072  16384  16384    10.00    1000.00\n"});
    ASSERT_TRUE(kbytes.ok()) << kbytes.error().message;
    EXPECT_NEAR(values(*kbytes, "throughput")[0], 1000 * 1024 * 8 / 1e6, 1e-9);
    auto unknown = parse("netperf", {"made.txt", header + "bytes  bytes   bytes    secs.    Pbits/sec\n\n"
                                                          "131072  16384  16384    10.00    1000.00\n"});
    EXPECT_EQ(refusal(unknown), "made.txt:1: throughput in 'Pbits/sec', a unit noisefloor does not know");
}

// The omni -k selectors: a request/response test's THROUGHPUT is its transaction rate, with or
// without THROUGHPUT_UNITS; latencies are metrics of their own.
TEST(NetperfImport, OmniKeyValuesAreReadBySelector)
{
    const std::string banner =
        "MIGRATED TCP REQUEST/RESPONSE TEST from 0.0.0.0 (0.0.0.0) port 0 AF_INET to h () "
        "port 0 AF_INET : demo : first burst 0\n";
    auto t = parse("netperf", {"made.txt", banner +
                                               "MIN_LATENCY=49\nP99_LATENCY=123\nTHROUGHPUT=75.78\n"
                                               "THROUGHPUT_UNITS=Trans/s\nMEAN_LATENCY=78.26\nPROTOCOL=TCP\n" +
                                               banner +
                                               "MIN_LATENCY=50\nP99_LATENCY=121\nTHROUGHPUT=76.01\n"
                                               "THROUGHPUT_UNITS=Trans/s\nMEAN_LATENCY=77.90\n"});
    ASSERT_TRUE(t.ok()) << t.error().message;
    EXPECT_EQ(t->layout.metrics.front().name, "transaction_rate");
    EXPECT_EQ(values(*t, "transaction_rate"), (std::vector<double>{75.78, 76.01}));
    EXPECT_EQ(values(*t, "p99_latency_us"), (std::vector<double>{123, 121}));
    EXPECT_EQ(t->tool, "netperf TCP_RR");
    auto bare = parse("netperf", {"made.txt", banner + "THROUGHPUT=75.78\nMEAN_LATENCY=78.26\n"});
    ASSERT_TRUE(bare.ok()) << bare.error().message;
    EXPECT_EQ(values(*bare, "transaction_rate"), (std::vector<double>{75.78}));
}

// A run cut short, and runs with other columns, are refused with the line.
TEST(NetperfImport, CutShortAndMixedRunsAreRefusedWithTheLine)
{
    const std::string rr =
        "MIGRATED TCP REQUEST/RESPONSE TEST from 0.0.0.0 (0.0.0.0) port 0 AF_INET to h () port 0 "
        "AF_INET : first burst 0\nLocal /Remote\nSocket Size   Request  Resp.   Elapsed  Trans.\n"
        "Send   Recv   Size     Size    Time     Rate\nbytes  Bytes  bytes    bytes   secs.    per "
        "sec\n\n16384  131072 1        1       10.00    2504.92\n";
    EXPECT_EQ(refusal(parse("netperf", {"made.txt", rr})),
              "made.txt:7: the result's second line is missing (cut short?)");
    expectRefusedStartingWith(parse("netperf", {"made.txt", rr.substr(0, rr.find("Local"))}),
                              "made.txt:1: the netperf TCP_RR run has no result");
    auto mixed = parse("netperf", {"made.txt",
                                   " 87380  16384  16384    10.00     915.55\n"
                                   " 87380  16384  16384    10.00     915.55   3.1   2.9   0.5   0.6\n"});
    expectRefusedStartingWith(mixed, "made.txt:2: its columns differ from those of the run at line 1");
}

// Every importer is one descriptor, listed once (importer_list.h): a name, the tool as people call
// it, one line of help, its detection, its parser and its fuzz dictionary.
TEST(ImportFormats, EveryImporterIsOneCompleteDescriptor)
{
    std::set<std::string> names;
    const std::string tools = importToolNames();
    for (const auto& f : importFormats()) {
        SCOPED_TRACE(f.name);
        EXPECT_TRUE(names.insert(f.name).second) << "listed twice";
        EXPECT_EQ(findImportFormat(f.name), &f);
        EXPECT_FALSE(f.tools.empty());
        for (const auto& tool : f.tools) {
            EXPECT_NE(tools.find(tool), std::string::npos) << tool;
        }
        EXPECT_FALSE(f.summary.empty());
        EXPECT_TRUE(f.detect && f.parse);
        EXPECT_FALSE(f.dictionary.empty());
        EXPECT_EQ(f.detect(""), detection::kNotIt);
    }
#define NF_IMPORTER_NAME(function, file) #function,
    const std::vector<std::string> listed = {NF_IMPORTERS(NF_IMPORTER_NAME)};
#undef NF_IMPORTER_NAME
    EXPECT_EQ(importFormats().size(), listed.size());
    EXPECT_EQ(tools.rfind("perf stat, sar, sadf, ", 0), 0U) << tools;
}

// Detection ranks: a tool's own marks beat a layout that merely fits, and two tools marked alike
// are named, not guessed between.
TEST(ImportFormats, DetectionRanksMarksAboveLayoutAndNamesATie)
{
    const std::string csv = "1234,,cycles,100.00,,\n5678,,instructions,100.00,,\n";
    auto perf = detectImportFormat({"a.csv", csv});
    ASSERT_TRUE(perf.ok()) << perf.error().message;
    EXPECT_EQ((*perf)->name, "perf-stat");
    auto pktgen = detectImportFormat({"b.txt", csv + "Result: OK: 1(c1+d0) usec, 1 (60byte,0frags)\n"});
    ASSERT_TRUE(pktgen.ok()) << pktgen.error().message;
    EXPECT_EQ((*pktgen)->name, "pktgen");
    auto both = detectImportFormat({"c.txt", "  1.0 seconds time elapsed\nResult: OK: 1(c1+d0) usec\n"});
    EXPECT_EQ(refusal(both),
              "c.txt: it looks like output of both perf-stat and pktgen: name the tool (noisefloor import perf-stat "
              "FILE)");
    EXPECT_EQ(refusal(detectImportFormat({"d.txt", "hello\n"})),
              "d.txt: not output of " + importToolNames() +
                  " that noisefloor recognises (name the tool: noisefloor import TOOL FILE)");
}

TEST(ImportedRunTest, RecordsOriginAndIsAnOrdinaryRun)
{
    auto t = parse("page-frag-test", sample("page_frag_test_dmesg.txt"));
    ASSERT_TRUE(t.ok());
    ImportRequest request{"page-frag-test", {"page_frag_test_dmesg.txt"}, "vanilla", "default", "box", "6.1.0"};
    auto run = importedRun(*t, request);
    ASSERT_TRUE(run.ok()) << run.error().message;
    EXPECT_EQ(run->start.spec.workload, "import:page-frag-test");
    EXPECT_EQ(run->start.environment["system"]["kernel_release"], "6.1.0");
    EXPECT_EQ(run->start.environment["system"]["hostname"], "box");
    EXPECT_EQ(run->start.environment["import"]["files"][0], "page_frag_test_dmesg.txt");
    EXPECT_EQ(run->start.environment["import"]["kernel_from"], "option");
    EXPECT_EQ(run->repetitions.size(), 5u);
    request.label.clear();
    EXPECT_FALSE(importedRun(*t, request).ok());
}

// The value the importer read under `key`, NaN when it read none.
double reading(const ImportTable& t, const std::string& key)
{
    for (const auto& r : t.readings) {
        if (r.key == key) {
            return r.value;
        }
    }
    ADD_FAILURE() << "no reading " << key;
    return std::nan("");
}

std::size_t quantityAt(const ImportTable& t, const std::string& name)
{
    const auto& q = t.layout.quantities;
    const auto it = std::find(q.begin(), q.end(), name);
    EXPECT_NE(it, q.end()) << "no quantity " << name;
    return static_cast<std::size_t>(it - q.begin());
}

TEST(TimeBenchImport, ResultLinesWithoutStepOrTimestampAreNotJoined)
{
    // Pasted from a script's output: no dmesg time stamps, no "(step:N)" suffix.
    const std::string text =
        "Type:for_loop Per elem: 1 cycles(tsc) 0.420 ns\n"
        "Type:atomic_inc Per elem: 18 cycles(tsc) 5.010 ns\n";
    auto t = parse("time-bench", {"two.txt", text});
    ASSERT_TRUE(t.ok()) << t.error().message;
    ASSERT_EQ(t->repetitions.size(), 1u);
    EXPECT_EQ(reading(*t, "for_loop cycles per elem"), 1);
    EXPECT_EQ(reading(*t, "atomic_inc ns per elem"), 5.010);
    EXPECT_EQ(reading(*t, "Type lines"), 2);
    // A record a mail client wrapped is still joined.
    auto wrapped = parse("time-bench", {"w.txt", "Type:lock Per elem: 39 cycles(tsc)\n11.041 ns (step:0)\n"});
    ASSERT_TRUE(wrapped.ok()) << wrapped.error().message;
    EXPECT_EQ(reading(*wrapped, "lock ns per elem"), 11.041);
}

TEST(TimeBenchImport, KselftestSummaryAloneIsRead)
{
    const std::string text =
        "Fast path results:\nno-softirq-page_pool01 Per elem: 11 cycles(tsc) 4.368 ns\n\n"
        "slow path results:\nno-softirq-page_pool03 Per elem: 549 cycles(tsc) 203.466 ns\n";
    auto t = parse("time-bench", {"summary.txt", text});
    ASSERT_TRUE(t.ok()) << t.error().message;
    EXPECT_EQ(reading(*t, "no-softirq-page_pool03 ns per elem"), 203.466);
    ASSERT_FALSE(t->notes.empty());
    EXPECT_NE(t->notes.back().find("kselftest summary"), std::string::npos);
}

TEST(SarImport, LocalizedTimeStampsAndAverageLabelsAreRead)
{
    // zh_CN: %X is "%H时%M分%S秒", "Average:" is "平均时间:"; ko_KR: "%H시 %M분 %S초", "평균:".
    const std::string zh =
        "Linux 5.15.0 (host) \t2026年11月30日 \t_x86_64_\t(2 CPU)\n\n"
        "23时07分42秒     IFACE   rxpck/s   txpck/s    rxkB/s    txkB/s\n"
        "23时07分43秒        lo     10.00     10.00      1.00      1.00\n\n"
        "23时07分43秒     IFACE   rxpck/s   txpck/s    rxkB/s    txkB/s\n"
        "23时07分45秒        lo     20.00     20.00      2.00      2.00\n\n"
        "平均时间:     IFACE   rxpck/s   txpck/s    rxkB/s    txkB/s\n"
        "平均时间:        lo     16.67     16.67      1.67      1.67\n";
    auto t = parse("sar", {"zh.txt", zh});
    ASSERT_TRUE(t.ok()) << t.error().message;
    ASSERT_EQ(t->repetitions[0].size(), 2u);
    EXPECT_EQ(t->repetitions[0][1].duration, 2.0);
    EXPECT_EQ(reading(*t, "lo rxpck/s 23时07分45秒"), 20);
    EXPECT_EQ(reading(*t, "lo rxpck/s Average"), 16.67);

    const std::string ko =
        "23시 07분 42초     IFACE   rxpck/s   txpck/s    rxkB/s    txkB/s\n"
        "23시 07분 43초        lo     10.00     10.00      1.00      1.00\n\n"
        "평균:     IFACE   rxpck/s   txpck/s    rxkB/s    txkB/s\n"
        "평균:        lo     10.00     10.00      1.00      1.00\n";
    auto k = parse("sar", {"ko.txt", ko});
    ASSERT_TRUE(k.ok()) << k.error().message;
    EXPECT_EQ(reading(*k, "lo rxpck/s Average"), 10);

    // A stamp in a form no locale here prints: refused naming the line, not "no sar lines".
    auto other = parse("sar", {"x.txt",
                               "23h07m42s     IFACE   rxpck/s   txpck/s    rxkB/s    txkB/s\n"
                               "23h07m43s        lo     10.00     10.00      1.00      1.00\n"});
    expectRefused(other, "x.txt:1: a sar header whose time stamp");
}

TEST(SarImport, ByteOrderMarkKeepsTheHeader)
{
    auto src = sample("sar_dev.txt");
    src.text = "\xEF\xBB\xBF" + src.text;
    auto t = parse("sar", src, {"lo", std::nullopt});
    ASSERT_TRUE(t.ok()) << t.error().message;
    EXPECT_EQ(t->kernel, "6.18.44-fc-v857");
    EXPECT_EQ(t->host, "vm");
}

TEST(PerfStatImport, IndianAndSpaceDigitGroupingAreRead)
{
    const std::string lakh =
        " Performance counter stats for 'true':\n\n"
        "      1,88,28,546      cycles\n"
        "      12,34,56,789      instructions     #    6.56  insn per cycle\n\n"
        "       0.004 seconds time elapsed\n";
    auto t = parse("perf-stat", {"en_IN.txt", lakh});
    ASSERT_TRUE(t.ok()) << t.error().message;
    EXPECT_EQ(reading(*t, "event cycles count"), 18828546);
    EXPECT_EQ(reading(*t, "event instructions count"), 123456789);

    // fr_FR groups by U+202F, ru_RU by U+00A0, some by an ASCII space; ',' is the decimal mark.
    const std::string fr =
        " Performance counter stats for 'true':\n\n"
        "       1\u202F234,56 msec task-clock        #    0,999 CPUs utilized\n"
        "   173 719 355 962      cycles      #    3,005 GHz\n"
        "   2\u00A0345\u00A0678      instructions\n"
        "           5      context-switches\n\n"
        "       1,236 seconds time elapsed\n";
    auto f = parse("perf-stat", {"fr_FR.txt", fr});
    ASSERT_TRUE(f.ok()) << f.error().message;
    EXPECT_EQ(reading(*f, "event task-clock count"), 1234.56);
    EXPECT_EQ(reading(*f, "event cycles count"), 173719355962);
    EXPECT_EQ(reading(*f, "event instructions count"), 2345678);
    EXPECT_EQ(reading(*f, "event context-switches count"), 5);
    EXPECT_EQ(reading(*f, "elapsed"), 1.236);

    // Groups that are not thousands or lakhs stay refused.
    auto bad = parse("perf-stat", {"bad.txt", editLine(lakh, 3, "      1,8,828,546      cycles")});
    ASSERT_FALSE(bad.ok());
}

TEST(PerfStatImport, PerSocketCsvMetricLinesBelongToTheirCounter)
{
    const std::string csv =
        "S0,1,4000000,,cycles,1000000,100.00,,\n"
        "S0,1,5360000,,instructions,1000000,100.00,1.34,insn per cycle\n"
        "S0,1,,,,,,,0.25,stalled cycles per insn\n"
        "S1,1,2000000,,cycles,1000000,100.00,,\n"
        "S1,1,1000000,,instructions,1000000,100.00,0.50,insn per cycle\n"
        "S1,1,,,,,,,1.50,stalled cycles per insn\n";
    auto t = parse("perf-stat", {"socket.csv", csv});
    ASSERT_TRUE(t.ok()) << t.error().message;
    EXPECT_EQ(reading(*t, "event S0 instructions continuation metric stalled cycles per insn"), 0.25);
    EXPECT_EQ(reading(*t, "event S1 instructions continuation metric stalled cycles per insn"), 1.50);
    EXPECT_EQ(reading(*t, "event S1 cycles count"), 2000000);
}

// -I with --per-socket or -A: the time comes before the scope. perf before 6.1 also printed one
// separator too many before the scope of a metric-only line (",S0,1,,,,,,,2.00,..." and
// "0.001813453,,S0,1,,,,,,,1.34,...", as in tests/data/import/real/*_before-fix_athira.txt); the
// lines here are written in that shape.
TEST(PerfStatImport, PerSocketCsvIntervalsAndOldMetricLinesAreRead)
{
    const std::string old =
        "S0,1,875807,,cycles,1769826,100.00,0.491,GHz\n"
        "S0,1,288430,,instructions,1762246,100.00,0.33,insn per cycle\n"
        ",S0,1,,,,,,,2.00,stalled cycles per insn\n";
    auto t = parse("perf-stat", {"old.csv", old});
    ASSERT_TRUE(t.ok()) << t.error().message;
    EXPECT_EQ(reading(*t, "event S0 instructions continuation metric stalled cycles per insn"), 2.00);
    EXPECT_EQ(reading(*t, "events"), 2);

    const std::string intervals =
        "1.001813453,S0,4,1000,,cycles,1856754,100.00,,\n"
        "1.001813453,S0,4,1340,,instructions,1856754,100.00,1.34,insn per cycle\n"
        "1.001813453,,S0,4,,,,,,,0.50,stalled cycles per insn\n"
        "1.001813453,S1,4,2000,,cycles,1856754,100.00,,\n"
        "1.001813453,S1,4,1000,,instructions,1856754,100.00,0.50,insn per cycle\n"
        "1.001813453,S1,4,,,,,,,1.50,stalled cycles per insn\n"
        "2.003627906,S0,4,1100,,cycles,1856754,100.00,,\n"
        "2.003627906,S0,4,1430,,instructions,1856754,100.00,1.30,insn per cycle\n"
        "2.003627906,S1,4,2200,,cycles,1856754,100.00,,\n"
        "2.003627906,S1,4,1210,,instructions,1856754,100.00,0.55,insn per cycle\n";
    auto i = parse("perf-stat", {"sockets.csv", intervals});
    ASSERT_TRUE(i.ok()) << i.error().message;
    EXPECT_NE(i->detected.find("-I intervals, per socket/die/core"), std::string::npos) << i->detected;
    EXPECT_EQ(reading(*i, "intervals"), 2);
    EXPECT_EQ(reading(*i, "scopes"), 2);
    EXPECT_EQ(reading(*i, "interval 2.003627906 S1 instructions"), 1210);
    EXPECT_EQ(reading(*i, "interval 1.001813453 S0 aggregated cpus"), 4);
    EXPECT_EQ(reading(*i, "interval 1.001813453 event S0 instructions continuation metric stalled cycles per insn"),
              0.50);
    EXPECT_EQ(reading(*i, "interval 1.001813453 event S1 instructions continuation metric stalled cycles per insn"),
              1.50);
    ASSERT_EQ(i->repetitions[0].size(), 2u);
    EXPECT_EQ(i->repetitions[0][1].values[quantityAt(*i, "cycles")], 3300);

    const std::string perCpu =
        "1.001082535,CPU0,1000,,cycles,1001082535,100.00,,\n"
        "1.001082535,CPU1,2000,,cycles,1001082535,100.00,,\n"
        "2.002164861,CPU0,1100,,cycles,1001082535,100.00,,\n"
        "2.002164861,CPU1,2200,,cycles,1001082535,100.00,,\n";
    auto c = parse("perf-stat", {"cpus.csv", perCpu});
    ASSERT_TRUE(c.ok()) << c.error().message;
    EXPECT_EQ(reading(*c, "intervals"), 2);
    EXPECT_EQ(reading(*c, "interval 2.002164861 CPU1 cycles"), 2200);
}

TEST(PerfStatImport, EventNotSupportedOnEveryCpuIsNotStoredAsZero)
{
    const std::string text =
        " Performance counter stats for 'system wide':\n\n"
        "CPU0           1,000      cycles\n"
        "CPU1           2,000      cycles\n"
        "CPU0      <not supported>      stalled-cycles-frontend\n"
        "CPU1      <not supported>      stalled-cycles-frontend\n\n"
        "       1.001 seconds time elapsed\n";
    auto t = parse("perf-stat", {"a.txt", text});
    ASSERT_TRUE(t.ok()) << t.error().message;
    const auto& q = t->layout.quantities;
    EXPECT_EQ(std::count(q.begin(), q.end(), "stalled-cycles-frontend"), 0);
    EXPECT_EQ(std::count(q.begin(), q.end(), "CPU0 stalled-cycles-frontend"), 0);
    bool total = false;
    for (const auto& u : t->unsupported) {
        total = total || (u["name"] == "stalled-cycles-frontend" && u["reason"] == "<not supported> on CPU0");
    }
    EXPECT_TRUE(total) << t->unsupported.dump();
    EXPECT_EQ(t->repetitions[0][0].values[quantityAt(*t, "cycles")], 3000);
}

// The same with -I: every interval has the event <not supported> on each CPU. Its total column was
// kept as NaN in every interval.
TEST(PerfStatImport, EventNotSupportedOnEveryCpuInEveryIntervalIsNotStored)
{
    const std::string text =
        "#           time CPU                    counts unit events\n"
        "     1.001082535 CPU0                  1,000      cycles\n"
        "     1.001082535 CPU1                  2,000      cycles\n"
        "     1.001082535 CPU0      <not supported>      stalled-cycles-frontend\n"
        "     1.001082535 CPU1      <not supported>      stalled-cycles-frontend\n"
        "     2.002164861 CPU0                  1,100      cycles\n"
        "     2.002164861 CPU1                  2,200      cycles\n"
        "     2.002164861 CPU0      <not supported>      stalled-cycles-frontend\n"
        "     2.002164861 CPU1      <not supported>      stalled-cycles-frontend\n";
    auto t = parse("perf-stat", {"i.txt", text});
    ASSERT_TRUE(t.ok()) << t.error().message;
    const auto& q = t->layout.quantities;
    EXPECT_EQ(std::count(q.begin(), q.end(), "stalled-cycles-frontend"), 0) << t->unsupported.dump();
    EXPECT_EQ(std::count(q.begin(), q.end(), "CPU1 stalled-cycles-frontend"), 0);
    bool total = false;
    for (const auto& u : t->unsupported) {
        total = total || (u["name"] == "stalled-cycles-frontend" && u["reason"] == "<not supported> on CPU0");
    }
    EXPECT_TRUE(total) << t->unsupported.dump();
    ASSERT_EQ(t->repetitions[0].size(), 2u);
    EXPECT_EQ(t->repetitions[0][1].values[quantityAt(*t, "cycles")], 3300);

    const std::string nothing =
        "     1.001082535 CPU0      <not supported>      cycles\n"
        "     1.001082535 CPU1      <not supported>      cycles\n";
    expectRefusedStartingWith(parse("perf-stat", {"n.txt", nothing}), "n.txt: no ");
}

TEST(PerfStatImport, OldTaskClockMsecsIsInMilliseconds)
{
    const std::string text =
        " Performance counter stats for 'ls':\n\n"
        "     934.512846  task-clock-msecs         #      0.114 CPUs \n"
        "           1695  context-switches         #      0.002 M/sec\n\n"
        "    8.199187316  seconds time elapsed\n";
    auto t = parse("perf-stat", {"old.txt", text});
    ASSERT_TRUE(t.ok()) << t.error().message;
    for (const auto& m : t->layout.metrics) {
        if (m.name == "task-clock-msecs") {
            EXPECT_EQ(m.unit, "msec");
        }
    }
}

TEST(PerfStatImport, FragmentWithoutHeaderOrElapsedSaysWhatIsMissing)
{
    const std::string fragment =
        "     1,234,567,890      cycles          #    3.001 GHz\n"
        "     2,345,678,901      instructions    #    1.90  insn per cycle\n";
    EXPECT_EQ(refusal(parse("perf-stat", {"frag.txt", fragment})),
              "frag.txt:1: perf stat counter lines without their 'Performance counter stats for' header and "
              "without their 'seconds time elapsed' line (pasted without them?): the block cannot be told from "
              "other text");
}

TEST(PerfStatImport, BlockWithoutHeaderButWithElapsedLineImportsWithItsTargetUnknown)
{
    auto t = parse("perf-stat", sample(kPostBlock));
    ASSERT_TRUE(t.ok()) << t.error().message;
    ASSERT_EQ(t->repetitions.size(), 1u);
    EXPECT_DOUBLE_EQ(values(*t, "cycles")[0], 29932353067.0);
    EXPECT_DOUBLE_EQ(values(*t, "time_elapsed")[0], 10.000596454);
    EXPECT_TRUE(hasNote(*t,
                        "no 'Performance counter stats for' header before the counter lines at line 2: the "
                        "target perf stat counted (CPUs, a command) is unknown; its cpu-clock is 1 x its elapsed "
                        "time"))
        << ::testing::PrintToString(t->notes);
    // The note is stored with the run.
    auto run = importedRun(*t, {"perf-stat", {"post.txt"}, "post"});
    ASSERT_TRUE(run.ok()) << run.error().message;
    const auto notes = run->start.environment["import"]["notes"].dump();
    EXPECT_NE(notes.find("the target perf stat counted (CPUs, a command) is unknown"), std::string::npos) << notes;

    // Counter lines and an elapsed line with text between them that is not perf stat's: no block.
    const std::string broken =
        "     1,234,567,890      cycles          #    3.001 GHz\n"
        "the mail goes on: 2 more lines\n"
        "       1.000123456 seconds time elapsed\n";
    EXPECT_EQ(
        refusal(parse("perf-stat", {"broken.txt", broken})),
        "broken.txt:1: perf stat counter lines without their 'Performance counter stats for' header, broken "
        "off at line 2 ('the mail goes on: 2 more lines') before a 'seconds time elapsed' line: the block cannot be "
        "told from other text");
}

// perf stat -C LIST or -a counts whole CPUs for as long as it runs: cpu-clock is that time times the
// CPUs, so the primary metric (the first) is ipc, or cycles without instructions. A command keeps
// its order.
TEST(PerfStatImport, CpuWideBlocksHaveIpcOrCyclesFirstAndCommandsKeepTheirOrder)
{
    for (const char* name : {kPreBlock, kPostBlock}) {
        auto t = parse("perf-stat", sample(name));
        ASSERT_TRUE(t.ok()) << t.error().message;
        ASSERT_FALSE(t->layout.metrics.empty());
        EXPECT_EQ(t->layout.metrics.front().name, "ipc") << name << ": " << ::testing::PrintToString(metricNames(*t));
        EXPECT_NEAR(values(*t, "ipc")[0], name == kPreBlock ? 2.7576 : 2.8163, 1e-4);  // perf: 2.76, 2.82
    }
    auto pre = parse("perf-stat", sample(kPreBlock));
    EXPECT_TRUE(hasNote(*pre, "ipc is the primary metric: perf stat of 'CPU(s) 20' counted whole CPUs"))
        << ::testing::PrintToString(pre->notes);

    const std::string cycles =
        " Performance counter stats for 'system wide':\n\n"
        "         40,002.31 msec cpu-clock                 #    4.000 CPUs utilized\n"
        "    99,931,407,416      cycles                    #    2.498 GHz\n\n"
        "      10.000578027 seconds time elapsed\n";
    auto wide = parse("perf-stat", {"wide.txt", cycles});
    ASSERT_TRUE(wide.ok()) << wide.error().message;
    EXPECT_EQ(metricNames(*wide), (std::vector<std::string>{"cycles", "cpu-clock", "time_elapsed"}));

    const std::string command =
        " Performance counter stats for './xdpsock -r':\n\n"
        "         10,002.31 msec task-clock                #    1.000 CPUs utilized\n"
        "    29,931,407,416      cycles                    #    2.993 GHz\n"
        "    82,538,852,331      instructions              #    2.76  insn per cycle\n\n"
        "      10.000578027 seconds time elapsed\n";
    auto own = parse("perf-stat", {"own.txt", command});
    ASSERT_TRUE(own.ok()) << own.error().message;
    EXPECT_EQ(metricNames(*own).front(), "task-clock") << ::testing::PrintToString(metricNames(*own));
}

TEST(PerfStatImport, AnotherToolsOutputAfterTheBlockIsNamed)
{
    const std::string block =
        " Performance counter stats for 'true':\n\n    0.43 msec task-clock\n"
        "           5      context-switches\n\n       0.00319 seconds time elapsed\n\n";
    auto t = parse("perf-stat", {"both.txt", block + "Average:        lo     10.00     10.00\nend\n"});
    ASSERT_TRUE(t.ok()) << t.error().message;
    ASSERT_FALSE(t->notes.empty());
    EXPECT_EQ(t->notes.back(),
              "2 lines after the perf stat output (lines 8-9, from 'Average:        lo     10.00     10.00') not read: "
              "another tool's output?");

    const std::string csv =
        "0.43,msec,task-clock,430000,100.00,0.9,CPUs utilized\n"
        "5,,context-switches,430000,100.00,11.6,K/sec\n";
    auto c = parse("perf-stat", {"both.csv", csv + "netperf: done\n"});
    ASSERT_TRUE(c.ok()) << c.error().message;
    ASSERT_FALSE(c->notes.empty());
    EXPECT_NE(c->notes.back().find("1 line after the perf stat output (line 3"), std::string::npos) << c->notes.back();
}

}  // namespace
}  // namespace nf::engine::import_test
