#include "data/database.h"

#include <gtest/gtest.h>
#include <unistd.h>

#include <filesystem>
#include <fstream>
#include <span>
#include <vector>

#include "tests/data/data_test_support.h"

namespace nf::data {
namespace {

using test::TempDir;

std::string queryText(Database& db, const char* sql)
{
    auto stmt = db.prepare(sql);
    EXPECT_TRUE(stmt.ok()) << (stmt ? "" : stmt.error().message);
    if (!stmt)
        return {};
    auto row = stmt->step();
    return row.ok() && *row ? stmt->text(0) : std::string();
}

std::int64_t count(Database& db, const char* table)
{
    // Not std::string("...") + table: with the precompiled header, GCC 12 reports its own inlined
    // std::string move as out of bounds there (-Warray-bounds, as for -Wrestrict in CMakeLists.txt).
    auto stmt = db.prepare("SELECT count(*) FROM " + std::string(table));
    if (!stmt || !stmt->step().ok())
        return -1;
    return stmt->int64(0);
}

TEST(Database, OpenCreatesFileAndParentDirectories)
{
    TempDir dir;
    std::string path = dir.file("a/b/c/runs.db");
    auto db = Database::open(path);
    ASSERT_TRUE(db.ok()) << db.error().message;
    EXPECT_TRUE(std::filesystem::exists(path));
    EXPECT_EQ(db->path(), path);
}

TEST(Database, WalModeForeignKeysAndBusyTimeout)
{
    TempDir dir;
    auto db = Database::open(dir.file("runs.db"));
    ASSERT_TRUE(db.ok()) << db.error().message;
    EXPECT_EQ(queryText(*db, "PRAGMA journal_mode"), "wal");
    EXPECT_EQ(queryText(*db, "PRAGMA foreign_keys"), "1");
    EXPECT_EQ(queryText(*db, "PRAGMA busy_timeout"), "5000");
    EXPECT_EQ(queryText(*db, "PRAGMA synchronous"), "1");  // NORMAL
}

TEST(Database, RefusesAFileThatIsNotADatabase)
{
    TempDir dir;
    std::string path = dir.file("notes.txt");
    {
        std::ofstream out(path);
        for (int i = 0; i < 100; ++i)
            out << "this is plain text, line " << i << ", not an SQLite database\n";
    }
    auto db = Database::open(path);
    ASSERT_FALSE(db.ok());
    EXPECT_EQ(db.error().message, path + " is not a noisefloor database (file is not a database)");
    auto readOnly = Database::open(path, Database::Mode::ReadOnly);
    ASSERT_FALSE(readOnly.ok());
    EXPECT_NE(readOnly.error().message.find("is not a noisefloor database"), std::string::npos);
}

TEST(Database, UnwritablePathNamesThePathAndTheReason)
{
    TempDir dir;
    std::string blocker = dir.file("file");
    std::ofstream(blocker) << "x";
    std::string path = blocker + "/sub/runs.db";  // a regular file where a directory should be
    auto db = Database::open(path);
    ASSERT_FALSE(db.ok());
    EXPECT_NE(db.error().message.find(path), std::string::npos) << db.error().message;
    EXPECT_NE(db.error().message.find("Not a directory"), std::string::npos) << db.error().message;
}

TEST(Database, WriteProtectedFileIsRefusedForWriting)
{
    if (geteuid() == 0)
        GTEST_SKIP() << "root ignores file permissions";
    TempDir dir;
    std::string path = dir.file("runs.db");
    ASSERT_TRUE(Database::open(path).ok());
    std::filesystem::permissions(path, std::filesystem::perms::owner_read);
    auto db = Database::open(path);  // SQLite alone would silently open it read-only
    ASSERT_FALSE(db.ok());
    EXPECT_EQ(db.error().message, "cannot open database " + path + ": Permission denied");
    EXPECT_TRUE(Database::open(path, Database::Mode::ReadOnly).ok());
}

TEST(Database, ReadOnlyOpenOfMissingFileFails)
{
    TempDir dir;
    std::string path = dir.file("missing.db");
    auto db = Database::open(path, Database::Mode::ReadOnly);
    ASSERT_FALSE(db.ok());
    EXPECT_NE(db.error().message.find(path), std::string::npos);
    EXPECT_NE(db.error().message.find("No such file or directory"), std::string::npos) << db.error().message;
    EXPECT_FALSE(std::filesystem::exists(path));
}

TEST(Database, ReadOnlyConnectionCannotWrite)
{
    TempDir dir;
    std::string path = dir.file("runs.db");
    {
        auto db = Database::open(path);
        ASSERT_TRUE(db.ok());
        ASSERT_TRUE(db->exec("CREATE TABLE t (x INTEGER)").ok());
    }
    auto db = Database::open(path, Database::Mode::ReadOnly);
    ASSERT_TRUE(db.ok()) << db.error().message;
    auto written = db->exec("INSERT INTO t VALUES (1)");
    ASSERT_FALSE(written.ok());
    EXPECT_NE(written.error().message.find("readonly"), std::string::npos) << written.error().message;
}

TEST(Database, StatementBindsStepsAndReads)
{
    TempDir dir;
    auto db = Database::open(dir.file("runs.db"));
    ASSERT_TRUE(db.ok());
    ASSERT_TRUE(db->exec("CREATE TABLE t (i INTEGER, r REAL, s TEXT, n TEXT)").ok());
    auto insert = db->prepare("INSERT INTO t VALUES (?, ?, ?, ?)");
    ASSERT_TRUE(insert.ok()) << insert.error().message;
    for (int i = 0; i < 3; ++i) {
        insert->bind(1, i).bind(2, 0.5 * i).bind(3, std::string("text ") + std::to_string(i));
        insert->bind(4, std::optional<std::string_view>());
        ASSERT_TRUE(insert->run().ok());
        EXPECT_EQ(db->lastInsertId(), i + 1);
    }
    auto select = db->prepare("SELECT i, r, s, n FROM t ORDER BY i");
    ASSERT_TRUE(select.ok());
    int rows = 0;
    for (auto row = select->step(); row.ok() && *row; row = select->step()) {
        EXPECT_EQ(select->int64(0), rows);
        EXPECT_DOUBLE_EQ(select->real(1), 0.5 * rows);
        EXPECT_EQ(select->text(2), "text " + std::to_string(rows));
        EXPECT_TRUE(select->isNull(3));
        EXPECT_EQ(select->text(3), "");
        ++rows;
    }
    EXPECT_EQ(rows, 3);
}

TEST(Database, BlobsBindAndReadBack)
{
    TempDir dir;
    auto db = Database::open(dir.file("runs.db"));
    ASSERT_TRUE(db.ok());
    ASSERT_TRUE(db->exec("CREATE TABLE t (i INTEGER, b BLOB)").ok());
    auto insert = db->prepare("INSERT INTO t VALUES (?, ?)");
    ASSERT_TRUE(insert.ok());
    const std::vector<unsigned char> bytes = {0x00, 0xff, 0x10, 0x00, 0x7f};
    ASSERT_TRUE(insert->bind(1, 0).bind(2, bytes).run().ok());
    ASSERT_TRUE(insert->bind(1, 1).bind(2, std::span<const unsigned char>()).run().ok());
    auto select = db->prepare("SELECT b, typeof(b), length(b) FROM t ORDER BY i");
    ASSERT_TRUE(select.ok());
    ASSERT_TRUE(select->step().ok());
    std::span<const unsigned char> read = select->blob(0);
    EXPECT_EQ(std::vector<unsigned char>(read.begin(), read.end()), bytes);
    EXPECT_EQ(select->text(1), "blob");
    ASSERT_TRUE(select->step().ok());
    EXPECT_TRUE(select->blob(0).empty());
    EXPECT_EQ(select->text(1), "blob");  // zero-length, not NULL
    EXPECT_EQ(select->int64(2), 0);
}

TEST(Database, ErrorsAreValues)
{
    TempDir dir;
    auto db = Database::open(dir.file("runs.db"));
    ASSERT_TRUE(db.ok());
    auto bad = db->prepare("SELEKT 1");
    ASSERT_FALSE(bad.ok());
    EXPECT_NE(bad.error().message.find("syntax error"), std::string::npos) << bad.error().message;
    ASSERT_TRUE(db->exec("CREATE TABLE t (x INTEGER UNIQUE)").ok());
    auto insert = db->prepare("INSERT INTO t VALUES (1)");
    ASSERT_TRUE(insert.ok());
    ASSERT_TRUE(insert->run().ok());
    auto again = insert->run();
    ASSERT_FALSE(again.ok());
    EXPECT_NE(again.error().message.find("UNIQUE constraint failed"), std::string::npos) << again.error().message;
    EXPECT_FALSE(db->exec("DROP TABLE nothing_here").ok());
}

TEST(Database, TransactionRollsBackWithoutCommit)
{
    TempDir dir;
    auto db = Database::open(dir.file("runs.db"));
    ASSERT_TRUE(db.ok());
    ASSERT_TRUE(db->exec("CREATE TABLE t (x INTEGER)").ok());
    {
        auto tx = Transaction::begin(*db);
        ASSERT_TRUE(tx.ok()) << tx.error().message;
        ASSERT_TRUE(db->exec("INSERT INTO t VALUES (1)").ok());
        EXPECT_EQ(count(*db, "t"), 1);
    }
    EXPECT_EQ(count(*db, "t"), 0);
    {
        auto tx = Transaction::begin(*db);
        ASSERT_TRUE(tx.ok());
        ASSERT_TRUE(db->exec("INSERT INTO t VALUES (2)").ok());
        Transaction moved(std::move(*tx));
        ASSERT_TRUE(moved.commit().ok());
        EXPECT_FALSE(moved.commit().ok());
    }
    EXPECT_EQ(count(*db, "t"), 1);
}

TEST(Database, NestedTransactionCountsOnlyWithTheOuterOne)
{
    TempDir dir;
    auto db = Database::open(dir.file("runs.db"));
    ASSERT_TRUE(db.ok());
    ASSERT_TRUE(db->exec("CREATE TABLE t (x INTEGER)").ok());
    {
        auto outer = Transaction::begin(*db);
        ASSERT_TRUE(outer.ok()) << outer.error().message;
        {
            auto inner = Transaction::begin(*db);
            ASSERT_TRUE(inner.ok()) << inner.error().message;
            ASSERT_TRUE(db->exec("INSERT INTO t VALUES (1)").ok());
            ASSERT_TRUE(inner->commit().ok());
        }
        {
            auto undone = Transaction::begin(*db);
            ASSERT_TRUE(undone.ok());
            ASSERT_TRUE(db->exec("INSERT INTO t VALUES (2)").ok());
        }  // rolled back to its savepoint only
        EXPECT_EQ(count(*db, "t"), 1);
    }  // the outer one never committed
    EXPECT_EQ(count(*db, "t"), 0);
    {
        auto outer = Transaction::begin(*db);
        auto inner = Transaction::begin(*db);
        ASSERT_TRUE(outer.ok() && inner.ok());
        ASSERT_TRUE(db->exec("INSERT INTO t VALUES (3)").ok());
        ASSERT_TRUE(inner->commit().ok());
        ASSERT_TRUE(outer->commit().ok());
    }
    EXPECT_EQ(count(*db, "t"), 1);
}

TEST(Database, SecondWriterWaitsThenFailsWhileLocked)
{
    TempDir dir;
    std::string path = dir.file("runs.db");
    auto first = Database::open(path);
    auto second = Database::open(path);
    ASSERT_TRUE(first.ok() && second.ok());
    ASSERT_TRUE(second->exec("PRAGMA busy_timeout = 50").ok());
    auto tx = Transaction::begin(*first);
    ASSERT_TRUE(tx.ok());
    auto blocked = Transaction::begin(*second);
    ASSERT_FALSE(blocked.ok());
    EXPECT_NE(blocked.error().message.find("locked"), std::string::npos) << blocked.error().message;
    ASSERT_TRUE(tx->commit().ok());
    EXPECT_TRUE(Transaction::begin(*second).ok());
}

}  // namespace
}  // namespace nf::data
