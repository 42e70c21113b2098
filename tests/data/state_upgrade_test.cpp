// A database written by the release before validity (tests/data/fixtures/schema_v8.db, schema 8)
// opens read-only as it is, its generator count read under the new name, and upgrades (migration 9):
// gen_packets and gen_pps become offered_packets and offered_pps with every value where it was,
// and each repetition can store the tested settings read before and after it.

#include <gtest/gtest.h>

#include <algorithm>

#include "data/run_store.h"
#include "data/schema.h"
#include "tests/data/data_test_support.h"

namespace nf::data {
namespace {

using test::TempDir;

bool hasQuantity(const engine::RunRecord& run, const std::string& name)
{
    const auto& q = run.data.layout.quantities;
    return std::find(q.begin(), q.end(), name) != q.end();
}

bool hasMetric(const engine::RunRecord& run, const std::string& name)
{
    const auto& m = run.data.layout.metrics;
    return std::any_of(m.begin(), m.end(), [&](const engine::MetricSpec& s) { return s.name == name; });
}

TEST(StateUpgrade, SchemaEightReadsAsItWas)
{
    TempDir dir;
    const auto path = test::copyOfFixture(dir, NF_FIXTURE_V8_DB, "v8.db");
    auto db = openStore(path, Database::Mode::ReadOnly);
    ASSERT_TRUE(db.ok()) << db.error().message;
    EXPECT_EQ(*storedSchemaVersion(*db), 8);
    auto live = loadRun(*db, 1);
    ASSERT_TRUE(live.ok()) << live.error().message;
    EXPECT_TRUE(hasQuantity(*live, "offered_packets"));
    EXPECT_TRUE(hasMetric(*live, "offered_pps"));
    EXPECT_FALSE(hasMetric(*live, "gen_pps"));
    EXPECT_TRUE(live->data.testedStates.empty());
    // The file itself was not touched.
    auto names = db->query<std::string>("SELECT name FROM quantities WHERE name = 'gen_packets'");
    ASSERT_TRUE(names.ok());
    EXPECT_EQ(names->size(), 1U);
}

TEST(StateUpgrade, UpgradeRenamesTheOfferedCountAndStoresTestedSettings)
{
    TempDir dir;
    const auto path = test::copyOfFixture(dir, NF_FIXTURE_V8_DB, "v8.db");
    std::vector<double> offeredBefore;
    {
        auto db = openStore(path, Database::Mode::ReadOnly);
        ASSERT_TRUE(db.ok());
        auto live = loadRun(*db, 1);
        ASSERT_TRUE(live.ok());
        const auto q = static_cast<std::size_t>(live->data.layout.quantityIndex("offered_packets"));
        const auto column = live->data.samples.column(q);
        offeredBefore.assign(column.begin(), column.end());
    }
    auto db = openStore(path, Database::Mode::ReadWrite);
    ASSERT_TRUE(db.ok()) << db.error().message;
    EXPECT_EQ(*storedSchemaVersion(*db), schemaVersion());
    EXPECT_GE(schemaVersion(), 9);
    auto live = loadRun(*db, 1);
    ASSERT_TRUE(live.ok()) << live.error().message;
    EXPECT_FALSE(hasQuantity(*live, "gen_packets"));
    EXPECT_TRUE(hasMetric(*live, "offered_pps"));
    EXPECT_FALSE(hasMetric(*live, "gen_pps"));
    const int q = live->data.layout.quantityIndex(engine::quantity::kOfferedPackets);
    ASSERT_GE(q, 0);
    const auto column = live->data.samples.column(static_cast<std::size_t>(q));
    EXPECT_EQ(std::vector<double>(column.begin(), column.end()), offeredBefore);
    auto pool = loadRun(*db, 2);
    ASSERT_TRUE(pool.ok()) << pool.error().message;
    EXPECT_TRUE(hasMetric(*pool, "tsc_per_op"));

    RunRecorder recorder(*db);
    auto start = test::makeRunStart("tested settings");
    ASSERT_TRUE(recorder.runStarted(start).ok());
    auto rep = test::makeRepetition(0);
    rep.state = {{"before", {{"veth1 gro", "off"}}}, {"after", {{"veth1 gro", "on"}}}};
    ASSERT_TRUE(recorder.repetitionFinished(rep).ok());
    ASSERT_TRUE(recorder.repetitionFinished(test::makeRepetition(1)).ok());
    recorder.runFinished(engine::RunStatus::Complete, "");
    ASSERT_FALSE(recorder.finishError().has_value());
    auto stored = loadRun(*db, recorder.runId());
    ASSERT_TRUE(stored.ok()) << stored.error().message;
    ASSERT_EQ(stored->data.testedStates.size(), 1U);
    EXPECT_EQ(stored->data.testedStates[0].first, 0);
    EXPECT_EQ(stored->data.testedStates[0].second["after"]["veth1 gro"], "on");
}

}  // namespace
}  // namespace nf::data
