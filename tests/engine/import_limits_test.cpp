// Inputs the fuzz targets (tests/fuzz) found to crash or corrupt an import: each must be a one-line
// error naming the file (and line), never an exception or a table that cannot be stored.

#include <gtest/gtest.h>

#include <algorithm>
#include <cmath>
#include <fstream>
#include <sstream>

#include "engine/import/import_format.h"

namespace nf::engine {
namespace {

Result<ImportTable> parse(const std::string& format, const std::string& text, ImportOptions options = {})
{
    return parseImportFiles(*findImportFormat(format), {{"f.txt", text}}, options);
}

void expectError(const Result<ImportTable>& r, const std::string& part)
{
    ASSERT_FALSE(r.ok());
    EXPECT_NE(r.error().message.find(part), std::string::npos) << r.error().message;
}

std::string perfSummary(const std::string& runs)
{
    return " Performance counter stats for 'true' (" + runs +
           " runs):\n\n          0.43 msec task-clock\n\n       0.00319 +- 0.00244 seconds time elapsed\n";
}

TEST(ImportLimits, PerfStatRunCountOutOfRangeIsAnError)
{
    expectError(parse("perf-stat", perfSummary("99999999999")), "f.txt:1: '(99999999999 runs)': expected 1 to 100000");
    expectError(parse("perf-stat", perfSummary("0")), "f.txt:1:");
    ASSERT_TRUE(parse("perf-stat", perfSummary("5")).ok());
    expectError(parse("perf-stat", "1,,task-clock,2%,100,100.00,,\n", {"", 100001}), "--runs 100001");
}

// Summaries are stored as what they are: 11 summaries of 100000 runs are 11 rows, not 1.1 million.
TEST(ImportLimits, PerfStatSummariesOfManyRunsStayOneRowEach)
{
    std::string text;
    for (int i = 0; i < 11; ++i) {
        text += perfSummary("100000");
    }
    auto table = parse("perf-stat", text);
    ASSERT_TRUE(table.ok()) << table.error().message;
    EXPECT_EQ(table->repetitions.size(), 11U);
    ASSERT_EQ(table->summaries.size(), 11U);
    EXPECT_EQ(table->summaries[0][0].n, 100000);
}

TEST(ImportLimits, PerfStatUnreadableNoiseIsAnError)
{
    const std::string text =
        " Performance counter stats for 'true' (5 runs):\n\n  0.43 msec task-clock  ( +- ...% )\n\n"
        "  0.00319 +- 0.00244 seconds time elapsed\n";
    expectError(parse("perf-stat", text), "f.txt:3: not a perf stat counter line");
}

// perf stat -r: mean 0.00263 s, +- 0.00142 (the standard error): stored as n, mean and se; the
// repetition's one sample lasts the mean run time.
TEST(ImportLimits, PerfStatSummaryKeepsMeanAndStandardError)
{
    auto table = parse("perf-stat",
                       perfSummary("5").replace(perfSummary("5").find("0.00319 +- 0.00244"), 18, "0.00263 +- 0.00142"));
    ASSERT_TRUE(table.ok()) << table.error().message;
    ASSERT_EQ(table->repetitions.size(), 1U);
    EXPECT_DOUBLE_EQ(table->repetitions[0][0].duration, 0.00263);
    const auto& s = table->summaries.at(0);
    const auto it =
        std::find_if(s.begin(), s.end(), [](const ImportSummary& x) { return x.quantity == "time_elapsed"; });
    ASSERT_NE(it, s.end());
    EXPECT_EQ(it->n, 5);
    EXPECT_DOUBLE_EQ(it->mean, 0.00263);
    EXPECT_DOUBLE_EQ(it->se, 0.00142);
}

TEST(ImportLimits, KernelLogNumbersTooLargeForADoubleAreErrors)
{
    const std::string digits(400, '9');
    expectError(parse("time-bench", "Type:for_loop Per elem: " + digits + " cycles(tsc) 0.334 ns (step:0)\n"),
                "f.txt:1: number out of range");
    expectError(parse("page-frag-test", "2000 of iterations for aligned testing took: " + digits + "us\n"),
                "f.txt:1: number out of range");
    expectError(parse("pktgen", "Result: OK: " + digits +
                                    "(c1+d1) usec, 10 (60byte,0frags)\n  10pps 0Mb/sec (4800bps) "
                                    "errors: 0\n"),
                "f.txt:1: number out of range");
}

TEST(ImportLimits, ValuesThatOverflowOnceScaledAreErrors)
{
    const std::string sar =
        "Linux 6.1.0 (h) 11/30/26 _x86_64_ (2 CPU)\n\n"
        "12:00:00 IFACE rxpck/s txpck/s rxkB/s txkB/s\n"
        "12:00:02 lo 1e308 1 1 1\n";
    expectError(parse("sar", sar), "rx_packets of repetition 1 is too large");
    const std::string pktgen = "Result: OK: 1(c1+d0) usec, 1" + std::string(200, '0') + " (" + "1" +
                               std::string(200, '0') + "byte,0frags)\n  1pps 1Mb/sec (1bps) errors: 0\n";
    expectError(parse("pktgen", pktgen), "bytes of repetition 1 is too large");
}

}  // namespace
}  // namespace nf::engine
