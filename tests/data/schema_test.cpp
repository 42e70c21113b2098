#include "data/schema.h"

#include <gtest/gtest.h>

#include <cstdlib>
#include <optional>

#include "tests/data/data_test_support.h"

namespace nf::data {
namespace {

using test::TempDir;

std::int64_t pragma(Database& db, const char* name)
{
    auto stmt = db.prepare(std::string("PRAGMA ") + name);
    if (!stmt || !stmt->step().ok())
        return -1;
    return stmt->int64(0);
}

bool hasTable(Database& db, const char* name)
{
    auto stmt = db.prepare("SELECT 1 FROM sqlite_master WHERE type = 'table' AND name = ?");
    if (!stmt)
        return false;
    stmt->bind(1, name);
    auto row = stmt->step();
    return row.ok() && *row;
}

// "name type notnull default" of the table's column, "" if it has none of that name.
std::string column(Database& db, const char* table, const char* name)
{
    auto stmt =
        db.prepare("SELECT type, \"notnull\", coalesce(dflt_value, '') FROM pragma_table_info(?) WHERE name = ?");
    if (!stmt)
        return "";
    stmt->bind(1, table).bind(2, name);
    auto row = stmt->step();
    if (!row.ok() || !*row)
        return "";
    return std::string(name) + " " + stmt->text(0) + " " + stmt->text(1) + " " + stmt->text(2);
}

TEST(Schema, MigrateSetsUserVersionAndCreatesTables)
{
    TempDir dir;
    auto db = openStore(dir.file("runs.db"));
    ASSERT_TRUE(db.ok()) << db.error().message;
    EXPECT_EQ(pragma(*db, "user_version"), schemaVersion());
    EXPECT_EQ(schemaVersion(), 11);
    for (const char* table :
         {"runs",           "variants",     "quantities",       "metrics",          "repetitions",
          "samples",        "run_warnings", "summaries",        "run_noise_floors", "decisions",
          "decision_looks", "profiles",     "profile_symbols",  "profile_chunks",   "profile_counts",
          "profile_stacks", "campaigns",    "campaign_kernels", "campaign_steps",   "campaign_boots",
          "campaign_runs",  "import_blocks"})
        EXPECT_TRUE(hasTable(*db, table)) << table;
    for (const char* table : {"code_sizes", "code_size_sections", "code_size_rows"})  // code size per label
        EXPECT_TRUE(hasTable(*db, table)) << table;
    EXPECT_FALSE(hasTable(*db, "sample_values"));  // values are the samples.vals blob
    EXPECT_EQ(column(*db, "samples", "vals"), "vals BLOB 1 ");
    EXPECT_EQ(column(*db, "metrics", "alias_of"), "alias_of TEXT 1 ''");
    EXPECT_EQ(pragma(*db, "foreign_keys"), 1);
}

TEST(Schema, MigrateIsIdempotent)
{
    TempDir dir;
    std::string path = dir.file("runs.db");
    {
        auto db = openStore(path);
        ASSERT_TRUE(db.ok()) << db.error().message;
        ASSERT_TRUE(db->exec("INSERT INTO runs (workload, spec_json, status, started_at, tool_version, pid) "
                             "VALUES ('spin', '{}', 'complete', '2026-01-01T00:00:00Z', 'x', 1)")
                        .ok());
        EXPECT_TRUE(migrate(*db).ok());
        EXPECT_TRUE(migrate(*db).ok());
    }
    auto db = openStore(path);
    ASSERT_TRUE(db.ok()) << db.error().message;
    EXPECT_EQ(pragma(*db, "user_version"), schemaVersion());
    auto stmt = db->prepare("SELECT count(*) FROM runs");
    ASSERT_TRUE(stmt.ok() && stmt->step().ok());
    EXPECT_EQ(stmt->int64(0), 1);
}

TEST(Schema, StatusIsChecked)
{
    TempDir dir;
    auto db = openStore(dir.file("runs.db"));
    ASSERT_TRUE(db.ok());
    auto bad = db->exec(
        "INSERT INTO runs (workload, spec_json, status, started_at, tool_version, pid) "
        "VALUES ('spin', '{}', 'sleeping', '2026-01-01T00:00:00Z', 'x', 1)");
    ASSERT_FALSE(bad.ok());
    EXPECT_NE(bad.error().message.find("CHECK constraint failed"), std::string::npos) << bad.error().message;
}

TEST(Schema, RefusesANewerDatabase)
{
    TempDir dir;
    std::string path = dir.file("runs.db");
    {
        auto db = openStore(path);
        ASSERT_TRUE(db.ok());
        ASSERT_TRUE(db->exec("PRAGMA user_version = 99").ok());
    }
    std::string expected = path + " was written by a newer noisefloor (schema 99; this build reads up to " +
                           std::to_string(schemaVersion()) + ")";
    auto db = openStore(path);
    ASSERT_FALSE(db.ok());
    EXPECT_EQ(db.error().message, expected);
    auto readOnly = openStore(path, Database::Mode::ReadOnly);
    ASSERT_FALSE(readOnly.ok());
    EXPECT_EQ(readOnly.error().message, expected);
}

TEST(Schema, ReadOnlyStoreReadsWithoutMigrating)
{
    TempDir dir;
    std::string path = dir.file("runs.db");
    {
        auto raw = Database::open(path);  // an empty database: no noisefloor schema yet
        ASSERT_TRUE(raw.ok());
    }
    auto empty = openStore(path, Database::Mode::ReadOnly);
    ASSERT_FALSE(empty.ok());
    EXPECT_NE(empty.error().message.find("is not a noisefloor database"), std::string::npos);
    ASSERT_TRUE(openStore(path).ok());
    auto db = openStore(path, Database::Mode::ReadOnly);
    ASSERT_TRUE(db.ok()) << db.error().message;
    EXPECT_EQ(pragma(*db, "user_version"), schemaVersion());
}

TEST(Schema, RefusesAnotherProgramsDatabase)
{
    TempDir dir;
    std::string path = dir.file("other.db");
    {
        auto raw = Database::open(path);
        ASSERT_TRUE(raw.ok());
        ASSERT_TRUE(raw->exec("CREATE TABLE contacts (name TEXT)").ok());
    }
    auto db = openStore(path);
    ASSERT_FALSE(db.ok());
    EXPECT_NE(db.error().message.find("is not a noisefloor database"), std::string::npos) << db.error().message;
    auto raw = Database::open(path);
    ASSERT_TRUE(raw.ok());
    EXPECT_FALSE(hasTable(*raw, "runs"));
}

class EnvGuard {
public:
    explicit EnvGuard(const char* name) : m_name(name)
    {
        if (const char* value = std::getenv(name))
            m_old = value;
    }
    ~EnvGuard()
    {
        if (m_old)
            setenv(m_name, m_old->c_str(), 1);
        else
            unsetenv(m_name);
    }
    EnvGuard(const EnvGuard&) = delete;
    EnvGuard& operator=(const EnvGuard&) = delete;

private:
    const char* m_name;
    std::optional<std::string> m_old;
};

TEST(Schema, DefaultDatabasePath)
{
    EnvGuard db("NOISEFLOOR_DB"), xdg("XDG_DATA_HOME"), home("HOME");
    setenv("HOME", "/home/tester", 1);
    unsetenv("XDG_DATA_HOME");
    unsetenv("NOISEFLOOR_DB");
    EXPECT_EQ(defaultDatabasePath(), "/home/tester/.local/share/noisefloor/runs.db");
    setenv("XDG_DATA_HOME", "relative/ignored", 1);
    EXPECT_EQ(defaultDatabasePath(), "/home/tester/.local/share/noisefloor/runs.db");
    setenv("XDG_DATA_HOME", "/data", 1);
    EXPECT_EQ(defaultDatabasePath(), "/data/noisefloor/runs.db");
    setenv("NOISEFLOOR_DB", "/tmp/mine.db", 1);
    EXPECT_EQ(defaultDatabasePath(), "/tmp/mine.db");
}

}  // namespace
}  // namespace nf::data
