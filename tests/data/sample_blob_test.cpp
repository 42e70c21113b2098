// How sample values are stored (one samples.vals blob per sample) and read back.

#include "data/sample_blob.h"

#include <gtest/gtest.h>

#include <algorithm>
#include <cmath>
#include <cstdint>
#include <cstring>
#include <numeric>
#include <optional>
#include <random>
#include <span>
#include <string>
#include <tuple>
#include <vector>

#include "data/run_store.h"
#include "data/schema.h"
#include "tests/data/data_test_support.h"

namespace nf::data {
namespace {

using engine::RunStatus;
using test::TempDir;

class SampleBlobTest : public ::testing::Test {
protected:
    void SetUp() override
    {
        auto db = openStore(m_dir.file("runs.db"));
        ASSERT_TRUE(db.ok()) << db.error().message;
        m_db.emplace(std::move(*db));
    }
    Database& db() { return *m_db; }

    std::int64_t record(const std::vector<engine::RepetitionResult>& reps)
    {
        RunRecorder recorder(db());
        EXPECT_TRUE(recorder.runStarted(test::makeRunStart("blob")).ok());
        for (const auto& rep : reps) {
            auto stored = recorder.repetitionFinished(rep);
            EXPECT_TRUE(stored.ok()) << stored.error().message;
        }
        recorder.runFinished(RunStatus::Complete, "");
        return recorder.runId();
    }

    using Key = std::tuple<int, int, int>;  // variant, repetition, index

    // The run's samples as ORDER BY start_s, seq, idx gives them.
    std::vector<Key> sqlOrder(std::int64_t id)
    {
        auto stmt = db().prepare(
            "SELECT v.idx, p.idx, s.idx FROM samples s JOIN repetitions p ON p.id = s.repetition_id "
            "JOIN variants v ON v.id = p.variant_id WHERE p.run_id = ? ORDER BY s.start_s, p.seq, s.idx");
        EXPECT_TRUE(stmt.ok());
        std::vector<Key> order;
        if (!stmt) {
            return order;
        }
        stmt->bind(1, id);
        for (auto row = stmt->step(); row.ok() && *row; row = stmt->step()) {
            order.emplace_back(stmt->int64(0), stmt->int64(1), stmt->int64(2));
        }
        return order;
    }

    static std::vector<Key> keys(const engine::RunRecord& run)
    {
        std::vector<Key> order;
        for (const engine::Sample& s : run.data.samples.toSamples()) {
            order.emplace_back(s.variant, s.repetition, s.index);
        }
        return order;
    }

    TempDir m_dir;
    std::optional<Database> m_db;
};

// The value of the 8 little-endian bytes at `at`, assembled by hand.
double littleEndianAt(std::span<const unsigned char> bytes, std::size_t at)
{
    std::uint64_t bits = 0;
    for (std::size_t i = 0; i < 8; ++i) {
        bits |= static_cast<std::uint64_t>(bytes[at + i]) << (8 * i);
    }
    double value = 0;
    std::memcpy(&value, &bits, sizeof value);
    return value;
}

TEST(SampleBlob, EncodesLittleEndianFloat64)
{
    std::vector<unsigned char> blob;
    encodeValues(std::vector<double>{1.0, -2.5, std::nan("")}, blob);
    ASSERT_EQ(blob.size(), 24u);
    const std::vector<unsigned char> one = {0, 0, 0, 0, 0, 0, 0xf0, 0x3f};
    EXPECT_EQ(std::vector<unsigned char>(blob.begin(), blob.begin() + 8), one);
    EXPECT_EQ(littleEndianAt(blob, 8), -2.5);
    EXPECT_TRUE(std::isnan(littleEndianAt(blob, 16)));
    std::vector<double> back(3);
    decodeValues(blob, back.data());
    EXPECT_EQ(back[0], 1.0);
    EXPECT_EQ(back[1], -2.5);
    EXPECT_TRUE(std::isnan(back[2]));
    encodeValues(std::vector<double>{}, blob);
    EXPECT_TRUE(blob.empty());
}

TEST_F(SampleBlobTest, OneRowPerSampleWithItsValuesInQuantityOrder)
{
    engine::RepetitionResult rep = test::makeRepetition(0, 3);
    rep.samples[4].values[1] = std::nan("");
    std::int64_t id = record({rep});
    auto stmt = db().prepare(
        "SELECT v.idx, s.idx, s.vals FROM samples s JOIN repetitions p ON p.id = s.repetition_id "
        "JOIN variants v ON v.id = p.variant_id WHERE p.run_id = ?");
    ASSERT_TRUE(stmt.ok());
    stmt->bind(1, id);
    std::size_t rows = 0;
    for (auto row = stmt->step(); row.ok() && *row; row = stmt->step()) {
        ++rows;
        const engine::Sample* sample = nullptr;
        for (const engine::Sample& s : rep.samples) {
            if (s.variant == stmt->int64(0) && s.index == stmt->int64(1)) {
                sample = &s;
            }
        }
        ASSERT_NE(sample, nullptr);
        std::span<const unsigned char> vals = stmt->blob(2);
        ASSERT_EQ(vals.size(), 8 * sample->values.size());
        for (std::size_t q = 0; q < sample->values.size(); ++q) {
            if (std::isnan(sample->values[q])) {
                EXPECT_TRUE(std::isnan(littleEndianAt(vals, 8 * q)));
            } else {
                EXPECT_EQ(littleEndianAt(vals, 8 * q), sample->values[q]);
            }
        }
    }
    EXPECT_EQ(rows, rep.samples.size());
}

TEST_F(SampleBlobTest, BlobOfTheWrongLengthIsAnErrorNotACrash)
{
    std::int64_t id = record({test::makeRepetition(0), test::makeRepetition(1, 3, 1.0)});
    std::int64_t intact = record({test::makeRepetition(0)});
    // Sample 2 of variant b in repetition 1 loses its last value; then another gets a text value.
    const std::string sample =
        " WHERE idx = 2 AND repetition_id = (SELECT p.id FROM repetitions p JOIN variants v ON v.id = p.variant_id "
        "WHERE p.run_id = " +
        std::to_string(id) + " AND p.idx = 1 AND v.name = 'b')";
    for (const char* value : {"substr(vals, 1, 16)", "zeroblob(32)", "x''", "'abc'"}) {
        ASSERT_TRUE(db().exec("UPDATE samples SET vals = " + std::string(value) + sample).ok()) << value;
        auto run = loadRun(db(), id);
        ASSERT_FALSE(run.ok()) << value;
        const std::string& message = run.error().message;
        EXPECT_NE(message.find("run " + std::to_string(id)), std::string::npos) << message;
        EXPECT_NE(message.find("sample 2 of variant b in repetition 1"), std::string::npos) << message;
        EXPECT_NE(message.find("expected 24 (3 quantities)"), std::string::npos) << message;
    }
    auto run = loadRun(db(), id);
    ASSERT_FALSE(run.ok());
    EXPECT_NE(run.error().message.find("has 3 bytes of values"), std::string::npos) << run.error().message;
    auto other = loadRun(db(), intact);  // the damage stays with its run
    ASSERT_TRUE(other.ok()) << other.error().message;
    EXPECT_EQ(other->data.samples.size(), test::makeRepetition(0).samples.size());
}

// Samples come back as ORDER BY start_s, seq, idx would give them, whatever order they were made
// in: ties in start time, indexes out of time order, repetitions overlapping in time, a variant
// measured alone.
TEST_F(SampleBlobTest, SamplesAreOrderedByStartThenSequenceThenIndex)
{
    auto sample = [](int variant, int repetition, int index, double start) {
        engine::Sample s;
        s.variant = variant;
        s.repetition = repetition;
        s.index = index;
        s.start = start;
        s.duration = 0.1;
        s.values = {1.0 + index, 2.0 + start, 3.0 + variant};
        return s;
    };
    std::vector<engine::RepetitionResult> reps(4);
    reps[0].index = 0;
    reps[0].variants = {1, 0};
    reps[0].samples = {sample(1, 0, 0, 0.0), sample(0, 0, 0, 0.0), sample(1, 0, 1, 0.5), sample(0, 0, 1, 0.5)};
    reps[1].index = 1;
    reps[1].variants = {0, 1};
    reps[1].samples = {sample(0, 1, 1, 1.0), sample(0, 1, 0, 1.2), sample(1, 1, 0, 1.1), sample(1, 1, 1, 1.1)};
    reps[2].index = 2;
    reps[2].variants = {0};
    reps[2].samples = {sample(0, 2, 0, 0.9), sample(0, 2, 1, 1.15), sample(0, 2, 2, 3.0)};
    reps[3].index = 2;
    reps[3].variants = {1};
    reps[3].samples = {sample(1, 2, 0, 0.5), sample(1, 2, 1, 2.0)};
    std::int64_t id = record(reps);

    std::vector<Key> expected = sqlOrder(id);
    ASSERT_EQ(expected.size(), 13u);
    auto run = loadRun(db(), id);
    ASSERT_TRUE(run.ok()) << run.error().message;
    for (const engine::Sample& s : run->data.samples.toSamples()) {
        EXPECT_EQ(s.values, (std::vector<double>{1.0 + s.index, 2.0 + s.start, 3.0 + s.variant}));
    }
    EXPECT_EQ(keys(*run), expected);
}

TEST_F(SampleBlobTest, RandomRunsAreOrderedAsSqlWouldOrderThem)
{
    std::mt19937 random(7);
    for (int trial = 0; trial < 20; ++trial) {
        std::vector<engine::RepetitionResult> reps;
        for (int r = 0; r < 6; ++r) {
            engine::RepetitionResult& rep = reps.emplace_back();
            rep.index = r;
            rep.variants = random() % 3 == 0 ? std::vector<int>{1} : std::vector<int>{0, 1};
            for (int variant : rep.variants) {
                std::vector<int> indexes(random() % 13);
                std::iota(indexes.begin(), indexes.end(), 0);
                std::shuffle(indexes.begin(), indexes.end(), random);
                for (int index : indexes) {
                    engine::Sample& s = rep.samples.emplace_back();
                    s.variant = variant;
                    s.repetition = r;
                    s.index = index;
                    s.start = 0.25 * static_cast<double>(random() % 12);  // overlaps and ties
                    s.values = {1.0, 2.0, 3.0};
                }
            }
            std::shuffle(rep.samples.begin(), rep.samples.end(), random);
        }
        std::int64_t id = record(reps);
        auto run = loadRun(db(), id);
        ASSERT_TRUE(run.ok()) << run.error().message;
        EXPECT_EQ(keys(*run), sqlOrder(id)) << "trial " << trial;
    }
}

}  // namespace
}  // namespace nf::data
