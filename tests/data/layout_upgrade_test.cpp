// A database written by the release before code placements (tests/data/fixtures/schema_v7.db,
// schema 7) opens read-only as it is, with no placement recorded, and upgrades to record the
// placement of every variant per repetition (migration 8); what it held reads the same.

#include <gtest/gtest.h>

#include <filesystem>

#include "data/run_store.h"
#include "data/schema.h"
#include "tests/data/data_test_support.h"

namespace nf::data {
namespace {

using test::TempDir;

std::string copyOfFixture(const TempDir& dir)
{
    return test::copyOfFixture(dir, NF_FIXTURE_V7_DB, "v7.db");
}

TEST(LayoutUpgrade, SchemaSevenReadsWithoutPlacements)
{
    TempDir dir;
    const auto path = copyOfFixture(dir);
    auto db = openStore(path, Database::Mode::ReadOnly);
    ASSERT_TRUE(db.ok()) << db.error().message;
    EXPECT_EQ(*storedSchemaVersion(*db), 7);
    for (std::int64_t id = 1; id <= 2; ++id) {
        auto run = loadRun(*db, id);
        ASSERT_TRUE(run.ok()) << id << ": " << run.error().message;
        EXPECT_FALSE(run->data.samples.empty()) << id;
        EXPECT_TRUE(run->data.layouts.empty()) << id;
        EXPECT_EQ(run->data.layoutOf(0, 0), -1);
    }
}

TEST(LayoutUpgrade, UpgradedFileKeepsItsRunsAndStoresPlacements)
{
    TempDir dir;
    const auto path = copyOfFixture(dir);
    std::vector<std::size_t> samplesBefore;
    {
        auto db = openStore(path, Database::Mode::ReadOnly);
        ASSERT_TRUE(db.ok());
        for (std::int64_t id = 1; id <= 2; ++id) {
            samplesBefore.push_back(loadRun(*db, id)->data.samples.size());
        }
    }
    auto db = openStore(path, Database::Mode::ReadWrite);
    ASSERT_TRUE(db.ok()) << db.error().message;
    EXPECT_EQ(*storedSchemaVersion(*db), schemaVersion());
    EXPECT_GE(schemaVersion(), 8);
    for (std::int64_t id = 1; id <= 2; ++id) {
        auto run = loadRun(*db, id);
        ASSERT_TRUE(run.ok()) << id << ": " << run.error().message;
        EXPECT_EQ(run->data.samples.size(), samplesBefore[static_cast<std::size_t>(id - 1)]) << id;
        EXPECT_TRUE(run->data.layouts.empty()) << id;
    }

    RunRecorder recorder(*db);
    engine::RunStart start;
    start.spec.workload = "page-pool";
    start.spec.variants = {{"late", {}}, {"early", {}}};
    start.layout.quantities = {"ops"};
    ASSERT_TRUE(recorder.runStarted(start).ok());
    engine::RepetitionResult rep;
    rep.index = 0;
    rep.variants = {0, 1};
    rep.layouts = {5, 2};
    for (int v : rep.variants) {
        engine::Sample s;
        s.variant = v;
        s.values = {1000};
        rep.samples.push_back(s);
    }
    ASSERT_TRUE(recorder.repetitionFinished(rep).ok());
    recorder.runFinished(engine::RunStatus::Complete, "");
    ASSERT_FALSE(recorder.finishError().has_value());
    auto stored = loadRun(*db, recorder.runId());
    ASSERT_TRUE(stored.ok()) << stored.error().message;
    EXPECT_EQ(stored->data.layoutOf(0, 0), 5);
    EXPECT_EQ(stored->data.layoutOf(1, 0), 2);
    EXPECT_EQ(stored->data.layoutOf(1, 1), -1);
}

}  // namespace
}  // namespace nf::data
