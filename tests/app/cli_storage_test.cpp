// Storage errors through the `noisefloor` binary: a full file system, a read-only one, a file size
// limit, a database replaced while it is written, the umask. Each must give one clear line and
// exit status 1, and leave the database (and an earlier export) intact. The file systems are
// a small tmpfs and a read-only bind mount made for the test (root only: as root, file permission
// bits do not stop writes, a read-only mount does).

#include <gtest/gtest.h>
#include <sys/mount.h>
#include <sys/stat.h>
#include <unistd.h>

#include <algorithm>
#include <csignal>
#include <cstdlib>
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

// Nothing is left under a temporary name when a new database cannot be made: a full disk, or a
// file size limit (`ulimit -f`, whose SIGXFSZ would otherwise kill the process without a line).
TEST_F(CliStorage, ANewDatabaseThatCannotBeMadeLeavesNoTemporaryFiles)
{
    fill(m_mnt, 4096);
    const auto full = run(m_mnt + "/runs.db", {"run", "spin", "--reps", "2", "--duration", "0.02", "--warmup", "0"});
    EXPECT_EQ(full.status, 1) << full.err;
    EXPECT_EQ(lines(full.err), 1u) << full.err;
    std::filesystem::remove(m_mnt + "/filler");
    // bash: its `ulimit -f` counts KiB (dash's counts 512-byte blocks); shell() adds the 2>&1.
    const auto limited = shell("bash -c 'ulimit -f 4; exec " + std::string(NF_CLI_PATH) + " --db " + m_mnt +
                               "/small.db run spin --reps 2 --duration 0.02 --warmup 0 >/dev/null'");
    EXPECT_EQ(limited.first, 1) << limited.second;
    EXPECT_EQ(lines(limited.second), 1u) << limited.second;
    EXPECT_NE(limited.second.find("File too large"), std::string::npos) << limited.second;
    for (const auto& entry : std::filesystem::directory_iterator(m_mnt)) {
        EXPECT_EQ(entry.path().filename().string().find(".new-"), std::string::npos) << entry.path();
    }
}

// `export --format sqlite` to stdout writes an SQLite file by name first: it is made in a mkdtemp'd
// directory of mode 0700 in $TMPDIR (never under a name another user could guess and plant a
// symlink at), removed on every path; a SIGKILL at any moment leaves at most that private directory.
TEST_F(CliStorage, ARunDatabaseExportedToStdoutIsMadeInAPrivateDirectory)
{
    const std::string db = m_dir.file("runs.db");
    ASSERT_EQ(run(db, {"run", "spin", "--reps", "20", "--duration", "0.05", "--warmup", "0", "--share-cpus"}).status,
              0);
    const std::string tmp = m_dir.file("tmp");
    std::filesystem::create_directory(tmp);
    ::setenv("TMPDIR", tmp.c_str(), 1);  // NOLINT(concurrency-mt-unsafe): no other thread runs
    const auto whole = run(db, {"export", "1", "--format", "sqlite"});
    EXPECT_EQ(whole.status, 0) << whole.err;
    EXPECT_EQ(whole.out.substr(0, 15), "SQLite format 3");
    EXPECT_TRUE(std::filesystem::is_empty(tmp));
    for (const int delayMs : {0, 5, 20, 40, 80, 150}) {
        CliProcess p({"--db", db, "export", "1", "--format", "sqlite"}, m_dir);
        ::usleep(delayMs * 1000);
        ::kill(p.pid(), SIGKILL);
        (void)p.wait();
        for (const auto& entry : std::filesystem::directory_iterator(tmp)) {
            struct stat st {};
            ASSERT_EQ(::lstat(entry.path().c_str(), &st), 0);
            EXPECT_TRUE(S_ISDIR(st.st_mode)) << entry.path();
            EXPECT_EQ(st.st_mode & 07777U, 0700U) << entry.path();
            const std::string name = entry.path().filename().string();
            EXPECT_EQ(name.rfind("noisefloor-export-", 0), 0U) << name;
            EXPECT_EQ(name.size(), std::string("noisefloor-export-XXXXXX").size()) << name;
        }
        std::filesystem::remove_all(tmp);
        std::filesystem::create_directory(tmp);
    }
    ::unsetenv("TMPDIR");  // NOLINT(concurrency-mt-unsafe): no other thread runs
}

// An export is written whole or not at all: a full disk or a size limit leaves the previous file.
TEST_F(CliStorage, AnExportThatCannotBeWrittenLeavesThePreviousFile)
{
    const std::string db = m_dir.file("runs.db");
    const auto first = run(db, {"run", "spin", "--reps", "5", "--duration", "0.05", "--warmup", "0"});
    ASSERT_EQ(first.status, 0) << first.err;
    const std::string out = m_mnt + "/run.csv";
    std::ofstream(out) << "the previous export\n";
    fill(m_mnt, 0);
    const auto full = run(db, {"export", "1", "--format", "csv", "-o", out});
    EXPECT_EQ(full.status, 1) << full.err;
    EXPECT_EQ(lines(full.err), 1u) << full.err;
    EXPECT_NE(full.err.find("it was left as it was"), std::string::npos) << full.err;
    EXPECT_EQ(readFile(out), "the previous export\n");
    std::filesystem::remove(m_mnt + "/filler");
    const auto limited = shell("ulimit -f 1; " + std::string(NF_CLI_PATH) + " --db " + db +
                               " export 1 --format csv -o " + out + " 2>&1");
    EXPECT_EQ(limited.first, 1) << limited.second;
    EXPECT_NE(limited.second.find("File too large"), std::string::npos) << limited.second;
    EXPECT_EQ(readFile(out), "the previous export\n");
    std::size_t files = 0;
    for (const auto& entry : std::filesystem::directory_iterator(m_mnt)) {
        static_cast<void>(entry);
        ++files;
    }
    EXPECT_EQ(files, 1u) << "no temporary file is left";
    const auto ok = run(db, {"export", "1", "--format", "csv", "-o", out});
    EXPECT_EQ(ok.status, 0) << ok.err;
    EXPECT_EQ(readFile(out).rfind("run,", 0), 0u);
}

// A database deleted or replaced while a run writes to it: the run must not say it was stored.
TEST_F(CliStorage, ADatabaseReplacedDuringARunIsNotCalledStored)
{
    for (const char* how : {"replaced", "removed"}) {
        TempDir dir;
        const std::string db = dir.file("runs.db");
        CliProcess p({"--db", db, "run", "spin", "--reps", "200", "--duration", "0.02", "--warmup", "0"}, dir);
        ASSERT_TRUE(waitForStoredRepetitions(db, dir, 1));
        std::filesystem::rename(db, dir.file("moved.db"));
        if (std::string(how) == "replaced") {
            std::ofstream(db) << "";
        }
        const auto r = p.wait();
        EXPECT_EQ(r.status, 1) << how << ": " << r.err;
        EXPECT_EQ(lines(r.err), 1u) << r.err;
        EXPECT_NE(r.err.find(std::string("was ") + how), std::string::npos) << r.err;
        EXPECT_EQ(r.out.find("stored as run"), std::string::npos) << r.out;
    }
}

// With umask 000, what the tool creates still has its own modes: directories 0755, files 0644.
TEST_F(CliStorage, CreatedFilesHaveExplicitModesWhateverTheUmask)
{
    const std::string db = m_dir.file("a/b/runs.db");
    const auto made = shell("umask 000; " + std::string(NF_CLI_PATH) + " --db " + db +
                            " run spin --reps 2 --duration 0.02 --warmup 0 >/dev/null && umask 000 && " + NF_CLI_PATH +
                            " --db " + db + " export 1 --format csv -o " + m_dir.file("run.csv"));
    ASSERT_EQ(made.first, 0) << made.second;
    auto mode = [](const std::string& path) {
        return static_cast<unsigned>(std::filesystem::status(path).permissions());
    };
    EXPECT_EQ(mode(m_dir.file("a")), 0755u);
    EXPECT_EQ(mode(m_dir.file("a/b")), 0755u);
    EXPECT_EQ(mode(db), 0644u);
    EXPECT_EQ(mode(m_dir.file("run.csv")), 0644u);
}

}  // namespace
}  // namespace nf::test
