// Imported blocks by content: a block's hash changes with any value it stores (to the last bit) and
// with nothing that only names it (file, label, variant, host, kernel); an import of content stored
// already is refused, one that adds blocks stores only the new ones, renumbered, and says so in its
// notes; --allow-duplicate's Store keeps them all; the hashes go with merge and with deleteRun; runs
// stored before the hashes existed are simply not known.

#include "data/import_blocks.h"

#include <gtest/gtest.h>

#include <bit>
#include <cmath>
#include <nlohmann/json.hpp>

#include "data/run_copy.h"
#include "data/run_store.h"
#include "data/schema.h"
#include "data/stored_import.h"
#include "tests/data/data_test_support.h"

namespace nf::data {
namespace {

using test::TempDir;

// An import as importedRun shapes it: one variant, one repetition per block, its samples end to end.
struct Import {
    engine::RunStart start;
    std::vector<engine::RepetitionResult> repetitions;
    std::vector<engine::SummaryStat> summaries;
};

engine::RunStart importStart(const std::string& label, const std::string& file)
{
    engine::RunStart start;
    start.spec.workload = "import:perf-stat";
    start.spec.label = label;
    start.spec.variants = {{"default", {}}};
    start.spec.duration = 0;
    start.spec.warmup = 0;
    start.spec.chunk = 0;
    start.variantParams = {nlohmann::json::object()};
    start.layout.quantities = {"task-clock", "page-faults"};
    start.layout.metrics = {{"page-faults", "", "page-faults", "task-clock", 1.0, false, "", ""}};
    start.environment = {
        {"system", {{"hostname", "lab1"}, {"kernel_release", "6.1.0"}, {"cpu_model", ""}}},
        {"import", {{"format", "perf-stat"}, {"files", {file}}, {"notes", nlohmann::json::array()}}},
    };
    return start;
}

// Block b of a perf stat --append file: one run of the tool, its task-clock and page faults.
Import perfStatBlocks(int blocks, const std::string& label = "vanilla", const std::string& file = "out.txt")
{
    Import in;
    in.start = importStart(label, file);
    double clock = 0;
    for (int b = 0; b < blocks; ++b) {
        engine::RepetitionResult rep;
        rep.index = b;
        rep.variants = {0};
        rep.start = clock;
        rep.samples.push_back({0, b, 0, -1, clock, 0.001 + 0.0001 * b, {0.55 + 0.01 * b, 49.0 + b}});
        clock += rep.samples.back().duration;
        rep.end = clock;
        in.repetitions.push_back(rep);
    }
    in.start.spec.repetitions = blocks;
    return in;
}

std::vector<std::string> hashes(const Import& in)
{
    return importBlockHashes(in.start, in.repetitions, in.summaries, nullptr);
}

Result<StoredImport> store(Database& db, const Import& in, Duplicates duplicates = Duplicates::Skip)
{
    std::vector<BlockOrigin> origins;
    for (std::size_t i = 0; i < in.repetitions.size(); ++i) {
        origins.push_back({in.start.environment["import"]["files"][0].get<std::string>(), static_cast<int>(i) + 1});
    }
    return storeImport(db, in.start, in.repetitions, in.summaries, nullptr, duplicates, origins);
}

std::int64_t count(Database& db, const std::string& sql)
{
    auto n = db.queryOne<std::int64_t>(sql);
    EXPECT_TRUE(n.ok()) << n.error().message;
    return n && *n ? **n : -1;
}

TEST(ImportBlocks, TheSameContentHasTheSameHashWhateverNamesIt)
{
    const auto a = perfStatBlocks(3);
    auto b = perfStatBlocks(3, "patched", "copy-of-out.txt");
    b.start.spec.variants = {{"boot2", {}}};
    b.start.environment["system"] = {{"hostname", "lab2"}, {"kernel_release", "6.12.0"}, {"cpu_model", "Xeon"}};
    const auto ha = hashes(a);
    ASSERT_EQ(ha.size(), 3u);
    EXPECT_EQ(ha, hashes(b));
    EXPECT_EQ(ha[0].size(), 32u);
    EXPECT_EQ(ha[0].find_first_not_of("0123456789abcdef"), std::string::npos) << ha[0];
    EXPECT_NE(ha[0], ha[1]);
}

TEST(ImportBlocks, ABlockIsTheSameWhereverItStandsInTheImport)
{
    const auto three = perfStatBlocks(3);
    auto last = perfStatBlocks(3);  // the third block alone, laid out from 0
    last.repetitions.erase(last.repetitions.begin(), last.repetitions.begin() + 2);
    last.repetitions[0].index = 0;
    last.repetitions[0].start = 0;
    last.repetitions[0].samples[0].repetition = 0;
    last.repetitions[0].samples[0].start = 0;
    EXPECT_EQ(hashes(last)[0], hashes(three)[2]);
}

TEST(ImportBlocks, AnyValueItStoresChangesTheHash)
{
    const auto base = hashes(perfStatBlocks(2));
    auto lastBit = perfStatBlocks(2);
    auto& v = lastBit.repetitions[1].samples[0].values[0];
    v = std::bit_cast<double>(std::bit_cast<std::uint64_t>(v) ^ 1U);
    EXPECT_EQ(hashes(lastBit)[0], base[0]);
    EXPECT_NE(hashes(lastBit)[1], base[1]);

    auto duration = perfStatBlocks(2);
    duration.repetitions[0].samples[0].duration *= 2;
    EXPECT_NE(hashes(duration)[0], base[0]);

    auto missing = perfStatBlocks(2);
    missing.repetitions[0].samples[0].values[1] = std::nan("");
    EXPECT_NE(hashes(missing)[0], base[0]);

    auto quantity = perfStatBlocks(2);
    quantity.start.layout.quantities[1] = "minor-faults";
    EXPECT_NE(hashes(quantity)[0], base[0]);

    auto format = perfStatBlocks(2);
    format.start.spec.workload = "import:time-bench";
    EXPECT_NE(hashes(format)[0], base[0]);

    auto summary = perfStatBlocks(2);
    summary.summaries = {{0, 0, "task-clock", 5, 0.55, 0.02}, {0, 1, "task-clock", 5, 0.56, 0.02}};
    const auto summarised = hashes(summary);
    EXPECT_NE(summarised[0], base[0]);
    summary.summaries[1].se = 0.03;
    EXPECT_EQ(hashes(summary)[0], summarised[0]);
    EXPECT_NE(hashes(summary)[1], summarised[1]);
}

TEST(ImportBlocks, AProfileEntersByItsSymbolsAndStacks)
{
    auto in = perfStatBlocks(1);
    engine::ProfileRecording profile;
    profile.summary.event = "cycles";
    engine::RepetitionProfile rep;
    rep.symbols = {"native_safe_halt", "memcpy"};
    rep.chunks = {{0, 0, 0, -1, 10}};
    rep.counts = {{0, 0, 0, -1, 0, 7}, {0, 0, 0, -1, 1, 3}};
    rep.stacks = {{0, 0, -1, "main;native_safe_halt", 7}, {0, 0, -1, "main;memcpy", 3}};
    profile.repetitions = {rep};
    const auto with = importBlockHashes(in.start, in.repetitions, {}, &profile)[0];
    EXPECT_NE(with, hashes(in)[0]);
    auto reordered = profile;  // the order an importer lists symbols in is not content
    auto& r = reordered.repetitions[0];
    r.symbols = {"memcpy", "native_safe_halt"};
    r.counts = {{0, 0, 0, -1, 1, 7}, {0, 0, 0, -1, 0, 3}};
    std::swap(r.stacks[0], r.stacks[1]);
    EXPECT_EQ(importBlockHashes(in.start, in.repetitions, {}, &reordered)[0], with);
    auto renamed = profile;
    renamed.repetitions[0].symbols[1] = "memmove";
    EXPECT_NE(importBlockHashes(in.start, in.repetitions, {}, &renamed)[0], with);
    auto event = profile;
    event.summary.event = "instructions";
    EXPECT_NE(importBlockHashes(in.start, in.repetitions, {}, &event)[0], with);
}

TEST(ImportBlocks, ContentStoredAlreadyIsRefusedWithNothingStored)
{
    TempDir dir;
    auto db = openStore(dir.file("runs.db"));
    ASSERT_TRUE(db.ok()) << db.error().message;
    auto first = store(*db, perfStatBlocks(2));
    ASSERT_TRUE(first.ok()) << first.error().message;
    EXPECT_EQ(first->id, 1);
    EXPECT_EQ(first->repetitions, 2u);
    EXPECT_TRUE(first->note.empty()) << first->note;
    EXPECT_EQ(count(*db, "SELECT count(*) FROM import_blocks WHERE run_id = 1"), 2);

    auto again = store(*db, perfStatBlocks(2, "patched", "copy.txt"));
    ASSERT_TRUE(again.ok()) << again.error().message;
    EXPECT_EQ(again->id, 0);
    EXPECT_EQ(again->refusal, "every repetition of copy.txt is already stored (run 1 'vanilla')");
    ASSERT_EQ(again->blocks.size(), 2u);
    ASSERT_EQ(again->blocks[1].storedIn.size(), 1u);
    EXPECT_EQ(again->blocks[1].storedIn[0].repetition, 1);
    EXPECT_EQ(count(*db, "SELECT count(*) FROM runs"), 1);
    EXPECT_EQ(count(*db, "SELECT count(*) FROM import_blocks"), 2);
}

TEST(ImportBlocks, AnAppendedFileStoresOnlyItsNewBlocksRenumbered)
{
    TempDir dir;
    auto db = openStore(dir.file("runs.db"));
    ASSERT_TRUE(db.ok()) << db.error().message;
    ASSERT_TRUE(store(*db, perfStatBlocks(2)).ok());
    auto appended = store(*db, perfStatBlocks(3, "vanilla-boot3"));
    ASSERT_TRUE(appended.ok()) << appended.error().message;
    ASSERT_EQ(appended->id, 2);
    EXPECT_EQ(appended->repetitions, 1u);
    EXPECT_EQ(appended->note,
              "skipped 2 of 3 repetitions already stored (run 1 'vanilla'): repetitions 1-2 of out.txt");
    auto run = loadRun(*db, 2);
    ASSERT_TRUE(run.ok()) << run.error().message;
    EXPECT_EQ(run->spec.repetitions, 1);
    EXPECT_EQ(run->row.repetitions, 1);
    EXPECT_EQ(run->environment.import->notes, std::vector<std::string>{appended->note});
    // What an import of the third block alone would store: repetition 0, from 0.
    auto alone = perfStatBlocks(3);
    const auto third = alone.repetitions[2];
    ASSERT_EQ(run->data.samples.size(), 1u);
    EXPECT_EQ(run->data.samples.repetition(0), 0);
    EXPECT_EQ(run->data.samples.start(0), 0.0);
    EXPECT_EQ(run->data.samples.duration(0), third.samples[0].duration);
    EXPECT_EQ(run->data.samples.value(0, 0), third.samples[0].values[0]);
    EXPECT_EQ(count(*db, "SELECT count(*) FROM import_blocks WHERE run_id = 2 AND repetition = 0"), 1);
}

TEST(ImportBlocks, ABlockGivenTwiceInOneImportIsStoredOnce)
{
    TempDir dir;
    auto db = openStore(dir.file("runs.db"));
    ASSERT_TRUE(db.ok()) << db.error().message;
    auto twice = perfStatBlocks(2);
    auto copy = twice.repetitions;
    for (auto& rep : copy) {
        rep.index += 2;
        twice.repetitions.push_back(rep);
    }
    std::vector<BlockOrigin> origins = {{"a.txt", 1}, {"a.txt", 2}, {"b.txt", 1}, {"b.txt", 2}};
    auto stored = storeImport(*db, twice.start, twice.repetitions, {}, nullptr, Duplicates::Skip, origins);
    ASSERT_TRUE(stored.ok()) << stored.error().message;
    EXPECT_EQ(stored->repetitions, 2u);
    EXPECT_EQ(stored->blocks[2].earlier, 0);
    EXPECT_EQ(stored->note, "skipped 2 of 4 repetitions given earlier in this import: repetitions 1-2 of b.txt");
}

TEST(ImportBlocks, StoreKeepsEveryBlockAndNamesTheRunsThatHoldThem)
{
    TempDir dir;
    auto db = openStore(dir.file("runs.db"));
    ASSERT_TRUE(db.ok()) << db.error().message;
    ASSERT_TRUE(store(*db, perfStatBlocks(2)).ok());
    ASSERT_TRUE(store(*db, perfStatBlocks(2, "again"), Duplicates::Store).ok());
    auto third = store(*db, perfStatBlocks(3, "third"), Duplicates::Store);
    ASSERT_TRUE(third.ok()) << third.error().message;
    EXPECT_EQ(third->id, 3);
    EXPECT_EQ(third->repetitions, 3u);
    EXPECT_EQ(third->note,
              "stored again 2 of 3 repetitions already stored (runs 1 'vanilla' and 2 'again'): repetitions 1-2 of "
              "out.txt");
    EXPECT_EQ(count(*db, "SELECT count(*) FROM import_blocks WHERE run_id = 3"), 3);
    // storeFinishedRun is Store: everything, with its hashes.
    const auto in = perfStatBlocks(1);
    auto id = storeFinishedRun(*db, in.start, in.repetitions);
    ASSERT_TRUE(id.ok()) << id.error().message;
    EXPECT_EQ(count(*db, "SELECT count(*) FROM import_blocks WHERE run_id = 4"), 1);
}

TEST(ImportBlocks, RunsStoredWithoutHashesAreNotKnown)
{
    TempDir dir;
    const auto path = test::copyOfFixture(dir, NF_FIXTURE_V10_DB, "v10.db");
    auto db = openStore(path);
    ASSERT_TRUE(db.ok()) << db.error().message;
    EXPECT_EQ(count(*db, "SELECT count(*) FROM import_blocks"), 0);
    const auto before = count(*db, "SELECT count(*) FROM runs");
    const auto in = perfStatBlocks(2);
    {
        RunRecorder recorder(*db);  // as an import of an older noisefloor stored it: no hashes
        ASSERT_TRUE(recorder.runStarted(in.start).ok());
        for (const auto& rep : in.repetitions) {
            ASSERT_TRUE(recorder.repetitionFinished(rep).ok());
        }
        recorder.runFinished(engine::RunStatus::Complete, "");
    }
    auto stored = store(*db, in);
    ASSERT_TRUE(stored.ok()) << stored.error().message;
    EXPECT_NE(stored->id, 0);
    EXPECT_TRUE(stored->note.empty()) << stored->note;
    EXPECT_EQ(count(*db, "SELECT count(*) FROM runs"), before + 2);
}

TEST(ImportBlocks, HashesGoWithACopyAndWithADeletedRun)
{
    TempDir dir;
    {
        auto lab = openStore(dir.file("lab.db"));
        ASSERT_TRUE(lab.ok()) << lab.error().message;
        ASSERT_TRUE(store(*lab, perfStatBlocks(2)).ok());
    }
    auto db = openStore(dir.file("desk.db"));
    ASSERT_TRUE(db.ok()) << db.error().message;
    auto copied = copyRuns(*db, dir.file("lab.db"), {}, "lab");
    ASSERT_TRUE(copied.ok()) << copied.error().message;
    EXPECT_EQ(count(*db, "SELECT count(*) FROM import_blocks"), 2);
    auto again = store(*db, perfStatBlocks(2, "x", "in.txt"));
    ASSERT_TRUE(again.ok()) << again.error().message;
    EXPECT_EQ(again->id, 0);
    ASSERT_TRUE(deleteRun(*db, copied->front().id).ok());
    EXPECT_EQ(count(*db, "SELECT count(*) FROM import_blocks"), 0);
    auto stored = store(*db, perfStatBlocks(2, "x", "in.txt"));
    ASSERT_TRUE(stored.ok()) << stored.error().message;
    EXPECT_NE(stored->id, 0);
}

}  // namespace
}  // namespace nf::data
