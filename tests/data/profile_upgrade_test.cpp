// A database written by the release before profiles (tests/data/fixtures/schema_v9.db, schema 9)
// opens read-only as it is, and upgrades (migration 10) to store a profiled run: its summary, the
// samples per chunk and symbol, and the folded stacks, read back as they were written and copied
// with the run.

#include <gtest/gtest.h>

#include <sstream>

#include "data/export.h"
#include "data/run_copy.h"
#include "data/run_store.h"
#include "data/schema.h"
#include "tests/data/data_test_support.h"

namespace nf::data {
namespace {

using test::TempDir;

engine::RepetitionProfile repetitionProfile(int repetition)
{
    engine::RepetitionProfile p;
    p.repetition = repetition;
    p.symbols = {"sock_def_readable", "__x86_indirect_thunk_rax", engine::kOtherSymbol};
    p.chunks = {{0, repetition, 0, 1, 10}, {1, repetition, 0, 1, 12}};
    p.counts = {{0, repetition, 0, 1, 0, 9},
                {0, repetition, 0, 1, 2, 1},
                {1, repetition, 0, 1, 0, 10},
                {1, repetition, 0, 1, 1, 2}};
    p.stacks = {{0, repetition, 1, "main;run;sock_def_readable", 9},
                {1, repetition, 1, "main;run;__x86_indirect_thunk_rax", 2}};
    p.outside = 3;
    return p;
}

TEST(ProfileUpgrade, SchemaNineReadsAsItWasAndUpgradesToStoreProfiles)
{
    TempDir dir;
    const auto path = test::copyOfFixture(dir, NF_FIXTURE_V9_DB, "v9.db");
    {
        auto db = openStore(path, Database::Mode::ReadOnly);
        ASSERT_TRUE(db.ok()) << db.error().message;
        EXPECT_EQ(*storedSchemaVersion(*db), 9);
        auto live = loadRun(*db, 1);
        ASSERT_TRUE(live.ok()) << live.error().message;
        EXPECT_FALSE(live->data.profile.has_value());
    }
    auto db = openStore(path, Database::Mode::ReadWrite);
    ASSERT_TRUE(db.ok()) << db.error().message;
    EXPECT_EQ(*storedSchemaVersion(*db), schemaVersion());
    EXPECT_GE(schemaVersion(), 10);
    auto live = loadRun(*db, 1);
    ASSERT_TRUE(live.ok()) << live.error().message;
    EXPECT_FALSE(live->data.profile.has_value());

    RunRecorder recorder(*db);
    ASSERT_TRUE(recorder.runStarted(test::makeRunStart("profiled")).ok());
    engine::ProfileSummary summary{"cpu-clock", 1999, {{1, "worker"}}, 22, 3, 0, 0.004, false};
    for (int rep = 0; rep < 2; ++rep) {
        ASSERT_TRUE(recorder.repetitionFinished(test::makeRepetition(rep, 1)).ok());
        ASSERT_TRUE(recorder.profileMeasured(summary, repetitionProfile(rep)).ok());
    }
    summary.samples = 44;
    summary.lost = 5;
    ASSERT_TRUE(recorder.profileFinished(summary).ok());
    recorder.runFinished(engine::RunStatus::Complete, "");
    auto stored = loadRun(*db, recorder.runId());
    ASSERT_TRUE(stored.ok()) << stored.error().message;
    ASSERT_TRUE(stored->data.profile.has_value());
    const auto& p = *stored->data.profile;
    EXPECT_EQ(p.summary.event, "cpu-clock");
    EXPECT_EQ(p.summary.hz, 1999);
    EXPECT_EQ(p.summary.samples, 44U);
    EXPECT_EQ(p.summary.lost, 5U);
    EXPECT_EQ(p.roleOf(1), "worker");
    EXPECT_EQ(p.symbols.size(), 3U);  // once per run, not per repetition
    EXPECT_EQ(p.chunks.size(), 4U);
    ASSERT_EQ(p.counts.size(), 8U);
    int thunk = 0;
    for (const auto& c : p.counts) {
        thunk += p.symbols.at(static_cast<std::size_t>(c.symbol)) == "__x86_indirect_thunk_rax" ? c.samples : 0;
    }
    EXPECT_EQ(thunk, 4);

    std::ostringstream folded;
    ASSERT_TRUE(writeFolded(*stored, folded).ok());
    EXPECT_EQ(folded.str(),
              "a;cpu1-worker;main;run;sock_def_readable 18\nb;cpu1-worker;main;run;__x86_indirect_thunk_rax 4\n");
    std::ostringstream none;
    EXPECT_FALSE(writeFolded(*live, none).ok());

    // merge and export --format sqlite copy the profile with the run.
    const auto copyPath = dir.file("copy.db");
    auto to = openStore(copyPath);
    ASSERT_TRUE(to.ok()) << to.error().message;
    auto copied = copyRuns(*to, path, {recorder.runId()}, "", std::stop_token{}, true);
    ASSERT_TRUE(copied.ok()) << copied.error().message;
    auto again = loadRun(*to, copied->front().id);
    ASSERT_TRUE(again.ok()) << again.error().message;
    ASSERT_TRUE(again->data.profile.has_value());
    EXPECT_EQ(again->data.profile->counts.size(), 8U);
    std::ostringstream foldedAgain;
    ASSERT_TRUE(writeFolded(*again, foldedAgain).ok());
    EXPECT_EQ(foldedAgain.str(), folded.str());
}

}  // namespace
}  // namespace nf::data
