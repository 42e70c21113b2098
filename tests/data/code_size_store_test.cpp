// Code size per label (migration 11): stored and read back whole (sections, rows, totals or none),
// a label's second store replacing its first, and a database of an older release (read-only,
// schema 10) reading as having none.

#include "data/code_size_store.h"

#include <gtest/gtest.h>

#include "data/schema.h"
#include "tests/data/data_test_support.h"

namespace nf::data {
namespace {

using test::TempDir;

engine::CodeSizeRecord categorised()
{
    engine::CodeSizeSection function;
    function.added = 1;
    function.grown = 1;
    function.up = 14;
    function.before = 100;
    function.after = 114;
    function.rows = {{"page_pool_release", std::nullopt, 10}, {"page_order.isra", 3, 7}};
    engine::CodeSizeSection ro;
    ro.title = "RO Data";
    ro.removed = 53;
    ro.down = 400;
    ro.rows = {{"ice_dummy_pkt_profiles", 672, std::nullopt}};  // cut in the source: no total either
    return {"patched", "", "", "", "bloat.txt", {{function, ro}}};
}

TEST(CodeSizeStore, ARecordIsReadBackWhole)
{
    TempDir dir;
    auto db = openStore(dir.file("s.db"), Database::Mode::ReadWrite);
    ASSERT_TRUE(db.ok()) << db.error().message;
    EXPECT_FALSE(codeSizeFor(*db, "patched")->has_value());
    ASSERT_TRUE(storeCodeSize(*db, categorised()).ok());
    auto read = codeSizeFor(*db, "patched");
    ASSERT_TRUE(read.ok()) << read.error().message;
    ASSERT_TRUE(read->has_value());
    const auto& r = **read;
    EXPECT_EQ(r.label, "patched");
    EXPECT_EQ(r.imported, "bloat.txt");
    EXPECT_EQ(r.createdAt.size(), 20u) << r.createdAt;  // 2026-01-01T00:00:00Z
    ASSERT_EQ(r.diff.sections.size(), 2u);
    const auto& f = r.diff.sections[0];
    EXPECT_EQ(f.title, "Function");
    EXPECT_EQ(f.added, 1);
    EXPECT_EQ(f.grown, 1);
    EXPECT_EQ(f.up, 14);
    EXPECT_EQ(f.before, 100);
    EXPECT_EQ(f.after, 114);
    ASSERT_EQ(f.rows.size(), 2u);
    EXPECT_EQ(f.rows[0].name, "page_pool_release");
    EXPECT_FALSE(f.rows[0].oldBytes.has_value());
    EXPECT_EQ(f.rows[0].newBytes, 10);
    EXPECT_EQ(f.rows[1].name, "page_order.isra");
    EXPECT_EQ(f.rows[1].oldBytes, 3);
    const auto& ro = r.diff.sections[1];
    EXPECT_EQ(ro.title, "RO Data");
    EXPECT_EQ(ro.removed, 53);
    EXPECT_EQ(ro.down, 400);
    EXPECT_FALSE(ro.before.has_value());
    EXPECT_FALSE(ro.after.has_value());
    ASSERT_EQ(ro.rows.size(), 1u);
    EXPECT_FALSE(ro.rows[0].newBytes.has_value());
    EXPECT_FALSE(codeSizeFor(*db, "vanilla")->has_value());
}

TEST(CodeSizeStore, ALabelsNewCodeSizeReplacesItsOld)
{
    TempDir dir;
    auto db = openStore(dir.file("s.db"), Database::Mode::ReadWrite);
    ASSERT_TRUE(db.ok()) << db.error().message;
    ASSERT_TRUE(storeCodeSize(*db, categorised()).ok());
    auto other = categorised();
    other.label = "other";
    ASSERT_TRUE(storeCodeSize(*db, other).ok());
    engine::CodeSizeRecord measured{"patched",   "", "vmlinux.a",
                                    "vmlinux.b", "", engine::bloatDiff({{"f", 10}}, {{"f", 12}})};
    ASSERT_TRUE(storeCodeSize(*db, measured).ok());
    const auto read = codeSizeFor(*db, "patched");
    ASSERT_TRUE(read.ok() && read->has_value());
    EXPECT_EQ((*read)->oldFile, "vmlinux.a");
    EXPECT_EQ((*read)->newFile, "vmlinux.b");
    EXPECT_EQ((*read)->imported, "");
    ASSERT_EQ((*read)->diff.sections.size(), 1u);
    EXPECT_EQ((*read)->diff.sections[0].rows.size(), 1u);
    // Nothing of the first is left behind; the other label keeps its own.
    EXPECT_EQ(db->queryOne<std::int64_t>("SELECT count(*) FROM code_sizes")->value_or(0), 2);
    EXPECT_EQ(db->queryOne<std::int64_t>("SELECT count(*) FROM code_size_sections")->value_or(0), 3);
    EXPECT_EQ(db->queryOne<std::int64_t>("SELECT count(*) FROM code_size_rows")->value_or(0), 4);
    EXPECT_EQ((*codeSizeFor(*db, "other"))->diff.sections.size(), 2u);
}

TEST(CodeSizeStore, AnOlderDatabaseReadOnlyHasNone)
{
    TempDir dir;
    const auto path = test::copyOfFixture(dir, NF_FIXTURE_V10_DB, "v10.db");
    auto db = openStore(path, Database::Mode::ReadOnly);
    ASSERT_TRUE(db.ok()) << db.error().message;
    auto read = codeSizeFor(*db, "vanilla");
    ASSERT_TRUE(read.ok()) << read.error().message;
    EXPECT_FALSE(read->has_value());
}

}  // namespace
}  // namespace nf::data
