// RunTable: the samples of a run as columns, and the per-repetition values read from them.

#include "engine/model/run_table.h"

#include <gtest/gtest.h>

#include <cmath>
#include <map>
#include <numeric>
#include <random>

#include "engine/model/run_data.h"

namespace nf::engine {
namespace {

std::vector<Sample> someSamples()
{
    return {{0, 0, 0, 0, 0.0, 0.002, {100, 3000, 1200}},
            {1, 0, 0, 0, 0.002, 0.002, {100, 3100, 1240}},
            {1, 0, 1, 1, 0.004, 0.003, {100, 3200, std::nan("")}},
            {0, 0, 1, 1, 0.007, 0.002, {50, 1500, 600}},
            {0, 2, 0, -1, 1.0, 0.5, {10, 300, 120}}};
}

void expectSame(const Sample& a, const Sample& b)
{
    EXPECT_EQ(a.variant, b.variant);
    EXPECT_EQ(a.repetition, b.repetition);
    EXPECT_EQ(a.index, b.index);
    EXPECT_EQ(a.pair, b.pair);
    EXPECT_EQ(a.start, b.start);
    EXPECT_EQ(a.duration, b.duration);
    ASSERT_EQ(a.values.size(), b.values.size());
    for (std::size_t q = 0; q < a.values.size(); ++q) {
        EXPECT_TRUE(a.values[q] == b.values[q] || (std::isnan(a.values[q]) && std::isnan(b.values[q]))) << q;
    }
}

TEST(RunTable, HoldsEverySampleAsColumns)
{
    const auto samples = someSamples();
    const RunTable table(3, samples);
    ASSERT_EQ(table.size(), samples.size());
    EXPECT_EQ(table.quantities(), 3u);
    EXPECT_EQ(table.variantCount(), 2u);
    EXPECT_EQ(table.firstRepetition(), 0);
    EXPECT_EQ(table.lastRepetition(), 2);
    for (std::size_t i = 0; i < samples.size(); ++i) {
        expectSame(table.sample(i), samples[i]);
        EXPECT_EQ(table.column(1)[i], samples[i].values[1]);
        EXPECT_EQ(table.pairs()[i], samples[i].pair);
    }
    EXPECT_EQ(table.toSamples().size(), samples.size());
}

TEST(RunTable, RowsTakeTheTablesWidth)
{
    RunTable table(3);
    table.append(Sample{0, 0, 0, 0, 0, 1, {1, 2}});           // a value missing: NaN, as stored
    table.append(Sample{0, 0, 1, 1, 1, 1, {1, 2, 3, 4, 5}});  // values past the quantities left out
    EXPECT_TRUE(std::isnan(table.value(0, 2)));
    EXPECT_EQ(table.sample(1).values, (std::vector<double>{1, 2, 3}));

    RunTable adopted;  // no width given: the first row's
    adopted.append(Sample{0, 0, 0, 0, 0, 1, {1, 2}});
    EXPECT_EQ(adopted.quantities(), 2u);
}

TEST(RunTable, ReorderMovesWholeRows)
{
    const auto samples = someSamples();
    RunTable table(3, samples);
    const std::vector<std::uint32_t> order = {4, 2, 0, 3, 1};
    table.reorder(order);
    for (std::size_t i = 0; i < order.size(); ++i) {
        expectSame(table.sample(i), samples[order[i]]);
    }
}

TEST(RunTable, RepetitionsOfAVariantAscend)
{
    const RunTable table(3, someSamples());
    EXPECT_EQ(table.repetitionsOf(), (std::vector<int>{0, 2}));
    EXPECT_EQ(table.repetitionsOf(1), (std::vector<int>{0}));
    EXPECT_EQ(RunTable(3).repetitionsOf(), std::vector<int>{});
}

TEST(RepetitionSlots, DenseNumbersAreOffsetsAndSparseOnesAreSearched)
{
    const RunTable dense(3, someSamples());
    const RepetitionSlots d(dense);
    EXPECT_EQ(d.count(), 3u);  // 0, 1 (no row) and 2
    EXPECT_EQ(d.slot(2), 2u);
    EXPECT_EQ(d.repetition(1), 1);

    std::vector<Sample> far = someSamples();
    far[4].repetition = 1'000'000'000;
    far[0].repetition = -5;
    const RunTable sparse(3, far);
    const RepetitionSlots s(sparse);
    EXPECT_EQ(s.count(), 3u);  // -5, 0 and 1e9: only the numbers held
    EXPECT_EQ(s.slot(-5), 0u);
    EXPECT_EQ(s.slot(0), 1u);
    EXPECT_EQ(s.slot(1'000'000'000), 2u);
    EXPECT_EQ(s.repetition(2), 1'000'000'000);
    EXPECT_EQ(sparse.repetitionsOf(0), (std::vector<int>{-5, 0, 1'000'000'000}));
}

// repetitionValues over the table gives what the ratio of each repetition's totals gives, summed
// row by row (metricValue), with undefined repetitions left out, for dense and sparse numbers.
TEST(RunTable, RepetitionValuesAreRatiosOfEachRepetitionsTotals)
{
    std::mt19937 random(5);
    std::uniform_real_distribution<double> u(1, 2);
    for (const int spread : {1, 100'000'000}) {
        RunData data;
        data.variantNames = {"a", "b"};
        data.layout.quantities = {"ops", "tsc_ticks", "elapsed_ns"};
        data.layout.metrics = callLoopMetrics(data.layout.quantities);
        std::vector<Sample> samples;
        for (int i = 0; i < 400; ++i) {
            const int rep = (i * 7 % 13) * spread;
            const double ops = rep == 5 * spread ? 0 : 100 * u(random);  // repetition 5: no ops
            samples.push_back({i % 2, rep, i, i / 2, 0.001 * i, 0.001, {ops, ops * 30 * u(random), ops * 11}});
        }
        data.samples = RunTable(3, samples);
        for (int v = 0; v < 2; ++v) {
            for (const auto& metric : data.layout.metrics) {
                std::map<int, std::vector<const std::vector<double>*>> byRep;
                for (const auto& s : samples) {
                    if (s.variant == v) {
                        byRep[s.repetition].push_back(&s.values);
                    }
                }
                std::vector<double> expected;
                for (const auto& [rep, rows] : byRep) {
                    if (auto value = metricValue(metric, data.layout.quantities, rows)) {
                        expected.push_back(*value);
                    }
                }
                EXPECT_EQ(data.repetitionValues(v, metric, {}), expected) << metric.name << " " << spread;
                EXPECT_EQ(expected.size(), 12u);
            }
        }
    }
}

TEST(RunTable, MetricColumnsAreFoundOnce)
{
    const std::vector<std::string> q = {"ops", "tsc_ticks", "elapsed_ns"};
    const auto metrics = callLoopMetrics(q);
    const auto columns = metricColumns(metrics[0], q);  // tsc_per_op
    ASSERT_TRUE(columns.has_value());
    EXPECT_EQ(columns->numerator, 1u);
    EXPECT_EQ(columns->denominator, 0u);
    MetricSpec missing = metrics[0];
    missing.denominator = "packets";
    EXPECT_FALSE(metricColumns(missing, q).has_value());
}

}  // namespace
}  // namespace nf::engine
