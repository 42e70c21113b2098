#include "data/database.h"

#include <gtest/gtest.h>
#include <unistd.h>

#include <filesystem>
#include <fstream>
#include <optional>
#include <span>
#include <string>
#include <tuple>
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

// A bind SQLite refuses is not lost: the next step says which parameter of which statement, and
// nothing is stepped; reset() forgets it.
TEST(Database, AFailedBindSurfacesAtStepNamingTheParameterAndTheStatement)
{
    TempDir dir;
    auto db = Database::open(dir.file("runs.db"));
    ASSERT_TRUE(db.ok());
    ASSERT_TRUE(db->exec("CREATE TABLE t (a INTEGER, b TEXT)").ok());
    auto insert = db->prepare("INSERT INTO t VALUES (?, ?)");
    ASSERT_TRUE(insert.ok());
    insert->bind(1, 7).bind(2, "x").bind(3, 1.5);  // there is no ?3
    auto stepped = insert->step();
    ASSERT_FALSE(stepped.ok());
    const std::string& message = stepped.error().message;
    EXPECT_NE(message.find("cannot bind parameter 3"), std::string::npos) << message;
    EXPECT_NE(message.find("`INSERT INTO t VALUES (?, ?)`"), std::string::npos) << message;
    EXPECT_NE(message.find("column index out of range"), std::string::npos) << message;
    EXPECT_NE(message.find(dir.file("runs.db")), std::string::npos) << message;
    EXPECT_FALSE(insert->run().ok());  // still there until reset
    EXPECT_EQ(count(*db, "t"), 0);     // never stepped

    insert->reset();
    ASSERT_TRUE(insert->bind(1, 7).bind(2, "x").run().ok());
    EXPECT_EQ(count(*db, "t"), 1);

    // A long statement is abbreviated, on one line.
    auto longer = db->prepare(
        "INSERT INTO t (a, b)\n    SELECT :first, :second FROM t WHERE a IS NOT NULL AND b IS NOT NULL AND a > 0");
    ASSERT_TRUE(longer.ok());
    auto failed = longer->bind(4, 1).run();
    ASSERT_FALSE(failed.ok());
    EXPECT_NE(
        failed.error().message.find(
            "parameter 4 of `INSERT INTO t (a, b) SELECT :first, :second FROM t WHERE a ...`: column index out of "
            "range"),
        std::string::npos)
        << failed.error().message;

    // The first failure is the one reported, with the parameter's name: here a bind while the
    // statement is mid-way through its rows.
    auto select = db->prepare("SELECT a FROM t WHERE a = :a");
    ASSERT_TRUE(select.ok());
    ASSERT_TRUE(select->bind(1, 7).step().ok());
    select->bind(1, 8).bind(2, 9);
    auto busy = select->step();
    ASSERT_FALSE(busy.ok());
    EXPECT_NE(busy.error().message.find("cannot bind parameter 1 (:a) of `SELECT a FROM t WHERE a = :a`"),
              std::string::npos)
        << busy.error().message;
    select->reset();
    auto again = select->bind(1, 7).step();
    ASSERT_TRUE(again.ok()) << again.error().message;
    EXPECT_TRUE(*again);
}

TEST(Database, TypedRowsReadValuesNullsAndOptionals)
{
    TempDir dir;
    auto db = Database::open(dir.file("runs.db"));
    ASSERT_TRUE(db.ok());
    ASSERT_TRUE(db->exec("CREATE TABLE t (i INTEGER, r REAL, s TEXT, b BLOB)").ok());
    const std::vector<unsigned char> bytes = {1, 2, 3};
    ASSERT_TRUE(db->run("INSERT INTO t VALUES (?, ?, ?, ?)", 1, 2.5, "one", bytes).ok());
    ASSERT_TRUE(db->run("INSERT INTO t VALUES (?, ?, ?, ?)", std::int64_t{1} << 40, std::optional<double>(),
                        std::optional<std::string>(), std::optional<std::int64_t>())
                    .ok());

    auto rows = db->query<std::int64_t, std::optional<double>, std::optional<std::string>,
                          std::optional<std::vector<unsigned char>>>("SELECT i, r, s, b FROM t ORDER BY i");
    ASSERT_TRUE(rows.ok()) << rows.error().message;
    ASSERT_EQ(rows->size(), 2u);
    EXPECT_EQ((*rows)[0],
              std::make_tuple(std::int64_t{1}, std::optional<double>(2.5), std::optional<std::string>("one"),
                              std::optional<std::vector<unsigned char>>(bytes)));
    EXPECT_EQ(std::get<0>((*rows)[1]), std::int64_t{1} << 40);
    EXPECT_FALSE(std::get<1>((*rows)[1]).has_value());
    EXPECT_FALSE(std::get<2>((*rows)[1]).has_value());
    EXPECT_FALSE(std::get<3>((*rows)[1]).has_value());

    // One column reads as its value; an INTEGER reads as a double too, and as a bool.
    auto names = db->query<std::optional<std::string>>("SELECT s FROM t ORDER BY i");
    ASSERT_TRUE(names.ok());
    EXPECT_EQ(*names, (std::vector<std::optional<std::string>>{"one", std::nullopt}));
    auto asReal = db->queryOne<double, bool>("SELECT i, i > 0 FROM t WHERE i = ?", 1);
    ASSERT_TRUE(asReal.ok() && asReal->has_value());
    EXPECT_EQ(**asReal, std::make_tuple(1.0, true));
    auto none = db->queryOne<std::int64_t>("SELECT i FROM t WHERE i = ?", 99);
    ASSERT_TRUE(none.ok());
    EXPECT_FALSE(none->has_value());
}

TEST(Database, AWrongTypeOrANullIsAnErrorNamingTheColumn)
{
    TempDir dir;
    auto db = Database::open(dir.file("runs.db"));
    ASSERT_TRUE(db.ok());
    ASSERT_TRUE(
        db->exec("CREATE TABLE t (i INTEGER, s TEXT); INSERT INTO t VALUES (NULL, 'text'), (5000000000, '')").ok());
    auto text = db->query<std::int64_t>("SELECT s FROM t");
    ASSERT_FALSE(text.ok());
    EXPECT_NE(text.error().message.find("column 0 (s) of `SELECT s FROM t` holds text, expected an integer"),
              std::string::npos)
        << text.error().message;
    auto null = db->query<std::int64_t>("SELECT i FROM t ORDER BY i");
    ASSERT_FALSE(null.ok());
    EXPECT_NE(null.error().message.find("column 0 (i) of `SELECT i FROM t ORDER BY i` is NULL, expected an integer"),
              std::string::npos)
        << null.error().message;
    auto wide = db->query<int>("SELECT i FROM t WHERE i IS NOT NULL");
    ASSERT_FALSE(wide.ok());
    EXPECT_NE(wide.error().message.find("5000000000 is out of range for an int"), std::string::npos)
        << wide.error().message;
    auto number = db->query<std::string>("SELECT i FROM t WHERE i IS NOT NULL");
    ASSERT_FALSE(number.ok());
    EXPECT_NE(number.error().message.find("holds an integer, expected text"), std::string::npos)
        << number.error().message;
    auto columns = db->query<std::string, std::string>("SELECT s FROM t");
    ASSERT_FALSE(columns.ok());
    EXPECT_NE(columns.error().message.find("`SELECT s FROM t` gives 1 columns, read as 2"), std::string::npos)
        << columns.error().message;
    // A failed read leaves the connection usable: the statement was reset.
    EXPECT_TRUE(db->exec("INSERT INTO t VALUES (1, 'after')").ok());
}

TEST(Database, ColumnsByName)
{
    TempDir dir;
    auto db = Database::open(dir.file("runs.db"));
    ASSERT_TRUE(db.ok());
    ASSERT_TRUE(db->exec("CREATE TABLE t (id INTEGER, label TEXT, score REAL);"
                         "INSERT INTO t VALUES (1, 'a', 0.5), (2, 'b', NULL), (3, 'c', 1.5)")
                    .ok());
    std::vector<std::string> seen;
    auto read = db->forEachRow(
        "SELECT t.id, label, score * 2 AS doubled FROM t WHERE id >= ? ORDER BY id", 2,
        [&](const Row& row) -> Result<void> {
            // Any order: the names are looked up in the statement, not assumed.
            const auto doubled = NF_TRY(row.get<std::optional<double>>("doubled"));
            const auto label = NF_TRY(row.get<std::string>("label"));
            const auto id = NF_TRY(row.get<std::int64_t>("id"));  // a qualified column goes by its own name
            seen.push_back(std::to_string(id) + label + (doubled ? std::to_string(static_cast<int>(*doubled)) : "-"));
            return {};
        });
    ASSERT_TRUE(read.ok()) << read.error().message;
    EXPECT_EQ(seen, (std::vector<std::string>{"2b-", "3c3"}));

    auto unknown = db->forEachRow("SELECT id, label FROM t", [&](const Row& row) -> Result<void> {
        return row.get<std::string>("lable").andThen([](const std::string&) { return Result<void>{}; });
    });
    ASSERT_FALSE(unknown.ok());
    EXPECT_NE(unknown.error().message.find("no column lable in `SELECT id, label FROM t`"), std::string::npos)
        << unknown.error().message;

    // A callback's error stops the query; the callback may take the Statement for unchecked reads.
    int calls = 0;
    auto stopped = db->forEachRow("SELECT id FROM t ORDER BY id", [&](const Statement& stmt) -> Result<void> {
        ++calls;
        return stmt.int64(0) == 2 ? Result<void>(Error{"stop at 2"}) : Result<void>();
    });
    ASSERT_FALSE(stopped.ok());
    EXPECT_EQ(stopped.error().message, "stop at 2");
    EXPECT_EQ(calls, 2);
}

TEST(Database, APreparedStatementReadsAgainWithNewBindings)
{
    TempDir dir;
    auto db = Database::open(dir.file("runs.db"));
    ASSERT_TRUE(db.ok());
    ASSERT_TRUE(db->exec("CREATE TABLE t (k INTEGER, v TEXT); INSERT INTO t VALUES (1, 'a'), (1, 'b'), (2, 'c')").ok());
    auto stmt = db->prepare("SELECT v FROM t WHERE k = ? ORDER BY v");
    ASSERT_TRUE(stmt.ok());
    auto one = stmt->bind(1, 1).readAll<std::string>();
    auto two = stmt->bind(1, 2).readAll<std::string>();
    ASSERT_TRUE(one.ok() && two.ok());
    EXPECT_EQ(*one, (std::vector<std::string>{"a", "b"}));
    EXPECT_EQ(*two, (std::vector<std::string>{"c"}));
    auto first = stmt->bind(1, 1).readOne<std::string>();
    ASSERT_TRUE(first.ok());
    EXPECT_EQ(*first, std::optional<std::string>("a"));
    // readOne reset the statement: nothing holds the read open, so a write from another connection commits.
    auto other = Database::open(dir.file("runs.db"));
    ASSERT_TRUE(other.ok());
    EXPECT_TRUE(other->exec("INSERT INTO t VALUES (3, 'd')").ok());
    auto row = Row(*stmt).get<std::string>(0);
    ASSERT_FALSE(row.ok());
    EXPECT_NE(row.error().message.find("read with no row current"), std::string::npos) << row.error().message;
}

}  // namespace
}  // namespace nf::data
