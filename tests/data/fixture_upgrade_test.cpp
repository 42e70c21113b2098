// A database written by the previous release (tests/data/fixtures/schema_v1.db, noisefloor 0.1.0)
// opens read-only as it is, and upgrades through every migration when opened for writing, with
// every run still whole.

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

}  // namespace
}  // namespace nf::data
