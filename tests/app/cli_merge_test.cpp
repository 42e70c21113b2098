// `noisefloor export RUN --format sqlite` and `noisefloor merge`: a run measured in one database
// arrives in another as the same run, once, through the files a user would move between hosts.

#include <gtest/gtest.h>

#include <unistd.h>

#include <algorithm>
#include <chrono>
#include <csignal>
#include <filesystem>
#include <fstream>
#include <nlohmann/json.hpp>

#include "data/database.h"
#include "tests/app/cli_process.h"

namespace nf::test {
namespace {

class CliMerge : public ::testing::Test {
protected:
    CliResult in(const std::string& db, std::vector<std::string> args)
    {
        args.insert(args.begin(), {"--db", m_dir.file(db)});
        return runCli(args, m_dir);
    }
    // The run as `export --format json` writes it, without its id and its provenance.
    nlohmann::json exported(const std::string& db, const std::string& id)
    {
        const auto r = in(db, {"export", id, "--format", "json"});
        EXPECT_EQ(r.status, 0) << r.err;
        auto j = nlohmann::json::parse(r.out);
        j["run"].erase("id");
        j["environment"].erase("copied_from");
        return j;
    }
    TempDir m_dir;
};

TEST_F(CliMerge, AnExportedRunDatabaseMergesOnceAsTheSameRun)
{
    ASSERT_EQ(in("dut.db", {"run", "spin", "--variant", "a", "--variant", "b:work=200", "--reps", "2", "--duration",
                            "0.05", "--warmup", "0", "--share-cpus", "--label", "patched"})
                  .status,
              0);
    ASSERT_EQ(
        in("here.db", {"run", "spin", "--reps", "1", "--duration", "0.05", "--warmup", "0", "--share-cpus"}).status, 0);
    // To stdout, as `ssh dut noisefloor export 1 --format sqlite > run.db` does.
    const auto dump = in("dut.db", {"export", "1", "--format", "sqlite"});
    ASSERT_EQ(dump.status, 0) << dump.err;
    ASSERT_EQ(dump.out.rfind("SQLite format 3", 0), 0u);
    {
        std::ofstream f(m_dir.file("run1.db"), std::ios::binary);
        f << dump.out;
    }
    const auto merged = in("here.db", {"merge", m_dir.file("run1.db"), "--origin", "dut:runs.db"});
    ASSERT_EQ(merged.status, 0) << merged.err;
    EXPECT_NE(merged.out.find("merged as run 2"), std::string::npos) << merged.out;
    EXPECT_EQ(exported("here.db", "2"), exported("dut.db", "1"));
    const auto show = in("here.db", {"export", "2", "--format", "json"});
    EXPECT_EQ(nlohmann::json::parse(show.out)["environment"]["copied_from"]["origin"], "dut:runs.db");

    const auto again = in("here.db", {"merge", m_dir.file("dut.db")});
    ASSERT_EQ(again.status, 0) << again.err;
    EXPECT_NE(again.out.find("not merged: already here as run 2"), std::string::npos) << again.out;
    const auto compare = in("here.db", {"compare", "2"});
    EXPECT_EQ(compare.status, 0) << compare.err;
}

TEST_F(CliMerge, BadInputIsOneLineAndExitTwo)
{
    ASSERT_EQ(
        in("dut.db", {"run", "spin", "--reps", "1", "--duration", "0.05", "--warmup", "0", "--share-cpus"}).status, 0);
    ASSERT_EQ(in("dut.db", {"export", "1", "--format", "sqlite", "-o", m_dir.file("one.db")}).status, 0);
    ASSERT_EQ(in("here.db", {"merge", m_dir.file("one.db")}).status, 0);
    const std::vector<std::pair<std::string, std::vector<std::string>>> bad = {
        {"dut.db", {"export", "1", "--format", "sqlite", "-o", m_dir.file("one.db")}},  // exists
        {"here.db", {"merge", m_dir.file("missing.db")}},
        {"here.db", {"merge", m_dir.file("here.db")}},  // itself
        {"here.db", {"merge", m_dir.file("one.db"), "--run", "5"}},
    };
    for (const auto& [db, args] : bad) {
        const auto r = in(db, args);
        EXPECT_EQ(r.status, 2) << args[1] << ": " << r.err;
        EXPECT_EQ(std::count(r.err.begin(), r.err.end(), '\n'), 1) << r.err;
    }
}

// The source is not trusted: a run whose spec is not a spec, or whose sample blobs are not 8 bytes
// per quantity, would break list, series, show and compare of the whole database once merged.
// Every row is checked before the copy commits; the refusal names the run and stores nothing.
TEST_F(CliMerge, ARunThatCannotBeReadHereIsRefusedBeforeAnythingIsStored)
{
    ASSERT_EQ(
        in("here.db", {"run", "spin", "--reps", "1", "--duration", "0.02", "--warmup", "0", "--share-cpus"}).status, 0);
    const std::string before = readFile(m_dir.file("here.db"));
    const std::vector<std::pair<std::string, std::string>> damages = {
        {"UPDATE runs SET spec_json = '{\"workload\": ' WHERE id = 2", "its spec is not JSON"},
        {"UPDATE runs SET spec_json = '[1, 2]' WHERE id = 2", "its spec is not a spec"},
        {"UPDATE samples SET vals = substr(vals, 1, length(vals) - 3) WHERE id = (SELECT max(s.id) FROM samples s "
         "JOIN repetitions r ON r.id = s.repetition_id WHERE r.run_id = 2)",
         "value blob"},
    };
    for (const auto& [sql, why] : damages) {
        SCOPED_TRACE(sql);
        const std::string src = m_dir.file("src.db");
        std::filesystem::remove(src);
        ASSERT_EQ(
            runCli({"--db", src, "run", "spin", "--reps", "1", "--duration", "0.02", "--warmup", "0", "--share-cpus"},
                   m_dir)
                .status,
            0);
        ASSERT_EQ(
            runCli({"--db", src, "run", "spin", "--reps", "2", "--duration", "0.02", "--warmup", "0", "--share-cpus"},
                   m_dir)
                .status,
            0);
        {
            auto db = data::Database::open(src, data::Database::Mode::ReadWrite);
            ASSERT_TRUE(db) << db.error().message;
            ASSERT_TRUE(db->exec(sql)) << sql;
            ASSERT_TRUE(db->exec("PRAGMA wal_checkpoint(TRUNCATE)"));
        }
        const auto merged = in("here.db", {"merge", src});
        EXPECT_EQ(merged.status, 1) << merged.err;
        EXPECT_EQ(std::count(merged.err.begin(), merged.err.end(), '\n'), 1) << merged.err;
        EXPECT_NE(merged.err.find("run 2 of " + src), std::string::npos) << merged.err;
        EXPECT_NE(merged.err.find(why), std::string::npos) << merged.err;
        const auto list = in("here.db", {"list", "--format", "json"});
        ASSERT_EQ(list.status, 0) << list.err;
        EXPECT_EQ(nlohmann::json::parse(list.out).size(), 1U) << list.out;
    }
}

// A database whose spec of one run is unreadable (merged by an older build) fails `list` as a
// whole: `delete RUN` removes that run and all its rows in one transaction, and refuses a run
// whose writer is still running.
TEST_F(CliMerge, DeleteRemovesARunAndAllItsRowsAndRefusesARunningOne)
{
    for (int i = 0; i < 2; ++i) {
        ASSERT_EQ(
            in("here.db", {"run", "spin", "--reps", "2", "--duration", "0.02", "--warmup", "0", "--share-cpus"}).status,
            0);
    }
    {
        auto db = data::Database::open(m_dir.file("here.db"), data::Database::Mode::ReadWrite);
        ASSERT_TRUE(db);
        ASSERT_TRUE(db->exec("UPDATE runs SET spec_json = '{' WHERE id = 1"));
    }
    const auto gone = in("here.db", {"delete", "1"});
    EXPECT_EQ(gone.status, 0) << gone.err;
    EXPECT_NE(gone.out.find("run 1 deleted"), std::string::npos) << gone.out;
    const auto list = in("here.db", {"list", "--format", "json"});
    ASSERT_EQ(list.status, 0) << list.err;
    const auto runs = nlohmann::json::parse(list.out);
    ASSERT_EQ(runs.size(), 1U) << list.out;
    EXPECT_EQ(runs[0]["id"], 2);
    {
        auto db = data::Database::open(m_dir.file("here.db"), data::Database::Mode::ReadOnly);
        ASSERT_TRUE(db);
        for (const std::string table : {"variants", "quantities", "repetitions", "run_warnings"}) {
            const auto left = db->queryOne<std::int64_t>("SELECT count(*) FROM " + table + " WHERE run_id = 1");
            ASSERT_TRUE(left && *left) << table;
            EXPECT_EQ(**left, 0) << table;
        }
        const auto samples = db->queryOne<std::int64_t>(
            "SELECT count(*) FROM samples WHERE repetition_id NOT IN (SELECT id FROM repetitions)");
        ASSERT_TRUE(samples && *samples);
        EXPECT_EQ(**samples, 0);
    }
    EXPECT_EQ(in("here.db", {"delete", "1"}).status, 1);  // no run 1 any more
    EXPECT_EQ(in("here.db", {"delete", "x"}).status, 2);

    CliProcess running({"--db", m_dir.file("here.db"), "run", "spin", "--reps", "200", "--duration", "0.1", "--warmup",
                        "0", "--share-cpus"},
                       m_dir);
    bool started = false;  // run 3 is stored once `list` shows it
    for (int i = 0; i < 400 && !started; ++i) {
        ::usleep(50000);
        const auto listed = in("here.db", {"list", "--format", "json"});
        started = listed.status == 0 && nlohmann::json::parse(listed.out).size() == 2;
    }
    ASSERT_TRUE(started);
    const auto refused = in("here.db", {"delete", "3"});
    EXPECT_EQ(refused.status, 1) << refused.err;
    EXPECT_NE(refused.err.find("run 3 is running"), std::string::npos) << refused.err;
    ::kill(running.pid(), SIGTERM);
    EXPECT_EQ(running.wait().status, 143);
    EXPECT_EQ(in("here.db", {"delete", "3"}).status, 0);
}

// A source whose runs never finish reading (a view over an endless recursion): SIGTERM interrupts
// the read at once and nothing is stored; before, the merge ignored it while holding the write lock.
TEST_F(CliMerge, ASourceThatNeverFinishesReadingStopsAtSigtermAndStoresNothing)
{
    const std::string src = m_dir.file("endless.db");
    ASSERT_EQ(
        in("endless.db", {"run", "spin", "--reps", "1", "--duration", "0.02", "--warmup", "0", "--share-cpus"}).status,
        0);
    {
        auto db = data::Database::open(src, data::Database::Mode::ReadWrite);
        ASSERT_TRUE(db);
        ASSERT_TRUE(
            db->exec("PRAGMA foreign_keys = OFF; PRAGMA legacy_alter_table = ON; "
                     "ALTER TABLE runs RENAME TO runs_kept; CREATE VIEW runs AS WITH RECURSIVE c(x) AS "
                     "(SELECT 1 UNION ALL SELECT x + 1 FROM c) SELECT x AS id, 'complete' AS status FROM c "
                     "WHERE x < 0; PRAGMA wal_checkpoint(TRUNCATE)"));
    }
    ASSERT_EQ(
        in("here.db", {"run", "spin", "--reps", "1", "--duration", "0.02", "--warmup", "0", "--share-cpus"}).status, 0);
    CliProcess merge({"--db", m_dir.file("here.db"), "merge", src}, m_dir);
    ::usleep(1500000);
    const auto t0 = std::chrono::steady_clock::now();
    ::kill(merge.pid(), SIGTERM);
    const auto r = merge.wait();
    EXPECT_LT(std::chrono::duration<double>(std::chrono::steady_clock::now() - t0).count(), 2.0);
    EXPECT_EQ(r.status, 143) << r.err;
    EXPECT_EQ(r.err, "noisefloor: merge interrupted by SIGTERM; nothing was stored\n");
    const auto list = in("here.db", {"list", "--format", "json"});
    ASSERT_EQ(list.status, 0) << list.err;
    EXPECT_EQ(nlohmann::json::parse(list.out).size(), 1U) << list.out;
}

}  // namespace
}  // namespace nf::test
