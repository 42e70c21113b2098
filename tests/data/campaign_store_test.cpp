// Campaigns in the store (migration 11): a database of the release before campaigns
// (tests/data/fixtures/schema_v10.db) reads as it was and upgrades; a plan and its boots are read
// back as written; a boot id is counted once; deleting a run drops it from its boot.

#include <gtest/gtest.h>

#include "data/campaign_store.h"
#include "data/run_copy.h"
#include "data/run_store.h"
#include "data/schema.h"
#include "tests/data/data_test_support.h"

namespace nf::data {
namespace {

using test::TempDir;

engine::CampaignPlan plan()
{
    engine::CampaignPlan p;
    p.name = "pf";
    p.kernels = {{"vanilla", "3f2a", ""}, {"patched", "9b1c", "/boot/vmlinuz-6.1.0-patched"}};
    p.bootsPlanned = 6;
    p.order = engine::BootOrder::Random;
    p.seed = 0xfedcba9876543210ULL;  // above INT64_MAX: stored as its bits
    p.metric = "wall_ms";
    p.alpha = 0.01;
    p.marginPct = 2;
    p.workdir = "/srv/lab";
    p.reboot = "command /usr/local/bin/next-kernel";
    p.commandLine = "noisefloor campaign new pf ...";
    p.steps = {{"run", "command", "-p", "cmd=./bench 'a b'"}, {"import", "perf-stat", "out.txt"}};
    return p;
}

TEST(CampaignStore, SchemaTenReadsAsItWasAndUpgradesToStoreCampaigns)
{
    TempDir dir;
    const auto path = test::copyOfFixture(dir, NF_FIXTURE_V10_DB, "v10.db");
    {
        auto db = openStore(path, Database::Mode::ReadOnly);
        ASSERT_TRUE(db.ok()) << db.error().message;
        EXPECT_EQ(*storedSchemaVersion(*db), 10);
        auto profiled = loadRun(*db, 2);
        ASSERT_TRUE(profiled.ok()) << profiled.error().message;
        ASSERT_TRUE(loadProfile(*db, *profiled).ok());
        EXPECT_TRUE(profiled->data.profile.has_value());
    }
    auto db = openStore(path, Database::Mode::ReadWrite);
    ASSERT_TRUE(db.ok()) << db.error().message;
    EXPECT_EQ(*storedSchemaVersion(*db), schemaVersion());
    EXPECT_GE(schemaVersion(), 11);
    auto imported = loadRun(*db, 1);
    ASSERT_TRUE(imported.ok()) << imported.error().message;
    EXPECT_EQ(imported->row.label, "fixture-v10-perf");

    auto id = storeCampaign(*db, plan());
    ASSERT_TRUE(id.ok()) << id.error().message;
    auto again = storeCampaign(*db, plan());
    ASSERT_FALSE(again.ok());
    EXPECT_NE(again.error().message.find("exists already"), std::string::npos);

    engine::CampaignBoot boot;
    boot.slot = 0;
    boot.kernel = 1;
    boot.bootId = "b1";
    boot.identity = {{"build_id", "9b1c"}};
    boot.pid = 42;
    auto row = beginBoot(*db, *id, boot);
    ASSERT_TRUE(row.ok()) << row.error().message;
    EXPECT_FALSE(beginBoot(*db, *id, boot).ok());  // the same boot id is counted once
    ASSERT_TRUE(addBootRun(*db, *row, 0, 2).ok());
    ASSERT_TRUE(endBoot(*db, *row, engine::BootStatus::Complete, "").ok());

    auto c = loadCampaign(*db, "pf");
    ASSERT_TRUE(c.ok()) << c.error().message;
    const auto p = plan();
    EXPECT_EQ(c->plan.seed, p.seed);
    EXPECT_EQ(c->plan.order, engine::BootOrder::Random);
    EXPECT_EQ(c->plan.steps, p.steps);
    EXPECT_EQ(c->plan.kernels[1].image, p.kernels[1].image);
    EXPECT_EQ(c->plan.reboot, p.reboot);
    EXPECT_DOUBLE_EQ(c->plan.alpha, 0.01);
    ASSERT_EQ(c->boots.size(), 1U);
    EXPECT_EQ(c->boots[0].status, engine::BootStatus::Complete);
    EXPECT_EQ(c->boots[0].identity["build_id"], "9b1c");
    ASSERT_EQ(c->boots[0].runs.size(), 1U);
    EXPECT_EQ(c->completeBoots(), 1);

    ASSERT_TRUE(deleteRun(*db, 2).ok());
    c = loadCampaign(*db, "pf");
    ASSERT_TRUE(c.ok());
    EXPECT_TRUE(c->boots[0].runs.empty());
    EXPECT_FALSE(loadCampaign(*db, "other").ok());
}

}  // namespace
}  // namespace nf::data
