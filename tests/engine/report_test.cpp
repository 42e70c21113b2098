#include "engine/report/run_summary.h"

#include <gtest/gtest.h>

#include <sstream>

#include "engine/report/text_table.h"

namespace nf::engine {
namespace {

RunData twoVariants()
{
    RunData d;
    d.variantNames = {"a", "b"};
    d.layout.quantities = {"ops", "tsc_ticks", "elapsed_ns"};
    d.layout.metrics = callLoopMetrics(d.layout.quantities);
    for (int rep = 0; rep < 3; ++rep) {
        for (int v = 0; v < 2; ++v) {
            for (int i = 0; i < 2; ++i) {
                const double ticks = (v + 1) * 1000.0 + rep;  // b costs twice a, per op
                d.samples.push_back({v, rep, i, i, 0, 0.001, {10, ticks * 10, ticks * 4}});
            }
        }
    }
    return d;
}

TEST(Report, RepetitionValuesAreRatiosOfTotals)
{
    const auto d = twoVariants();
    const auto values = d.repetitionValues(1, d.layout.metrics[0]);
    EXPECT_EQ(values, (std::vector<double>{2000, 2001, 2002}));
}

TEST(Report, SummaryPerVariantAndMetric)
{
    const auto d = twoVariants();
    const auto s = summarizeRun(d);
    ASSERT_EQ(s.size(), 3u);
    EXPECT_EQ(s[0].metric.name, "tsc_per_op");
    EXPECT_DOUBLE_EQ(s[0].perVariant[0].mean, 1001);
    EXPECT_DOUBLE_EQ(s[0].perVariant[1].mean, 2001);
    EXPECT_EQ(s[0].perVariant[1].n, 3u);
    std::ostringstream text;
    writeSummaryText(d, text);
    EXPECT_NE(text.str().find("tsc_per_op"), std::string::npos);
    EXPECT_NE(text.str().find("2001.0"), std::string::npos);
    EXPECT_EQ(summaryJson(d)[0]["variants"][1]["mean"], 2001);
}

TEST(TextTable, AlignsColumns)
{
    TextTable t({"name", ">value"});
    t.addRow({"a", "1"});
    t.addRow({"long", "100"});
    std::ostringstream out;
    t.write(out);
    EXPECT_EQ(out.str(), "name  value\na         1\nlong    100\n");
}

TEST(TextTable, FormatValue)
{
    EXPECT_EQ(formatValue(1234.5678), "1234.6");
    EXPECT_EQ(formatValue(0.5), "0.50000");
    EXPECT_EQ(formatValue(123456), "123456");
    EXPECT_EQ(formatValue(0), "0");
    EXPECT_EQ(formatPercent(0.1234), "12.34%");
}

}  // namespace
}  // namespace nf::engine
