// Storage errors through the `noisefloor` binary: a full file system and a read-only one. Each
// must give one clear line and exit status 1, and leave the database intact. The file systems are
// a small tmpfs and a read-only bind mount made for the test (root only: as root, file permission
// bits do not stop writes, a read-only mount does).

#include <gtest/gtest.h>
#include <sys/mount.h>
#include <unistd.h>

#include <algorithm>
#include <fstream>
#include <nlohmann/json.hpp>
#include <vector>

#include "data/database.h"
#include "tests/app/cli_process.h"

namespace nf::test {
namespace {

// True when the statement stepped to a row.
bool nextRow(data::Statement& stmt)
{
    auto row = stmt.step();
    return row.ok() && *row;
}

class CliStorage : public ::testing::Test {
protected:
    void SetUp() override
    {
        if (::geteuid() != 0) {
            GTEST_SKIP() << "mounts a tmpfs and a read-only bind mount: needs root";
        }
        m_mnt = m_dir.file("mnt");
        std::filesystem::create_directory(m_mnt);
        ASSERT_EQ(::mount("nf-test", m_mnt.c_str(), "tmpfs", 0, "size=2m"), 0) << std::strerror(errno);
        m_mounted.push_back(m_mnt);
    }
    void TearDown() override
    {
        for (auto it = m_mounted.rbegin(); it != m_mounted.rend(); ++it) {
            ::umount2(it->c_str(), MNT_DETACH);
        }
    }
    CliResult run(const std::string& db, std::vector<std::string> args)
    {
        args.insert(args.begin(), {"--db", db});
        return runCli(args, m_dir);
    }
    static std::string integrity(const std::string& path)
    {
        auto db = data::Database::open(path, data::Database::Mode::ReadOnly);
        if (!db) {
            return db.error().message;
        }
        auto stmt = db->prepare("PRAGMA integrity_check");
        if (!stmt || !nextRow(*stmt)) {
            return "integrity_check did not run";
        }
        return stmt->text(0);
    }
    // Fills the file system of `dir` until at most `leave` bytes are free.
    static void fill(const std::string& dir, std::uintmax_t leave = 0)
    {
        std::ofstream out(dir + "/filler", std::ios::binary);
        const std::vector<char> block(4096, 'x');
        while (std::filesystem::space(dir).available > leave &&
               out.write(block.data(), static_cast<std::streamsize>(block.size())) && out.flush()) {
        }
    }
    TempDir m_dir;
    std::string m_mnt;
    std::vector<std::string> m_mounted;
};

std::size_t lines(const std::string& text)
{
    return static_cast<std::size_t>(std::count(text.begin(), text.end(), '\n'));
}

// The first run, stored before the disk filled, must be untouched and nothing shown as running.
void expectFirstRunIntact(const CliResult& shown)
{
    ASSERT_EQ(shown.status, 0) << shown.err;
    const auto j = nlohmann::json::parse(shown.out);
    ASSERT_GE(j.size(), 1u);
    EXPECT_EQ(j.back()["status"], "complete");
    EXPECT_EQ(j.back()["repetitions"], 2);
    for (const auto& row : j) {
        EXPECT_NE(row["status"], "running");
    }
}

TEST_F(CliStorage, FullDiskAtOpenIsOneClearError)
{
    const std::string db = m_mnt + "/runs.db";
    const auto first = run(db, {"run", "spin", "--reps", "2", "--duration", "0.02", "--warmup", "0"});
    ASSERT_EQ(first.status, 0) << first.err;
    fill(m_mnt);
    const auto r = run(db, {"run", "spin", "--reps", "2", "--duration", "0.02", "--warmup", "0"});
    EXPECT_EQ(r.status, 1) << r.err;
    EXPECT_EQ(lines(r.err), 1u) << r.err;
    EXPECT_NE(r.err.find("No space left on device"), std::string::npos) << r.err;
    std::filesystem::remove(m_mnt + "/filler");
    EXPECT_EQ(integrity(db), "ok");
    expectFirstRunIntact(run(db, {"list", "--format", "json"}));
}

TEST_F(CliStorage, DiskFillingDuringARunIsOneClearError)
{
    const std::string db = m_mnt + "/runs.db";
    const auto first = run(db, {"run", "spin", "--reps", "2", "--duration", "0.02", "--warmup", "0"});
    ASSERT_EQ(first.status, 0) << first.err;
    fill(m_mnt, 256 * 1024);
    // About 100 kB of samples per repetition: a few fit, then the disk is full.
    const auto r = run(db, {"run", "spin", "--reps", "50", "--duration", "0.2", "--chunk", "0", "--interval", "0.0005",
                            "--warmup", "0"});
    EXPECT_EQ(r.status, 1) << r.err;
    EXPECT_EQ(lines(r.err), 1u) << r.err;
    EXPECT_NE(r.err.find("full"), std::string::npos) << r.err;
    std::filesystem::remove(m_mnt + "/filler");
    EXPECT_EQ(integrity(db), "ok");
    expectFirstRunIntact(run(db, {"list", "--format", "json"}));
}

TEST_F(CliStorage, ReadOnlyDatabaseIsOneClearErrorAndReadsStillWork)
{
    const std::string db = m_mnt + "/runs.db";
    const auto first = run(db, {"run", "spin", "--reps", "2", "--duration", "0.02", "--warmup", "0"});
    ASSERT_EQ(first.status, 0) << first.err;
    const std::string ro = m_dir.file("ro");
    std::filesystem::create_directory(ro);
    ASSERT_EQ(::mount(m_mnt.c_str(), ro.c_str(), nullptr, MS_BIND, nullptr), 0) << std::strerror(errno);
    m_mounted.push_back(ro);
    ASSERT_EQ(::mount(nullptr, ro.c_str(), nullptr, MS_BIND | MS_REMOUNT | MS_RDONLY, nullptr), 0)
        << std::strerror(errno);
    const std::string roDb = ro + "/runs.db";
    const auto r = run(roDb, {"run", "spin", "--reps", "2", "--duration", "0.02", "--warmup", "0"});
    EXPECT_EQ(r.status, 1) << r.err;
    EXPECT_EQ(lines(r.err), 1u) << r.err;
    EXPECT_NE(r.err.find(roDb), std::string::npos) << r.err;
    EXPECT_NE(r.err.find("Read-only file system"), std::string::npos) << r.err;
    const auto imported = run(roDb, {"import", "perf-stat", "--label", "x", NF_IMPORT_SAMPLES "/perf_stat_r5.csv"});
    EXPECT_NE(imported.status, 0);
    EXPECT_EQ(lines(imported.err), 1u) << imported.err;
    const auto shown = run(roDb, {"show", "1", "--format", "json"});
    EXPECT_EQ(shown.status, 0) << shown.err;
    EXPECT_EQ(integrity(db), "ok");
}

}  // namespace
}  // namespace nf::test
