// A database written by the previous release (tests/data/fixtures/schema_v1.db, noisefloor 0.1.0)
// opens read-only as it is, and upgrades through every migration when opened for writing, with
// every run still whole; run 3 says its values were rebuilt from perf stat -r summaries, and the
// upgraded file stores runs made of summaries.

#include <gtest/gtest.h>

#include <cmath>

#include <filesystem>

#include "data/run_store.h"
#include "data/schema.h"
#include "data/stored_import.h"
#include "tests/data/data_test_support.h"

namespace nf::data {
namespace {

using test::TempDir;

std::string copyOfFixture(const TempDir& dir)
{
    const std::string path = dir.file("v1.db");
    std::filesystem::copy_file(NF_FIXTURE_DB, path);
    return path;
}

TEST(FixtureUpgrade, ReadOnlyReadsTheOldSchemaAsItIs)
{
    TempDir dir;
    const auto path = copyOfFixture(dir);
    auto db = openStore(path, Database::Mode::ReadOnly);
    ASSERT_TRUE(db.ok()) << db.error().message;
    EXPECT_EQ(*storedSchemaVersion(*db), 1);
    auto rows = listRuns(*db);
    ASSERT_TRUE(rows.ok()) << rows.error().message;
    EXPECT_EQ(rows->size(), 7u);
    for (const auto& row : *rows) {
        auto run = loadRun(*db, row.id);
        ASSERT_TRUE(run.ok()) << row.id << ": " << run.error().message;
        EXPECT_TRUE(run->warnings.empty());
        EXPECT_FALSE(run->data.samples.empty()) << row.id;
    }
}

TEST(FixtureUpgrade, WritingUpgradesThroughEveryMigrationAndKeepsEveryRun)
{
    TempDir dir;
    const auto path = copyOfFixture(dir);
    std::vector<std::size_t> samplesBefore;
    {
        auto db = openStore(path, Database::Mode::ReadOnly);
        ASSERT_TRUE(db.ok());
        for (std::int64_t id = 1; id <= 7; ++id) {
            samplesBefore.push_back(loadRun(*db, id)->data.samples.size());
        }
    }
    auto db = openStore(path, Database::Mode::ReadWrite);
    ASSERT_TRUE(db.ok()) << db.error().message;
    EXPECT_EQ(*storedSchemaVersion(*db), schemaVersion());
    for (std::int64_t id = 1; id <= 7; ++id) {
        auto run = loadRun(*db, id);
        ASSERT_TRUE(run.ok()) << id << ": " << run.error().message;
        EXPECT_EQ(run->data.samples.size(), samplesBefore[static_cast<std::size_t>(id - 1)]) << id;
        EXPECT_EQ(run->row.status, engine::RunStatus::Complete) << id;
    }
    // Schema 6: every sample row has the checksum of what it held at the upgrade.
    EXPECT_EQ(db->queryOne<std::int64_t>("SELECT count(*) FROM samples WHERE checksum IS NOT "
                                         "nf_sample_checksum(idx, pair, start_s, duration_s, vals)")
                  ->value_or(-1),
              0);
    EXPECT_GT(db->queryOne<std::int64_t>("SELECT count(*) FROM samples")->value_or(0), 0);
    // The upgraded database takes new runs with warnings.
    RunRecorder recorder(*db);
    engine::RunStart start;
    start.spec.workload = "spin";
    start.spec.variants = {{"a", {}}};
    start.layout.quantities = {"ops"};
    ASSERT_TRUE(recorder.runStarted(start).ok());
    recorder.warning("receiver thread: cannot pin to CPU 3: Invalid argument; it ran unpinned");
    recorder.runFinished(engine::RunStatus::Complete, "");
    ASSERT_FALSE(recorder.finishError().has_value());
    auto stored = loadRun(*db, recorder.runId());
    ASSERT_TRUE(stored.ok());
    EXPECT_EQ(stored->warnings,
              std::vector<std::string>{"receiver thread: cannot pin to CPU 3: Invalid argument; it ran unpinned"});
}

// ---- perf stat -r imports: rebuilt values (schema 1) and summaries (migration 3) ----

std::int64_t userVersion(Database& db)
{
    auto stmt = db.prepare("PRAGMA user_version");
    return stmt && stmt->step().ok() ? stmt->int64(0) : -1;
}

// Sample and summary counts of every run, to hold the upgraded file against the original.
std::vector<std::pair<std::size_t, std::size_t>> contents(Database& db)
{
    std::vector<std::pair<std::size_t, std::size_t>> out;
    auto runs = listRuns(db);
    EXPECT_TRUE(runs.ok());
    for (const auto& row : *runs) {
        auto run = loadRun(db, row.id);
        EXPECT_TRUE(run.ok()) << run.error().message;
        out.emplace_back(run->data.samples.size(), run->data.summaries.size());
    }
    return out;
}

TEST(FixtureUpgrade, SchemaOneOpensReadOnlyAndSaysItsValuesWereRebuilt)
{
    TempDir dir;
    auto db = openStore(copyOfFixture(dir), Database::Mode::ReadOnly);
    ASSERT_TRUE(db.ok()) << db.error().message;
    EXPECT_EQ(userVersion(*db), 1);
    auto run = loadRun(*db, 3);
    ASSERT_TRUE(run.ok()) << run.error().message;
    EXPECT_EQ(run->row.workload, "import:perf-stat");
    ASSERT_TRUE(run->environment.import.has_value());
    EXPECT_TRUE(run->environment.import->reconstructed);
    EXPECT_FALSE(run->environment.import->summaries);
    EXPECT_FALSE(run->data.summarised());
    EXPECT_EQ(run->data.samples.size(), 20U);  // four -r 5 summaries rebuilt as 5 values each
}

TEST(FixtureUpgrade, UpgradedFileKeepsSummaryCountsAndStoresSummaries)
{
    TempDir dir;
    const auto path = copyOfFixture(dir);
    std::vector<std::pair<std::size_t, std::size_t>> before;
    {
        auto db = openStore(path, Database::Mode::ReadOnly);
        ASSERT_TRUE(db.ok()) << db.error().message;
        before = contents(*db);
    }
    ASSERT_EQ(before.size(), 7U);
    auto db = openStore(path, Database::Mode::ReadWrite);
    ASSERT_TRUE(db.ok()) << db.error().message;
    EXPECT_EQ(userVersion(*db), schemaVersion());
    EXPECT_GE(schemaVersion(), 3);
    EXPECT_EQ(contents(*db), before);
    auto rebuilt = loadRun(*db, 3);
    ASSERT_TRUE(rebuilt.ok());
    EXPECT_TRUE(rebuilt->environment.import->reconstructed);

    // The upgraded file stores a run of summaries (migration 3) and reads it back.
    auto start = test::makeRunStart("summaries");
    start.spec.variants = {{"default", {}}};
    start.variantParams = {nlohmann::json::object()};
    start.layout.quantities = {"cycles", "runs"};
    start.layout.metrics = {{"cycles", "count", "cycles", "runs", 1.0, false, "", ""}};
    engine::RepetitionResult rep;
    rep.variants = {0};
    rep.samples = {{0, 0, 0, -1, 0, 1.0, {3.7e9, 1.0}}};
    const std::vector<engine::SummaryStat> summaries = {{0, 0, "cycles", 4, 3.7e9, 3.3e6}};
    auto id = storeFinishedRun(*db, start, {rep}, summaries);
    ASSERT_TRUE(id.ok()) << id.error().message;
    auto back = loadRun(*db, *id);
    ASSERT_TRUE(back.ok()) << back.error().message;
    ASSERT_EQ(back->data.summaries.size(), 1U);
    EXPECT_EQ(back->data.summaries[0].quantity, "cycles");
    EXPECT_EQ(back->data.summaries[0].n, 4);
    EXPECT_DOUBLE_EQ(back->data.summaries[0].mean, 3.7e9);
    EXPECT_DOUBLE_EQ(back->data.summaries[0].se, 3.3e6);
    const auto pooled = back->data.summaryOf(0, back->data.layout.metrics[0]);
    ASSERT_TRUE(pooled.has_value());
    EXPECT_DOUBLE_EQ(pooled->stddev, 3.3e6 * 2);  // se * sqrt(n)
}

// The upgraded 0.1.0 file stores an until-decided run's decision and looks (migration 5) and reads
// them back; the bound of a look with too few units is NULL and reads back as NaN.
TEST(FixtureUpgrade, UpgradedFileStoresASequentialDecisionAndItsLooks)
{
    TempDir dir;
    const auto path = copyOfFixture(dir);
    auto db = openStore(path, Database::Mode::ReadWrite);
    ASSERT_TRUE(db.ok()) << db.error().message;
    RunRecorder recorder(*db);
    ASSERT_TRUE(recorder.runStarted(test::makeRunStart("decided")).ok());
    ASSERT_TRUE(recorder.repetitionFinished(test::makeRepetition(0, 3, 0.0)).ok());
    const double nan = std::nan("");
    ASSERT_TRUE(recorder.decisionLook({1, 1, 1, 1.0, 0.5, nan, nan, nan, "inconclusive"}).ok());
    ASSERT_TRUE(recorder.repetitionFinished(test::makeRepetition(1, 3, 1.0)).ok());
    ASSERT_TRUE(recorder.decisionLook({2, 2, 400, 2.0, -0.8, -1.2, -0.4, 0.01, "different"}).ok());
    ASSERT_TRUE(recorder
                    .decisionMade({.method = "confidence sequence",
                                   .metric = "tsc_per_op",
                                   .unit = "chunk pair",
                                   .alpha = 0.05,
                                   .marginPct = 1,
                                   .maxTime = 60,
                                   .decision = "different",
                                   .stopReason = "decided: different",
                                   .secondsNeeded = -1,
                                   .looks = {}})
                    .ok());
    recorder.runFinished(engine::RunStatus::Complete, "decided: different");
    auto back = loadRun(*db, recorder.runId());
    ASSERT_TRUE(back.ok()) << back.error().message;
    ASSERT_TRUE(back->decision.has_value());
    EXPECT_EQ(back->row.status, engine::RunStatus::Complete);
    EXPECT_EQ(back->row.statusReason, "decided: different");
    EXPECT_EQ(back->decision->decision, "different");
    EXPECT_EQ(back->decision->secondsNeeded, -1);
    ASSERT_EQ(back->decision->looks.size(), 2U);
    EXPECT_TRUE(std::isnan(back->decision->looks[0].lowPct));
    EXPECT_EQ(back->decision->looks[1].units, 400U);
    EXPECT_DOUBLE_EQ(back->decision->looks[1].highPct, -0.4);
    // A run that did not run until decided has none.
    auto old = loadRun(*db, 3);
    ASSERT_TRUE(old.ok());
    EXPECT_FALSE(old->decision.has_value());
}

TEST(FixtureUpgrade, ASummaryOfAQuantityTheRunLacksIsRefusedAndNothingIsStored)
{
    TempDir dir;
    auto db = openStore(dir.file("runs.db"));
    ASSERT_TRUE(db.ok());
    auto start = test::makeRunStart("bad");
    auto id = storeFinishedRun(*db, start, {test::makeRepetition(0)}, {{0, 0, "no-such-quantity", 4, 1, 0}});
    ASSERT_FALSE(id.ok());
    EXPECT_NE(id.error().message.find("no-such-quantity"), std::string::npos) << id.error().message;
    EXPECT_TRUE(listRuns(*db)->empty());
}

}  // namespace
}  // namespace nf::data
