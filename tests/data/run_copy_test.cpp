// copyRuns and writeRunDatabase: a run copied between databases reads back as the same run
// (every sample, warning, decision and summary), once; the previous release's database is a
// source as it is; bad sources are refused with nothing copied.

#include "data/run_copy.h"

#include <gtest/gtest.h>

#include <cstring>
#include <filesystem>
#include <fstream>
#include <iterator>
#include <nlohmann/json.hpp>
#include <sstream>

#include "data/export.h"
#include "data/run_store.h"
#include "data/schema.h"
#include "data/stored_import.h"
#include "tests/data/data_test_support.h"

namespace nf::data {
namespace {

using test::TempDir;

// A run of two variants with a warning, a decision with two looks, and a missing value.
std::int64_t storeRichRun(Database& db, const std::string& label)
{
    RunRecorder recorder(db);
    EXPECT_TRUE(recorder.runStarted(test::makeRunStart(label)).ok());
    auto rep0 = test::makeRepetition(0, 4, 0.0);
    rep0.samples[1].values[2] = std::nan("");
    EXPECT_TRUE(recorder.repetitionFinished(rep0).ok());
    EXPECT_TRUE(recorder.repetitionFinished(test::makeRepetition(1, 4, 1.0)).ok());
    recorder.warning("CPU 1 was shared with another process");
    engine::DecisionRecord decision{.method = "confidence sequence",
                                    .metric = "tsc_per_op",
                                    .unit = "chunk pair",
                                    .alpha = 0.05,
                                    .marginPct = 1,
                                    .maxTime = 60,
                                    .decision = "different",
                                    .stopReason = "decided: different",
                                    .secondsNeeded = -1,
                                    .looks = {}};
    for (int look = 1; look <= 2; ++look) {
        const engine::DecisionLook l{.look = look,
                                     .repetitions = look,
                                     .units = static_cast<std::size_t>(4 * look),
                                     .elapsed = 1.0 * look,
                                     .estimatePct = 3.0,
                                     .lowPct = look == 1 ? std::nan("") : 1.0,
                                     .highPct = look == 1 ? std::nan("") : 5.0,
                                     .sdLog = 0.01,
                                     .decision = look == 1 ? "inconclusive" : "different"};
        EXPECT_TRUE(recorder.decisionLook(l).ok());
        decision.looks.push_back(l);
    }
    EXPECT_TRUE(recorder.decisionMade(decision).ok());
    recorder.runFinished(engine::RunStatus::Complete, "decided: different");
    return recorder.runId();
}

// The run as `noisefloor export --format json` writes it, without its id and its provenance.
nlohmann::json exported(Database& db, std::int64_t id)
{
    auto run = loadRun(db, id);
    EXPECT_TRUE(run.ok()) << run.error().message;
    if (!run) {
        return {};
    }
    std::ostringstream out;
    EXPECT_TRUE(writeJson(*run, out).ok());
    auto j = nlohmann::json::parse(out.str());
    j["run"].erase("id");
    j["environment"].erase("copied_from");
    return j;
}

std::string bytesOf(const std::string& path)
{
    std::ifstream in(path, std::ios::binary);
    return {std::istreambuf_iterator<char>(in), std::istreambuf_iterator<char>()};
}

TEST(RunCopy, ACopiedRunReadsBackAsTheSameRunOnce)
{
    TempDir dir;
    auto from = openStore(dir.file("dut.db"));
    auto to = openStore(dir.file("here.db"));
    ASSERT_TRUE(from && to);
    storeRichRun(*from, "other");
    const auto id = storeRichRun(*from, "patched");
    storeRichRun(*to, "already here");  // so that ids differ

    auto copied = copyRuns(*to, dir.file("dut.db"), {id}, "lab-dut:runs.db");
    ASSERT_TRUE(copied.ok()) << copied.error().message;
    ASSERT_EQ(copied->size(), 1u);
    EXPECT_EQ((*copied)[0].sourceId, id);
    EXPECT_EQ((*copied)[0].id, 2);
    EXPECT_EQ(exported(*to, 2), exported(*from, id));
    auto run = loadRun(*to, 2);
    ASSERT_TRUE(run.ok());
    EXPECT_EQ(run->environment.json["copied_from"]["origin"], "lab-dut:runs.db");
    EXPECT_EQ(run->environment.json["copied_from"]["run"], id);
    ASSERT_TRUE(run->decision.has_value());
    EXPECT_EQ(run->decision->looks.size(), 2u);
    EXPECT_EQ(run->warnings, std::vector<std::string>{"CPU 1 was shared with another process"});

    auto again = copyRuns(*to, dir.file("dut.db"), {}, "lab-dut:runs.db");
    ASSERT_TRUE(again.ok()) << again.error().message;
    ASSERT_EQ(again->size(), 2u);
    EXPECT_GT((*again)[0].id, 0);  // run 1 of the source was not here yet
    EXPECT_EQ((*again)[1].id, 0);
    EXPECT_EQ((*again)[1].skipped, "already here as run 2");
}

// The 0.1.0 database is upgraded in a copy: the file is left byte for byte as it was, and all its
// runs arrive (run 3's values rebuilt from perf stat summaries among them).
TEST(RunCopy, ThePreviousReleasesDatabaseIsCopiedWithoutBeingChanged)
{
    TempDir dir;
    const std::string old = dir.file("v1.db");
    std::filesystem::copy_file(NF_FIXTURE_DB, old);
    const std::string before = bytesOf(old);
    auto to = openStore(dir.file("here.db"));
    ASSERT_TRUE(to);
    auto copied = copyRuns(*to, old, {}, "old laptop");
    ASSERT_TRUE(copied.ok()) << copied.error().message;
    EXPECT_EQ(copied->size(), 7u);
    EXPECT_EQ(bytesOf(old), before);
    auto upgraded = openStore(old, Database::Mode::ReadOnly);
    ASSERT_TRUE(upgraded);
    for (const auto& c : *copied) {
        ASSERT_GT(c.id, 0) << c.skipped;
        EXPECT_EQ(exported(*to, c.id), exported(*upgraded, c.sourceId)) << c.sourceId;
    }
    for (const auto& entry : std::filesystem::directory_iterator(std::filesystem::temp_directory_path())) {
        EXPECT_EQ(entry.path().filename().string().rfind("noisefloor-copy-", 0), std::string::npos) << entry.path();
    }
}

TEST(RunCopy, BadSourcesAreRefusedAndNothingIsCopied)
{
    TempDir dir;
    auto from = openStore(dir.file("dut.db"));
    auto to = openStore(dir.file("here.db"));
    ASSERT_TRUE(from && to);
    const auto id = storeRichRun(*from, "a");
    auto missing = copyRuns(*to, dir.file("dut.db"), {id, 99}, "");
    ASSERT_FALSE(missing.ok());
    EXPECT_NE(missing.error().message.find("has no run 99"), std::string::npos) << missing.error().message;
    EXPECT_TRUE(listRuns(*to)->empty());  // run `id` came before 99 and was rolled back

    {
        std::ofstream text(dir.file("notes.txt"));
        text << "not a database\n";
    }
    EXPECT_FALSE(copyRuns(*to, dir.file("notes.txt"), {}, "").ok());
    ASSERT_TRUE(from->exec("PRAGMA user_version = 99").ok());
    auto newer = copyRuns(*to, dir.file("dut.db"), {}, "");
    ASSERT_FALSE(newer.ok());
    EXPECT_NE(newer.error().message.find("newer noisefloor"), std::string::npos) << newer.error().message;
    EXPECT_TRUE(listRuns(*to)->empty());
}

// One bit changed in a stored value, in the file itself: SQLite's structure is untouched (its
// integrity check passes), the value reads as another plausible number, and only the row's
// checksum tells. Reading the run says so; a copy of it is refused with nothing copied; the rest
// of the database still lists.
TEST(RunCopy, AValueChangedInTheFileIsFoundOnReadingAndRefusedByACopy)
{
    TempDir dir;
    const std::string path = dir.file("dut.db");
    std::int64_t id = 0;
    {
        auto from = openStore(path);
        ASSERT_TRUE(from);
        id = storeRichRun(*from, "a");
        ASSERT_TRUE(from->exec("PRAGMA wal_checkpoint(TRUNCATE)").ok());
    }
    // Repetition 1, sample 3 of variant 1: its third value, 1131 * 11.25 + 0.5.
    const double value = 12724.25;
    std::string bytes = bytesOf(path);
    std::string pattern(sizeof value, '\0');
    std::memcpy(pattern.data(), &value, sizeof value);
    const auto at = bytes.find(pattern);
    ASSERT_NE(at, std::string::npos);
    ASSERT_EQ(bytes.find(pattern, at + 1), std::string::npos);
    bytes[at] = static_cast<char>(bytes[at] ^ 1);  // the mantissa's last bit: 12724.250000000002
    {
        std::ofstream out(path, std::ios::binary | std::ios::trunc);
        out << bytes;
    }
    auto damaged = openStore(path, Database::Mode::ReadOnly);
    ASSERT_TRUE(damaged);
    EXPECT_EQ(damaged->query<std::string>("PRAGMA integrity_check")->front(), "ok");
    auto run = loadRun(*damaged, id);
    ASSERT_FALSE(run.ok());
    EXPECT_NE(run.error().message.find("sample 3 of repetition 1 does not match its checksum"), std::string::npos)
        << run.error().message;
    EXPECT_EQ(listRuns(*damaged)->size(), 1u);

    auto to = openStore(dir.file("here.db"));
    ASSERT_TRUE(to);
    auto copied = copyRuns(*to, path, {}, "");
    ASSERT_FALSE(copied.ok());
    EXPECT_NE(copied.error().message.find("1 of its samples do not match their checksums"), std::string::npos)
        << copied.error().message;
    EXPECT_TRUE(listRuns(*to)->empty());
}

// The source is attached read-only: a copy goes through while a run is being stored there (the
// writer holds the source's write lock), instead of waiting for it and failing as locked.
TEST(RunCopy, ACopyDoesNotWaitForAWriterOfTheSource)
{
    TempDir dir;
    auto from = openStore(dir.file("dut.db"));
    auto to = openStore(dir.file("here.db"));
    ASSERT_TRUE(from && to);
    const auto id = storeRichRun(*from, "a");
    auto writing = Transaction::begin(*from);
    ASSERT_TRUE(writing.ok()) << writing.error().message;
    auto copied = copyRuns(*to, dir.file("dut.db"), {id}, "");
    ASSERT_TRUE(copied.ok()) << copied.error().message;
    EXPECT_EQ(copied->front().id, 1);
}

// Every table that holds a run's rows is one the copy fills: a migration that adds another must
// teach the copy about it.
TEST(RunCopy, EveryTableOfARunIsCopied)
{
    TempDir dir;
    auto db = openStore(dir.file("x.db"));
    ASSERT_TRUE(db);
    auto stmt = db->prepare(
        "SELECT DISTINCT m.name FROM sqlite_master m JOIN pragma_table_info(m.name) c WHERE m.type = 'table' "
        "AND c.name IN ('run_id', 'repetition_id') ORDER BY m.name");
    ASSERT_TRUE(stmt);
    std::vector<std::string> holding{"runs"};
    while (*stmt->step()) {
        holding.push_back(stmt->text(0));
    }
    std::vector<std::string> copied = perRunTables();
    std::sort(holding.begin(), holding.end());
    std::sort(copied.begin(), copied.end());
    EXPECT_EQ(holding, copied);
}

TEST(RunCopy, ARunDatabaseIsOneNewFileWithOneRun)
{
    TempDir dir;
    auto from = openStore(dir.file("dut.db"));
    ASSERT_TRUE(from);
    storeRichRun(*from, "a");
    const auto id = storeRichRun(*from, "b");
    ASSERT_TRUE(writeRunDatabase(*from, id, dir.file("one.db")).ok());
    EXPECT_FALSE(std::filesystem::exists(dir.file("one.db-wal")));
    auto one = openStore(dir.file("one.db"), Database::Mode::ReadOnly);
    ASSERT_TRUE(one);
    ASSERT_EQ(listRuns(*one)->size(), 1u);
    EXPECT_EQ(exported(*one, 1), exported(*from, id));
    EXPECT_TRUE(loadRun(*one, 1)->environment.json["copied_from"].is_null());
    auto exists = writeRunDatabase(*from, id, dir.file("one.db"));
    ASSERT_FALSE(exists.ok());
    EXPECT_NE(exists.error().message.find("exists"), std::string::npos);
}

}  // namespace
}  // namespace nf::data
