// The ways imports went wrong before, one test each: what was rejected or stored wrong
// is read right or refused with its line. Inputs named "made" here are written for the test from
// the tools' formats; the real outputs are in import_real_test.cpp.

#include <gtest/gtest.h>

#include <cmath>
#include <fstream>
#include <sstream>

#include "engine/import/import_format.h"

namespace nf::engine {
namespace {

Result<ImportTable> parse(const std::string& format, const std::string& text, ImportOptions options = {})
{
    return parseImportFiles(*findImportFormat(format), {{"made.txt", text}}, options);
}

Result<ImportTable> real(const std::string& name, ImportOptions options = {})
{
    std::ifstream in(std::string(NF_IMPORT_SAMPLES) + "/real/" + name, std::ios::binary);
    std::ostringstream text;
    text << in.rdbuf();
    const ImportSource src{name, text.str()};
    auto format = detectImportFormat(src);
    if (!format) {
        return format.error();
    }
    return parseImportFiles(**format, {src}, options);
}

double value(const ImportTable& t, const std::string& quantity, std::size_t rep = 0, std::size_t sample = 0)
{
    const int q = t.layout.quantityIndex(quantity);
    EXPECT_GE(q, 0) << quantity;
    return q < 0 ? NAN : t.repetitions.at(rep).at(sample).values.at(static_cast<std::size_t>(q));
}

void expectError(const Result<ImportTable>& r, const std::string& part)
{
    ASSERT_FALSE(r.ok()) << "imported; expected: " << part;
    EXPECT_NE(r.error().message.find(part), std::string::npos) << r.error().message;
    EXPECT_EQ(r.error().message.find('\n'), std::string::npos);
}

const char* kPerfRu =
    " Performance counter stats for 'true':\n\n"
    "              1,30 msec task-clock                       #    0,402 CPUs utilized\n"
    "                 1      context-switches                 #  770,416 /sec\n\n"
    "       0,003229361 seconds time elapsed\n";

// ru_RU: "1,30 msec" was stored as 130 and the elapsed time as 3229361 s.
TEST(ImportFailures, PerfStatInRuLocaleIsReadInThatLocale)
{
    auto t = parse("perf-stat", kPerfRu);
    ASSERT_TRUE(t.ok()) << t.error().message;
    EXPECT_DOUBLE_EQ(value(*t, "task-clock"), 1.30);
    EXPECT_DOUBLE_EQ(value(*t, "time_elapsed"), 0.003229361);
    EXPECT_NE(t->detected.find("de_DE/da_DK style"), std::string::npos);
}

// perf stat -I under de_DE: the counts and times follow the locale (1.000.123 cycles, 1.001,23
// msec), the time stamps do not (perf prints them as "%6lu.%09lu"). They were read as a second
// number style and the file refused as "outputs of two locales mixed".
TEST(ImportFailures, IntervalTimeStampsKeepTheirPointUnderACommaLocale)
{
    const std::string text =
        "#           time             counts unit events\n"
        "     1.001082535          1.000.123      cycles\n"
        "     1.001082535           1.001,23 msec task-clock\n"
        "     2.002164861          1.100.456      cycles\n"
        "     2.002164861           1.000,50 msec task-clock\n";
    auto t = parse("perf-stat", text);
    ASSERT_TRUE(t.ok()) << t.error().message;
    EXPECT_DOUBLE_EQ(value(*t, "seconds", 0, 0), 1.001082535);
    EXPECT_DOUBLE_EQ(value(*t, "seconds", 0, 1), 2.002164861 - 1.001082535);
    EXPECT_DOUBLE_EQ(value(*t, "cycles", 0, 1), 1100456);
    EXPECT_DOUBLE_EQ(value(*t, "task-clock", 0, 0), 1001.23);
}

// A number that reads two ways, with nothing else in the file to tell, is refused with its line.
TEST(ImportFailures, AnAmbiguousNumberIsRefusedWithItsLine)
{
    const std::string text =
        " Performance counter stats for 'true':\n\n"
        "             1.520 msec task-clock\n\n"
        "       1 seconds time elapsed\n";
    expectError(parse("perf-stat", text), "made.txt:3: '1.520' can be read two ways");
    // A count has no decimals (perf prints it with %'.0f): "1.520" there is 1520 under any locale.
    std::string count = text;
    count.replace(count.find("1.520 msec task-clock"), 21, "1.520      cache-misses");
    auto counted = parse("perf-stat", count);
    ASSERT_TRUE(counted.ok()) << counted.error().message;
    EXPECT_DOUBLE_EQ(value(*counted, "cache-misses"), 1520);
    // Numbers in two styles: refused at the second.
    std::string mixed = kPerfRu;
    mixed.replace(mixed.find("0,003229361"), 11, "0.003229361");
    expectError(parse("perf-stat", mixed), "made.txt:6: '0.003229361' is written in another number style");
}

// xdpsock under a locale that groups with '.': "862.258" was stored as 862.258 pps.
TEST(ImportFailures, XdpsockGroupingIsReadByTheLocaleThePeriodShows)
{
    const std::string de =
        " sock0@eth2:0 rxdrop xdp-drv\n                   pps            pkts           1,00\n"
        "rx                 862.258        4.514.166\ntx                 0              0\n";
    auto t = parse("xdpsock", de);
    ASSERT_TRUE(t.ok()) << t.error().message;
    EXPECT_DOUBLE_EQ(value(*t, "rx_packets"), 862258);
    std::string c = de;
    c.replace(c.find("1,00"), 4, "1.00");  // a '.' decimal mark: "862.258" cannot be grouping
    expectError(parse("xdpsock", c), "made.txt:");
}

// perf stat -A: every CPU's line is a value (it was dropped), and the event total is their sum.
TEST(ImportFailures, PerCpuLinesAreKeptAndSummed)
{
    auto t = real("perf-stat_per-cpu-A_it-locale_pmu-tools52.txt");
    ASSERT_TRUE(t.ok()) << t.error().message;
    EXPECT_DOUBLE_EQ(value(*t, "CPU2 cpu_clk_unhalted_thread_any"), 529161153);
    EXPECT_DOUBLE_EQ(value(*t, "cpu_clk_unhalted_thread_any"), 627912025.0 + 627248055 + 529161153 + 812752677);
    EXPECT_DOUBLE_EQ(value(*t, "time_elapsed"), 5.001079353);
}

// --per-socket / --per-core with -x,: the socket (or core) and its CPU count come before the value.
TEST(ImportFailures, PerSocketCsvPrefixesAreRead)
{
    const std::string made =
        "S0,28,1234.50,MiB,data_read,1001365319,100.00,,\n"
        "S1,28,1000.25,MiB,data_read,1001365319,100.00,,\n";
    auto t = parse("perf-stat", made);
    ASSERT_TRUE(t.ok()) << t.error().message;
    EXPECT_DOUBLE_EQ(value(*t, "S1 data_read"), 1000.25);
    EXPECT_DOUBLE_EQ(value(*t, "data_read"), 2234.75);
    auto core = parse("perf-stat", "S0-D0-C3,1,5.72,Joules,power/energy-core/,1000,100.00,,\n");
    ASSERT_TRUE(core.ok()) << core.error().message;
    EXPECT_DOUBLE_EQ(value(*core, "S0-D0-C3 power/energy-core/"), 5.72);
}

// perf before 6.1 printed the metric-only line of a socket with one separator too many
// (",S0,1,,,,,,,2.00,stalled cycles per insn"); it was refused as "not a perf stat -x, metric line".
// With -I the time came before the scope ("0.001813453,S0,1,1.87,msec,cpu-clock,...") and the first
// line was refused as having no event name. Both from the mail that fixed perf (real/*_athira.txt).
TEST(ImportFailures, PerSocketCsvMetricLinesOfPerfBefore61AreRead)
{
    auto before = real("perf-stat_csv-per-socket_continuation-leading-sep_before-fix_athira.txt");
    ASSERT_TRUE(before.ok()) << before.error().message;
    EXPECT_DOUBLE_EQ(value(*before, "S0 instructions"), 288430);
    EXPECT_DOUBLE_EQ(value(*before, "instructions"), 288430);
    EXPECT_DOUBLE_EQ(value(*before, "S0 cpu-clock"), 1.78);
    auto after = real("perf-stat_csv-per-socket_continuation_after-fix_athira.txt");
    ASSERT_TRUE(after.ok()) << after.error().message;
    EXPECT_DOUBLE_EQ(value(*after, "S0 instructions"), 88766);
    // The -I sample was cut by its author ("------"): the lines after the cut start another
    // output, which is refused with its line, never joined to the first.
    expectError(real("perf-stat_csv-interval-per-socket_elided_before-fix_athira.txt"),
                "_athira.txt:5: a second perf stat -I output (the first starts at line 2)");
}

// Two -r summaries of one command are two summaries (each n runs), never n1 + n2 runs merged.
TEST(ImportFailures, TwoSummariesOfOneCommandStayTwo)
{
    const std::string one =
        " Performance counter stats for 'true' (200 runs):\n\n"
        "  0.43 msec task-clock  ( +- 5.28% )\n\n  0.00319 +- 0.00244 seconds time elapsed\n\n";
    auto t = parse("perf-stat", one + one);
    ASSERT_TRUE(t.ok()) << t.error().message;
    ASSERT_EQ(t->summaries.size(), 2U);
    EXPECT_EQ(t->summaries[1][0].n, 200);
}

// sar -f: one header, then every interval; each interval lasts from the previous timestamp (it was
// measured from the header, so every row after the first looked longer and longer).
TEST(ImportFailures, SarHistoryIntervalsRunFromThePreviousTimestamp)
{
    auto t = real("sar_history-f_dev-edev_restart_sysstat-test.txt", {"enp6s0", std::nullopt});
    ASSERT_TRUE(t.ok()) << t.error().message;
    const auto& samples = t->repetitions.at(0);
    ASSERT_EQ(samples.size(), 5U);
    for (std::size_t i = 0; i < 4; ++i) {
        EXPECT_DOUBLE_EQ(samples[i].duration, 10) << i;
    }
    EXPECT_DOUBLE_EQ(samples[4].duration, 20);  // after the restart: 13:54:15 to 13:54:35
    EXPECT_DOUBLE_EQ(value(*t, "rx_packets", 0, 3), 7397.68 * 10);
}

// Found by the fuzzer: an Average header with no rows, then a second Average block with the
// interface's row. Only the first block is read, and it has none: an error, not an empty run.
TEST(ImportFailures, SarWithNoRowOfTheInterfaceInTheFirstAverageBlockIsAnError)
{
    const std::string sar =
        "sar -n DEV 2 100\n"
        "Average:        IFACE   rxpck/s   txpck/s    rxkB/s    txkB/s   %ifutil\n"
        "Average:        IFACE   rxpck/s   txpck/s    rxkB/s    txkB/s   %ifutil\n"
        "Average:           lo      1.00      0.00      0.00      0.00      0.00\n";
    expectError(parse("sar", sar), "no Average row of interface lo in the first Average block");
}

// A line sar does not print, inside its block, is an error; after the block it is text around it.
TEST(ImportFailures, AnUnknownLineInsideABlockIsAnError)
{
    const std::string sar =
        "12:00:00        IFACE   rxpck/s   txpck/s    rxkB/s    txkB/s\n"
        "12:00:01         eth0     10.00     20.00      1.00      2.00\n"
        "12:00:02         eth0     10.00     20.00\n";
    expectError(parse("sar", sar), "made.txt:3: expected 5 fields after the time");
    const std::string xdpsock =
        " sock0@eth0:0 rxdrop xdp-drv\n                   pps            pkts           1.00\n"
        "rx                 10        10\nrx queue stuck     1         1\ntx 0 0\n";
    expectError(parse("xdpsock", xdpsock), "made.txt:4: not an xdpsock statistics line");
    const std::string bench =
        "Summary                   684,781 rx/s                  0 err/s\n"
        "  receive total           684,781 pkt/s         0 drop/s\n"
        "  something new           684,781 pkt/s\n";
    expectError(parse("xdp-bench", bench), "made.txt:3: an xdp-bench detail line it does not know");
}

// A header naming rows by two columns (found by the fuzzer: the row's name was read past its end).
TEST(ImportFailures, ASarHeaderWithTwoNameColumnsIsRefused)
{
    const std::string sar =
        "Average:        IFACE   rxpck/s   txpck/s    rxkB/s    txkB/s   %util DEV\n"
        "13:20:39     1604.70  41499.97  10663.48      0.00     32.51     18.56 sda\n";
    expectError(parse("sar", sar), "made.txt:1: a sar header with two name columns (IFACE, DEV)");
}

// -x driver statistics of xdpsock are rows of its block, read and not an error.
TEST(ImportFailures, XdpsockExtraStatisticsAreRead)
{
    const std::string made =
        " sock0@eth0:0 rxdrop xdp-drv\n                   pps            pkts           1.00\n"
        "rx                 100            1,000\ntx                 0              0\n"
        "rx dropped         5              50\nfill ring empty    1              10\n";
    auto t = parse("xdpsock", made);
    ASSERT_TRUE(t.ok()) << t.error().message;
    bool found = false;
    for (const auto& r : t->readings) {
        found = found || (r.key == "rx dropped pkts" && r.value == 50);
    }
    EXPECT_TRUE(found);
}

// Two xdp-bench modes in one file (or one import) are refused, not one run.
TEST(ImportFailures, TwoXdpBenchModesAreRefused)
{
    const std::string made =
        "# ./xdp-bench drop eth0\nSummary  684,781 rx/s  0 err/s\n"
        "# ./xdp-bench tx eth0\nSummary  425,778 rx/s  0 err,drop/s\n";
    expectError(parse("xdp-bench", made), "made.txt:3: xdp-bench tx after xdp-bench drop (line 1)");
    const ImportSource drop{"drop.txt", "# ./xdp-bench drop eth0\nSummary  684,781 rx/s  0 err/s\n"};
    const ImportSource pass{"pass.txt", "# ./xdp-bench pass eth0\nSummary  208,552 rx/s  0 err,drop/s\n"};
    auto both = parseImportFiles(*findImportFormat("xdp-bench"), {drop, pass}, {});
    expectError(both, "pass.txt: it is output of xdp-bench pass, drop.txt of xdp-bench drop");
}

// A redirect whose every packet failed is not 1.42 Mpps received without a word.
TEST(ImportFailures, XdpBenchErrorsAreStoredBesideTheRate)
{
    auto t = real("xdp-bench_redirect_err-drop-xmit_enetc_weifang.txt");
    ASSERT_TRUE(t.ok()) << t.error().message;
    EXPECT_DOUBLE_EQ(value(*t, "rx_pps"), 1420505);
    EXPECT_DOUBLE_EQ(value(*t, "err_drop_pps"), 1420590);
    EXPECT_DOUBLE_EQ(value(*t, "xmit_pps"), 0);
    ASSERT_FALSE(t->notes.empty());
    EXPECT_NE(t->notes.back().find("every packet received was dropped or failed"), std::string::npos);
}

// pktgen -t 4: the four threads are one run whose rate is their sum.
TEST(ImportFailures, PktgenThreadsAreOneRunSummed)
{
    auto t = real("pktgen_sample04_t4_ctrl-c_soscon19.txt");
    ASSERT_TRUE(t.ok()) << t.error().message;
    ASSERT_EQ(t->repetitions.size(), 1U);
    EXPECT_DOUBLE_EQ(value(*t, "pps"), 14134309);
    EXPECT_DOUBLE_EQ(value(*t, "packets"), 86966733);
    EXPECT_DOUBLE_EQ(value(*t, "threads"), 4);
}

// time_bench: a Type name with spaces, and a bulk sweep, one metric per Type and step.
TEST(ImportFailures, TimeBenchNamesWithSpacesAndStepsAreMetrics)
{
    auto t = real("time-bench_slab-bulk_type-spaces_step-sweep_gushchin.txt");
    ASSERT_TRUE(t.ok()) << t.error().message;
    EXPECT_DOUBLE_EQ(value(*t, "kmem fastpath reuse.cycles"), 184);
    EXPECT_DOUBLE_EQ(value(*t, "kmem bulk_fallback step 16.ns"), 76.978);
}

// A step number past int (found by the fuzzer) is refused with its line, not cast.
TEST(ImportFailures, ATimeBenchStepTooLargeIsRefusedWithTheLine)
{
    expectError(parse("time-bench", "time_bench: Type:bulk Per elem: 5 cycles(tsc) 2.1 ns (step:1000000000000)\n"),
                "time_bench step");
}

// More than kMaxImportRepetitions runs are refused with the line where the limit was passed.
TEST(ImportFailures, TooManyRunsAreRefusedWithTheLine)
{
    std::string text;
    for (std::size_t i = 0; i <= kMaxImportRepetitions + 1; ++i) {
        text += "# started on Mon Dec  1 00:00:00 2026\n\n0.55,msec,task-clock,546000,100.00,0.4,CPUs utilized\n";
    }
    expectError(parse("perf-stat", text), "perf stat runs in one import");
}

}  // namespace
}  // namespace nf::engine
