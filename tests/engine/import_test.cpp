// The importers against real captured outputs (perf stat, sar) and outputs written exactly as the
// tools' sources print them (xdpsock, xdp-bench, time_bench, page_frag_test, pktgen, netperf).

#include <gtest/gtest.h>

#include <cmath>
#include <fstream>
#include <numeric>
#include <set>
#include <sstream>

#include "engine/import/import_format.h"
#include "engine/import/imported_run.h"
#include "engine/stats/descriptive.h"

namespace nf::engine {
namespace {

ImportSource sample(const std::string& name)
{
    std::ifstream in(std::string(NF_IMPORT_SAMPLES) + "/" + name, std::ios::binary);
    std::ostringstream text;
    text << in.rdbuf();
    EXPECT_FALSE(text.str().empty()) << name;
    return {name, text.str()};
}

Result<ImportTable> parse(const std::string& format, const ImportSource& src, ImportOptions options = {})
{
    return parseImportFiles(*findImportFormat(format), {src}, options);
}

// The metric's value per repetition, as compare computes it.
std::vector<double> values(const ImportTable& table, const std::string& metric)
{
    ImportRequest request{"x", {"f"}, "label"};
    auto run = importedRun(table, request);
    EXPECT_TRUE(run.ok());
    RunData data{{"default"}, table.layout, {}, {}};
    for (const auto& rep : run->repetitions) {
        data.samples.insert(data.samples.end(), rep.samples.begin(), rep.samples.end());
    }
    for (const auto& m : table.layout.metrics) {
        if (m.name == metric) {
            return data.repetitionValues(0, m);
        }
    }
    ADD_FAILURE() << "no metric " << metric;
    return {};
}

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
    auto missing = parse("perf-stat", src);
    ASSERT_FALSE(missing.ok());
    EXPECT_NE(missing.error().message.find("perf_stat_r5.csv:3:"), std::string::npos) << missing.error().message;
    EXPECT_NE(missing.error().message.find("--runs"), std::string::npos);

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
    auto t = parse("perf-stat", {"two.txt", a + b});
    ASSERT_FALSE(t.ok());
    EXPECT_NE(t.error().message.find("two.txt:7: perf stat of 'false' after perf stat of 'true'"), std::string::npos)
        << t.error().message;
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
    auto truncated = parse("perf-stat", src);
    ASSERT_FALSE(truncated.ok());
    EXPECT_NE(truncated.error().message.find("truncated"), std::string::npos) << truncated.error().message;

    auto mixed = sample("perf_stat_appended.csv");
    mixed.text = editLine(mixed.text, 10, "0.61,msec,cpu-clock,535213,100.00,0.034,CPUs utilized");
    auto e = parse("perf-stat", mixed);
    ASSERT_FALSE(e.ok());
    EXPECT_NE(e.error().message.find("perf_stat_appended.csv:10: event 'cpu-clock'"), std::string::npos)
        << e.error().message;

    auto garbage = parse("perf-stat", {"junk.bin", std::string("0.5,msec,task-clock,1,100\n") + "\x01\x02\x7f"});
    ASSERT_FALSE(garbage.ok());
    EXPECT_EQ(garbage.error().message, "junk.bin:2: binary data, not perf stat output");

    auto words = parse("perf-stat", {"notes.txt", "hello world\n"});
    ASSERT_FALSE(words.ok());
    EXPECT_EQ(words.error().message, "notes.txt: no perf stat results in it");

    // Inside a block every line must be understood; text after the block is not read.
    const std::string block =
        " Performance counter stats for 'true':\n\n    0.43 msec task-clock\n"
        "           5      context-switches\n\n       0.00319 seconds time elapsed\n";
    auto inside = parse("perf-stat", {"in.txt", editLine(block, 4, "    this is not a counter")});
    ASSERT_FALSE(inside.ok());
    EXPECT_EQ(inside.error().message, "in.txt:4: not a perf stat counter line: 'this is not a counter'");
    auto after = parse("perf-stat", {"after.txt", block + "$ echo done\ndone\n"});
    ASSERT_TRUE(after.ok()) << after.error().message;
    auto cut = parse("perf-stat", {"cut.txt", editLine(block, 6, nullptr)});
    ASSERT_FALSE(cut.ok());
    EXPECT_NE(cut.error().message.find("cut.txt:4: the perf stat block that starts at line 1 ends without"),
              std::string::npos)
        << cut.error().message;
}

TEST(SarImport, OneInterfaceRatesAgreeWithSarsOwnAverage)
{
    const auto src = sample("sar_dev.txt");
    auto several = parse("sar", src);
    ASSERT_FALSE(several.ok());
    EXPECT_NE(several.error().message.find("--iface"), std::string::npos);

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
    auto src = sample("sar_dev.txt");
    src.text = editLine(src.text, 4, "03:44:59           lo  67722.77  67722.77");
    auto t = parse("sar", src, {"lo", std::nullopt});
    ASSERT_FALSE(t.ok());
    EXPECT_NE(t.error().message.find("sar_dev.txt:4: expected 9 fields after the time"), std::string::npos)
        << t.error().message;
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
    auto truncated = parse("xdpsock", cut);
    ASSERT_FALSE(truncated.ok());
    EXPECT_NE(truncated.error().message.find("truncated"), std::string::npos);
}

TEST(XdpBenchImport, SummaryLinesAreTheIntervals)
{
    const auto src = sample("xdp_bench_drop.txt");
    auto t = parse("xdp-bench", src);
    ASSERT_TRUE(t.ok()) << t.error().message;
    ASSERT_EQ(t->repetitions[0].size(), 6u);
    EXPECT_DOUBLE_EQ(t->repetitions[0][0].values[0], 2015738);
    auto cut = src;
    cut.text = editLine(cut.text, 2, "Summary                 2,015,7");
    auto e = parse("xdp-bench", cut);
    ASSERT_FALSE(e.ok());
    EXPECT_NE(e.error().message.find("xdp_bench_drop.txt:2:"), std::string::npos) << e.error().message;
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

    auto cut = src;
    cut.text = editLine(cut.text, 4, nullptr);  // the first load's "lock" line lost
    auto e = parse("time-bench", cut);
    ASSERT_FALSE(e.ok());
    EXPECT_NE(e.error().message.find("Type:lock appears 2 times"), std::string::npos) << e.error().message;
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
    auto e = parse("page-frag-test", mixed);
    ASSERT_FALSE(e.ok());
    EXPECT_NE(e.error().message.find("page_frag_test_dmesg.txt:11: test mode 'aligned'"), std::string::npos)
        << e.error().message;
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
    auto idle = files[0];
    idle.text = editLine(editLine(idle.text, 20, nullptr), 19, "Result: Idle");
    auto e = parseImportFiles(*findImportFormat("pktgen"), {idle}, {});
    ASSERT_FALSE(e.ok());
    EXPECT_EQ(e.error().message, "pktgen_veth0_run1.txt:19: pktgen did not finish a run: 'Result: Idle'");
}

TEST(ImportFiles, FilesWithOtherMetricsAreRefusedByName)
{
    auto e = parseImportFiles(*findImportFormat("perf-stat"),
                              {sample("perf_stat_appended.csv"), sample("perf_stat_single_text.txt")}, {});
    ASSERT_FALSE(e.ok());
    EXPECT_EQ(e.error().message.rfind("perf_stat_single_text.txt: its metrics", 0), 0u) << e.error().message;
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
    ASSERT_FALSE(unknown.ok());
    EXPECT_EQ(unknown.error().message, "made.txt:1: throughput in 'Pbits/sec', a unit noisefloor does not know");
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
    auto cut = parse("netperf", {"made.txt", rr});
    ASSERT_FALSE(cut.ok());
    EXPECT_EQ(cut.error().message, "made.txt:7: the result's second line is missing (cut short?)");
    auto banner = parse("netperf", {"made.txt", rr.substr(0, rr.find("Local"))});
    ASSERT_FALSE(banner.ok());
    EXPECT_EQ(banner.error().message.rfind("made.txt:1: the netperf TCP_RR run has no result", 0), 0U)
        << banner.error().message;
    auto mixed = parse("netperf", {"made.txt",
                                   " 87380  16384  16384    10.00     915.55\n"
                                   " 87380  16384  16384    10.00     915.55   3.1   2.9   0.5   0.6\n"});
    ASSERT_FALSE(mixed.ok());
    EXPECT_EQ(mixed.error().message.rfind("made.txt:2: its columns differ from those of the run at line 1", 0), 0U)
        << mixed.error().message;
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
#define NF_IMPORTER_COUNT(function, file) +1
    EXPECT_EQ(importFormats().size(), std::size_t{0 NF_IMPORTERS(NF_IMPORTER_COUNT)});
#undef NF_IMPORTER_COUNT
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
    ASSERT_FALSE(both.ok());
    EXPECT_EQ(both.error().message,
              "c.txt: it looks like output of both perf-stat and pktgen: name the tool (noisefloor import perf-stat "
              "FILE)");
    auto none = detectImportFormat({"d.txt", "hello\n"});
    ASSERT_FALSE(none.ok());
    EXPECT_EQ(none.error().message, "d.txt: not output of " + importToolNames() +
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

}  // namespace
}  // namespace nf::engine
