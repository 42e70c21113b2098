#include "data/run_store.h"

#include <gtest/gtest.h>
#include <sys/wait.h>
#include <unistd.h>

#include <csignal>

#include <chrono>
#include <cmath>
#include <cstdio>
#include <thread>

#include "data/schema.h"
#include "data/stored_import.h"
#include "nf_version.h"
#include "tests/data/data_test_support.h"

namespace nf::data {
namespace {

using engine::RunStatus;
using test::TempDir;

class RunStoreTest : public ::testing::Test {
protected:
    void SetUp() override
    {
        auto db = openStore(m_dir.file("runs.db"));
        ASSERT_TRUE(db.ok()) << db.error().message;
        m_db.emplace(std::move(*db));
    }
    Database& db() { return *m_db; }

    void setPid(std::int64_t runId, std::int64_t pid)
    {
        auto stmt = db().prepare("UPDATE runs SET pid = ? WHERE id = ?");
        ASSERT_TRUE(stmt.ok());
        ASSERT_TRUE(stmt->bind(1, pid).bind(2, runId).run().ok());
    }

    // A complete run with `reps` repetitions; returns its id.
    std::int64_t recordRun(const std::string& label, int reps)
    {
        RunRecorder recorder(db());
        EXPECT_TRUE(recorder.runStarted(test::makeRunStart(label)).ok());
        for (int r = 0; r < reps; ++r)
            EXPECT_TRUE(recorder.repetitionFinished(test::makeRepetition(r, 3, r * 1.0)).ok());
        recorder.runFinished(RunStatus::Complete, "");
        EXPECT_FALSE(recorder.finishError().has_value());
        return recorder.runId();
    }

    TempDir m_dir;
    std::optional<Database> m_db;
};

void expectSameSamples(std::vector<engine::Sample> expected, const std::vector<engine::Sample>& actual)
{
    std::stable_sort(expected.begin(), expected.end(),
                     [](const engine::Sample& a, const engine::Sample& b) { return a.start < b.start; });
    ASSERT_EQ(actual.size(), expected.size());
    for (std::size_t i = 0; i < expected.size(); ++i) {
        const engine::Sample& e = expected[i];
        const engine::Sample& a = actual[i];
        EXPECT_EQ(a.variant, e.variant) << i;
        EXPECT_EQ(a.repetition, e.repetition) << i;
        EXPECT_EQ(a.index, e.index) << i;
        EXPECT_EQ(a.pair, e.pair) << i;
        EXPECT_EQ(a.start, e.start) << i;
        EXPECT_EQ(a.duration, e.duration) << i;
        ASSERT_EQ(a.values.size(), e.values.size()) << i;
        for (std::size_t q = 0; q < e.values.size(); ++q) {
            if (std::isnan(e.values[q]))
                EXPECT_TRUE(std::isnan(a.values[q])) << i << "/" << q;
            else
                EXPECT_EQ(a.values[q], e.values[q]) << i << "/" << q;
        }
    }
}

TEST_F(RunStoreTest, RecorderRoundTrip)
{
    engine::RunStart start = test::makeRunStart("round trip");
    std::vector<engine::RepetitionResult> reps = {test::makeRepetition(0, 4, 0.0), test::makeRepetition(1, 4, 1.0)};
    reps[1].samples[2].values[2] = std::nan("");  // a missing value
    reps[1].samples[3].pair = -1;

    RunRecorder recorder(db());
    ASSERT_TRUE(recorder.runStarted(start).ok());
    EXPECT_GT(recorder.runId(), 0);
    for (const auto& rep : reps)
        ASSERT_TRUE(recorder.repetitionFinished(rep).ok());
    recorder.runFinished(RunStatus::Complete, "all repetitions done");
    EXPECT_FALSE(recorder.finishError().has_value());

    auto run = loadRun(db(), recorder.runId());
    ASSERT_TRUE(run.ok()) << run.error().message;
    EXPECT_EQ(run->row.id, recorder.runId());
    EXPECT_EQ(run->row.label, "round trip");
    EXPECT_EQ(run->row.workload, "spin");
    EXPECT_EQ(run->row.status, RunStatus::Complete);
    EXPECT_EQ(run->row.statusReason, "all repetitions done");
    EXPECT_EQ(run->row.host, test::hostName());
    EXPECT_EQ(run->row.kernel, "6.1.0-test");
    EXPECT_EQ(run->row.cpuModel, "Test CPU @ 3.00GHz");
    EXPECT_EQ(run->row.toolVersion, NF_VERSION);
    EXPECT_EQ(run->row.pid, getpid());
    EXPECT_EQ(run->row.variants, 2);
    EXPECT_EQ(run->row.repetitions, 2);
    EXPECT_EQ(run->row.startedAt.size(), 20u);
    EXPECT_EQ(run->row.startedAt.back(), 'Z');
    EXPECT_FALSE(run->row.endedAt.empty());

    EXPECT_EQ(engine::toJson(run->spec), engine::toJson(start.spec));
    EXPECT_EQ(run->environment.json, start.environment);
    EXPECT_EQ(run->variantParams, start.variantParams);
    EXPECT_EQ(run->data.variantNames, (std::vector<std::string>{"a", "b"}));
    EXPECT_EQ(run->data.layout.quantities, start.layout.quantities);
    ASSERT_EQ(run->data.layout.metrics.size(), start.layout.metrics.size());
    for (std::size_t i = 0; i < start.layout.metrics.size(); ++i) {
        const auto& e = start.layout.metrics[i];
        const auto& a = run->data.layout.metrics[i];
        EXPECT_EQ(a.name, e.name);
        EXPECT_EQ(a.unit, e.unit);
        EXPECT_EQ(a.numerator, e.numerator);
        EXPECT_EQ(a.denominator, e.denominator);
        EXPECT_EQ(a.scale, e.scale);
        EXPECT_EQ(a.higherIsBetter, e.higherIsBetter);
        EXPECT_EQ(a.description, e.description);
        EXPECT_EQ(a.aliasOf, e.aliasOf);
    }
    std::vector<engine::Sample> all;
    for (const auto& rep : reps)
        all.insert(all.end(), rep.samples.begin(), rep.samples.end());
    expectSameSamples(all, run->data.samples);
}

TEST_F(RunStoreTest, RepetitionRowsFollowTheRunOrder)
{
    std::int64_t id = recordRun("order", 2);
    auto stmt = db().prepare(
        "SELECT p.idx, v.idx, p.seq, p.started_s, p.ended_s, p.status FROM repetitions p "
        "JOIN variants v ON v.id = p.variant_id WHERE p.run_id = ? ORDER BY p.seq");
    ASSERT_TRUE(stmt.ok());
    stmt->bind(1, id);
    std::vector<std::pair<std::int64_t, std::int64_t>> order;
    for (auto row = stmt->step(); row.ok() && *row; row = stmt->step()) {
        EXPECT_EQ(stmt->int64(2), static_cast<std::int64_t>(order.size()));
        EXPECT_LT(stmt->real(3), stmt->real(4));
        EXPECT_EQ(stmt->text(5), "complete");
        order.emplace_back(stmt->int64(0), stmt->int64(1));
    }
    // makeRepetition runs variant (r % 2) first.
    std::vector<std::pair<std::int64_t, std::int64_t>> expected = {{0, 0}, {0, 1}, {1, 1}, {1, 0}};
    EXPECT_EQ(order, expected);
}

TEST_F(RunStoreTest, CrashBetweenRepetitionsLeavesAnAbortedRun)
{
    std::int64_t id = 0;
    engine::RepetitionResult rep0 = test::makeRepetition(0, 3);
    {
        RunRecorder recorder(db());
        ASSERT_TRUE(recorder.runStarted(test::makeRunStart("crashed")).ok());
        ASSERT_TRUE(recorder.repetitionFinished(rep0).ok());
        id = recorder.runId();
    }  // no runFinished: the writer "crashed"

    auto alive = listRuns(db());
    ASSERT_TRUE(alive.ok());
    ASSERT_EQ(alive->size(), 1u);
    EXPECT_EQ((*alive)[0].status, RunStatus::Running);  // we are still alive

    pid_t dead = test::deadPid();
    setPid(id, dead);
    auto rows = listRuns(db());
    ASSERT_TRUE(rows.ok()) << rows.error().message;
    ASSERT_EQ(rows->size(), 1u);
    EXPECT_EQ((*rows)[0].status, RunStatus::Aborted);
    EXPECT_EQ((*rows)[0].statusReason, "writer (pid " + std::to_string(dead) + ") is gone");
    EXPECT_EQ((*rows)[0].repetitions, 1);
    EXPECT_TRUE((*rows)[0].endedAt.empty());

    auto run = loadRun(db(), id);
    ASSERT_TRUE(run.ok()) << run.error().message;
    EXPECT_EQ(run->row.status, RunStatus::Aborted);
    expectSameSamples(rep0.samples, run->data.samples);
}

TEST_F(RunStoreTest, WriterKilledBetweenRepetitions)
{
    std::string path = m_dir.file("runs.db");
    pid_t child = fork();
    ASSERT_GE(child, 0);
    if (child == 0) {  // the writer: its own connection, killed after repetition 0
        auto db = openStore(path);
        if (!db.ok())
            _exit(1);
        RunRecorder recorder(*db);
        if (recorder.runStarted(test::makeRunStart("killed")).ok() &&
            recorder.repetitionFinished(test::makeRepetition(0)).ok())
            raise(SIGKILL);
        _exit(1);
    }
    int status = 0;
    ASSERT_EQ(waitpid(child, &status, 0), child);
    ASSERT_TRUE(WIFSIGNALED(status)) << "the writer failed before it was killed";
    auto rows = listRuns(db());
    ASSERT_TRUE(rows.ok()) << rows.error().message;
    ASSERT_EQ(rows->size(), 1u);
    EXPECT_EQ((*rows)[0].status, RunStatus::Aborted);
    EXPECT_EQ((*rows)[0].statusReason, "writer (pid " + std::to_string(child) + ") is gone");
    auto run = loadRun(db(), (*rows)[0].id);
    ASSERT_TRUE(run.ok()) << run.error().message;
    expectSameSamples(test::makeRepetition(0).samples, run->data.samples);
}

TEST_F(RunStoreTest, ReusedPidDoesNotKeepARunAlive)
{
    std::int64_t id = 0;
    {
        RunRecorder recorder(db());
        ASSERT_TRUE(recorder.runStarted(test::makeRunStart("reused")).ok());
        id = recorder.runId();
    }
    // Start times have clock-tick resolution (10 ms): let the child start in a later tick than us
    // even when this test runs alone right after the process started.
    std::this_thread::sleep_for(std::chrono::milliseconds(30));
    pid_t other = fork();  // a live process that did not write the run
    ASSERT_GE(other, 0);
    if (other == 0) {
        pause();
        _exit(0);
    }
    setPid(id, other);
    auto run = loadRun(db(), id);
    kill(other, SIGKILL);
    waitpid(other, nullptr, 0);
    ASSERT_TRUE(run.ok()) << run.error().message;
    EXPECT_EQ(run->row.status, RunStatus::Aborted);
    EXPECT_EQ(run->row.statusReason, "writer (pid " + std::to_string(other) + ") is gone");
}

TEST_F(RunStoreTest, RunningRunOfAnotherHostReadsAsAborted)
{
    std::int64_t id = 0;
    {
        engine::RunStart start = test::makeRunStart("elsewhere");
        start.environment["system"]["hostname"] = "some-other-host.invalid";
        RunRecorder recorder(db());
        ASSERT_TRUE(recorder.runStarted(start).ok());
        id = recorder.runId();
    }
    auto run = loadRun(db(), id);
    ASSERT_TRUE(run.ok());
    EXPECT_EQ(run->row.status, RunStatus::Aborted);
    EXPECT_NE(run->row.statusReason.find("is gone"), std::string::npos);
}

TEST_F(RunStoreTest, ListRunsNewestFirstWithCounts)
{
    std::int64_t first = recordRun("first", 1);
    std::int64_t second = recordRun("second", 3);
    std::int64_t third = recordRun("third", 2);
    auto rows = listRuns(db());
    ASSERT_TRUE(rows.ok()) << rows.error().message;
    ASSERT_EQ(rows->size(), 3u);
    EXPECT_EQ((*rows)[0].id, third);
    EXPECT_EQ((*rows)[1].id, second);
    EXPECT_EQ((*rows)[2].id, first);
    EXPECT_EQ((*rows)[0].label, "third");
    EXPECT_EQ((*rows)[0].repetitions, 2);
    EXPECT_EQ((*rows)[1].repetitions, 3);
    EXPECT_EQ((*rows)[2].repetitions, 1);
    for (const engine::RunRow& row : *rows) {
        EXPECT_EQ(row.variants, 2);
        EXPECT_EQ(row.status, RunStatus::Complete);
        EXPECT_EQ(row.workload, "spin");
    }
}

TEST_F(RunStoreTest, FailedRunKeepsItsReason)
{
    RunRecorder recorder(db());
    ASSERT_TRUE(recorder.runStarted(test::makeRunStart("failing")).ok());
    recorder.runFinished(RunStatus::Failed, "workload crashed: SIGSEGV");
    auto run = loadRun(db(), recorder.runId());
    ASSERT_TRUE(run.ok());
    EXPECT_EQ(run->row.status, RunStatus::Failed);
    EXPECT_EQ(run->row.statusReason, "workload crashed: SIGSEGV");
    EXPECT_TRUE(run->data.samples.empty());
    EXPECT_EQ(run->row.repetitions, 0);
}

TEST_F(RunStoreTest, DeletingARunCascadesToEverythingBelowIt)
{
    std::int64_t gone = recordRun("to delete", 2);
    std::int64_t kept = recordRun("to keep", 1);
    auto del = db().prepare("DELETE FROM runs WHERE id = ?");
    ASSERT_TRUE(del.ok());
    ASSERT_TRUE(del->bind(1, gone).run().ok());
    for (const char* table : {"variants", "quantities", "metrics", "repetitions"}) {
        auto stmt = db().prepare(std::string("SELECT count(*) FROM ") + table + " WHERE run_id = ?");
        ASSERT_TRUE(stmt.ok());
        stmt->bind(1, gone);
        ASSERT_TRUE(stmt->step().ok());
        EXPECT_EQ(stmt->int64(0), 0) << table;
    }
    auto orphans = db().prepare("SELECT count(*) FROM samples WHERE repetition_id NOT IN (SELECT id FROM repetitions)");
    ASSERT_TRUE(orphans.ok() && orphans->step().ok());
    EXPECT_EQ(orphans->int64(0), 0);
    auto run = loadRun(db(), kept);
    ASSERT_TRUE(run.ok());
    EXPECT_EQ(run->data.samples.size(), test::makeRepetition(0).samples.size());
}

TEST_F(RunStoreTest, UnknownRunId)
{
    auto run = loadRun(db(), 42);
    ASSERT_FALSE(run.ok());
    EXPECT_EQ(run.error().message, "no run 42 in " + m_dir.file("runs.db"));
}

TEST_F(RunStoreTest, BadInputIsAnErrorNotACrash)
{
    RunRecorder unstarted(db());
    EXPECT_FALSE(unstarted.repetitionFinished(test::makeRepetition(0)).ok());
    unstarted.runFinished(RunStatus::Complete, "");
    EXPECT_TRUE(unstarted.finishError().has_value());

    RunRecorder recorder(db());
    ASSERT_TRUE(recorder.runStarted(test::makeRunStart()).ok());
    engine::RepetitionResult rep = test::makeRepetition(0);
    rep.samples[1].values.pop_back();
    auto stored = recorder.repetitionFinished(rep);
    ASSERT_FALSE(stored.ok());
    EXPECT_NE(stored.error().message.find("2 values for 3 quantities"), std::string::npos) << stored.error().message;
    engine::RepetitionResult unknown = test::makeRepetition(1);
    unknown.samples[0].variant = 5;
    EXPECT_FALSE(recorder.repetitionFinished(unknown).ok());
    // Nothing of the failed repetitions was stored, and the recorder still works.
    ASSERT_TRUE(recorder.repetitionFinished(test::makeRepetition(0)).ok());
    auto run = loadRun(db(), recorder.runId());
    ASSERT_TRUE(run.ok());
    EXPECT_EQ(run->data.samples.size(), test::makeRepetition(0).samples.size());
}

// Hostnames, labels and command lines need not be UTF-8: the JSON stored with the run replaces
// what is not, the columns keep the bytes, and nothing throws on the way.
TEST_F(RunStoreTest, StringsThatAreNotUtf8AreStored)
{
    engine::RunStart start = test::makeRunStart("caf\xe9");
    start.environment["system"]["hostname"] = "host\xff";
    start.environment["tool"] = {{"command_line", "noisefloor run --label caf\xe9"}};
    RunRecorder recorder(db());
    auto started = recorder.runStarted(start);
    ASSERT_TRUE(started.ok()) << started.error().message;
    ASSERT_TRUE(recorder.repetitionFinished(test::makeRepetition(0)).ok());
    recorder.runFinished(RunStatus::Complete, "reason \xfe");
    EXPECT_FALSE(recorder.finishError().has_value());
    auto run = loadRun(db(), recorder.runId());
    ASSERT_TRUE(run.ok()) << run.error().message;
    EXPECT_EQ(run->row.label, "caf\xe9");
    EXPECT_EQ(run->row.host, "host\xff");
    EXPECT_EQ(run->row.statusReason, "reason \xfe");
    EXPECT_EQ(run->spec.label, "caf\xef\xbf\xbd");  // U+FFFD in the stored spec
    EXPECT_EQ(run->environment.commandLine, "noisefloor run --label caf\xef\xbf\xbd");
}

// A value of the wrong type in a stored row (a hand-edited database) is an error that names the
// column, not a zero.
TEST_F(RunStoreTest, AStoredValueOfTheWrongTypeIsAnErrorNamingTheColumn)
{
    const std::int64_t id = recordRun("typed", 1);
    ASSERT_TRUE(db().exec("UPDATE runs SET pid = 'not a pid'").ok());
    auto runs = listRuns(db());
    ASSERT_FALSE(runs.ok());
    EXPECT_NE(runs.error().message.find("column 11 (pid) of `SELECT r.id, r.label"), std::string::npos)
        << runs.error().message;
    EXPECT_NE(runs.error().message.find("holds text, expected an integer"), std::string::npos) << runs.error().message;
    auto run = loadRun(db(), id);
    ASSERT_FALSE(run.ok());
    EXPECT_NE(run.error().message.find("(pid)"), std::string::npos) << run.error().message;
}

// True when the statement stepped to a row.
bool nextRow(Statement& stmt)
{
    auto row = stmt.step();
    return row.ok() && *row;
}

TEST_F(RunStoreTest, StoredImportIsAllOrNothing)
{
    std::vector<engine::RepetitionResult> reps = {test::makeRepetition(0), test::makeRepetition(1)};
    reps[1].samples[0].values.pop_back();  // the second repetition cannot be stored
    EXPECT_FALSE(storeFinishedRun(db(), test::makeRunStart("bad"), reps).ok());
    std::stop_source stop;
    stop.request_stop();
    reps[1] = test::makeRepetition(1);
    auto stopped = storeFinishedRun(db(), test::makeRunStart("stopped"), reps, {}, stop.get_token());
    ASSERT_FALSE(stopped.ok());
    EXPECT_NE(stopped.error().message.find("nothing was stored"), std::string::npos) << stopped.error().message;
    auto rows = listRuns(db());
    ASSERT_TRUE(rows.ok());
    EXPECT_TRUE(rows->empty());
    auto stmt = db().prepare("SELECT (SELECT count(*) FROM repetitions) + (SELECT count(*) FROM samples)");
    ASSERT_TRUE(stmt.ok() && nextRow(*stmt));
    EXPECT_EQ(stmt->int64(0), 0);

    auto id = storeFinishedRun(db(), test::makeRunStart("good"), reps);
    ASSERT_TRUE(id.ok()) << id.error().message;
    auto run = loadRun(db(), *id);
    ASSERT_TRUE(run.ok());
    EXPECT_EQ(run->row.status, RunStatus::Complete);
    EXPECT_EQ(run->row.repetitions, 2);
}

TEST_F(RunStoreTest, ReaderIsNotBlockedByAWriterMidRepetition)
{
    RunRecorder recorder(db());
    ASSERT_TRUE(recorder.runStarted(test::makeRunStart("live")).ok());
    engine::RepetitionResult rep0 = test::makeRepetition(0);
    ASSERT_TRUE(recorder.repetitionFinished(rep0).ok());

    auto tx = Transaction::begin(db());  // the writer holds the write lock with uncommitted rows
    ASSERT_TRUE(tx.ok());
    ASSERT_TRUE(db().exec("DELETE FROM samples").ok());

    auto reader = openStore(m_dir.file("runs.db"), Database::Mode::ReadOnly);
    ASSERT_TRUE(reader.ok()) << reader.error().message;
    auto rows = listRuns(*reader);
    ASSERT_TRUE(rows.ok()) << rows.error().message;
    ASSERT_EQ(rows->size(), 1u);
    EXPECT_EQ((*rows)[0].status, RunStatus::Running);
    auto run = loadRun(*reader, recorder.runId());
    ASSERT_TRUE(run.ok()) << run.error().message;
    expectSameSamples(rep0.samples, run->data.samples);
}

TEST_F(RunStoreTest, StoresFiveThousandSamples)
{
    engine::RunStart start = test::makeRunStart("big");
    for (int i = 0; i < 9; ++i)
        start.layout.quantities.push_back("counter" + std::to_string(i));  // 12 quantities
    RunRecorder recorder(db());
    ASSERT_TRUE(recorder.runStarted(start).ok());
    engine::RepetitionResult rep;
    rep.variants = {0, 1};
    for (int i = 0; i < 5000; ++i) {
        engine::Sample s;
        s.variant = i % 2;
        s.index = i / 2;
        s.pair = i / 2;
        s.start = i * 0.0002;
        s.duration = 0.0002;
        for (std::size_t q = 0; q < start.layout.quantities.size(); ++q)
            s.values.push_back(1e6 + i * 12.0 + static_cast<double>(q));
        rep.samples.push_back(std::move(s));
    }
    auto t0 = std::chrono::steady_clock::now();
    auto stored = recorder.repetitionFinished(rep);
    auto t1 = std::chrono::steady_clock::now();
    ASSERT_TRUE(stored.ok()) << stored.error().message;
    std::printf("[ timing   ] storing one repetition of 5000 samples x 12 quantities: %.1f ms\n",
                std::chrono::duration<double, std::milli>(t1 - t0).count());
    auto l0 = std::chrono::steady_clock::now();
    auto run = loadRun(db(), recorder.runId());
    auto l1 = std::chrono::steady_clock::now();
    ASSERT_TRUE(run.ok()) << run.error().message;
    std::printf("[ timing   ] loading it back: %.1f ms\n", std::chrono::duration<double, std::milli>(l1 - l0).count());
    expectSameSamples(rep.samples, run->data.samples);
}

}  // namespace
}  // namespace nf::data
