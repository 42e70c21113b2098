// Crash safety through the `noisefloor` binary: SIGINT and SIGTERM at different moments of a run,
// a sweep and the command workload; SIGKILL; two runs writing one database at once; a signal after
// the last repetition and during a blocked import; the command workload's grandchildren and output;
// a signal ignored from the start (nohup).

#include <gtest/gtest.h>
#include <signal.h>
#include <sys/stat.h>
#include <unistd.h>

#include <algorithm>
#include <chrono>
#include <filesystem>
#include <fstream>
#include <nlohmann/json.hpp>

#include "data/database.h"
#include "tests/app/cli_process.h"

namespace nf::test {
namespace {

// How much memory a bounded run may take, in kB. AddressSanitizer keeps freed memory in its
// quarantine (256 MB by default) and shadows the rest, so a sanitized build is allowed more;
// the uninstrumented build's stage keeps the real bound.
#if defined(__SANITIZE_ADDRESS__)
constexpr long kRssFactor = 4;
#elif defined(__has_feature)
#if __has_feature(address_sanitizer)
constexpr long kRssFactor = 4;
#else
constexpr long kRssFactor = 1;
#endif
#else
constexpr long kRssFactor = 1;
#endif

// True when the statement stepped to a row.
bool nextRow(data::Statement& stmt)
{
    auto row = stmt.step();
    return row.ok() && *row;
}

class CliCrash : public CliTest {
protected:
    std::vector<std::string> withDb(std::vector<std::string> args) const
    {
        args.insert(args.begin(), {"--db", m_dir.file("runs.db")});
        return args;
    }
    nlohmann::json list()
    {
        const auto r = run({"list", "--format", "json"});
        EXPECT_EQ(r.status, 0) << r.err;
        return r.status == 0 && !r.out.empty() ? nlohmann::json::parse(r.out) : nlohmann::json::array();
    }
    std::string integrity()
    {
        auto db = data::Database::open(m_dir.file("runs.db"), data::Database::Mode::ReadOnly);
        if (!db) {
            return db.error().message;
        }
        auto stmt = db->prepare("PRAGMA integrity_check");
        if (!stmt || !nextRow(*stmt)) {
            return "integrity_check did not run";
        }
        return stmt->text(0);
    }
};

std::size_t lines(const std::string& text)
{
    return static_cast<std::size_t>(std::count(text.begin(), text.end(), '\n'));
}

TEST_F(CliCrash, SigtermMidRunExits143WithOneLineAndKeepsFinishedRepetitions)
{
    CliProcess p(withDb({"run", "spin", "--variant", "a", "--variant", "b", "--reps", "1000", "--duration", "0.1"}),
                 m_dir);
    ASSERT_TRUE(waitForRepetitions(2));
    kill(p.pid(), SIGTERM);
    const auto r = p.wait();
    EXPECT_EQ(r.status, 143) << r.err;
    EXPECT_EQ(lines(r.err), 1u) << r.err;
    EXPECT_NE(r.err.find("aborted: SIGTERM: stopped during repetition"), std::string::npos) << r.err;
    EXPECT_NE(r.err.find("(discarded; "), std::string::npos) << r.err;
    const auto j = list();
    ASSERT_EQ(j.size(), 1u);
    EXPECT_EQ(j[0]["status"], "aborted");
    EXPECT_GE(j[0]["repetitions"].get<int>(), 2);
    EXPECT_EQ(integrity(), "ok");
}

// A closed terminal or ssh session (SIGHUP) stops the run as SIGTERM does, not half-way.
TEST_F(CliCrash, SighupStopsTheRunCleanly)
{
    CliProcess p(withDb({"run", "spin", "--reps", "1000", "--duration", "0.1", "--share-cpus"}), m_dir);
    ASSERT_TRUE(waitForRepetitions(1));
    kill(p.pid(), SIGHUP);
    const auto r = p.wait();
    EXPECT_EQ(r.status, 129) << r.err;
    EXPECT_EQ(lines(r.err), 1u) << r.err;
    EXPECT_NE(r.err.find("aborted: SIGHUP: stopped during repetition"), std::string::npos) << r.err;
    const auto j = list();
    ASSERT_EQ(j.size(), 1u);
    EXPECT_EQ(j[0]["status"], "aborted");
}

// Under nohup (SIGHUP ignored from the start) a hangup leaves the run going to its end.
TEST_F(CliCrash, UnderNohupAHangupDoesNotStopTheRun)
{
    CliProcess p(withDb({"run", "spin", "--reps", "4", "--duration", "0.1", "--share-cpus"}), m_dir, SIGHUP);
    ASSERT_TRUE(waitForRepetitions(1));
    kill(p.pid(), SIGHUP);
    const auto r = p.wait();
    EXPECT_EQ(r.status, 0) << r.err;
    const auto j = list();
    ASSERT_EQ(j.size(), 1u);
    EXPECT_EQ(j[0]["status"], "complete");
    EXPECT_EQ(j[0]["repetitions"].get<int>(), 4);
}

// A script's background job starts with SIGINT ignored: it stays ignored, and SIGTERM still stops
// the run cleanly.
TEST_F(CliCrash, SigintIgnoredFromTheStartStaysIgnoredWhileSigtermStops)
{
    CliProcess p(withDb({"run", "spin", "--reps", "1000", "--duration", "0.1", "--share-cpus"}), m_dir, SIGINT);
    ASSERT_TRUE(waitForRepetitions(1));
    kill(p.pid(), SIGINT);
    const int stored = list()[0]["repetitions"].get<int>();
    ASSERT_TRUE(waitForRepetitions(stored + 2)) << "the run stopped at SIGINT";
    kill(p.pid(), SIGTERM);
    const auto r = p.wait();
    EXPECT_EQ(r.status, 143) << r.err;
    EXPECT_EQ(lines(r.err), 1u) << r.err;
    EXPECT_NE(r.err.find("aborted: SIGTERM"), std::string::npos) << r.err;
}

TEST_F(CliCrash, SignalDuringWarmupAbortsWithNoRepetitions)
{
    CliProcess p(withDb({"run", "spin", "--reps", "3", "--duration", "0.1", "--warmup", "30"}), m_dir);
    // Bounded by time, well inside the 30 s warmup: under a sanitizer one `list` takes long enough
    // that 200 polls outlasted the warmup.
    const auto until = std::chrono::steady_clock::now() + std::chrono::seconds(10);
    while (list().empty() && std::chrono::steady_clock::now() < until) {
        usleep(50000);
    }
    kill(p.pid(), SIGINT);
    const auto r = p.wait();
    EXPECT_EQ(r.status, 130) << r.err;
    EXPECT_EQ(lines(r.err), 1u) << r.err;
    EXPECT_NE(r.err.find("SIGINT"), std::string::npos) << r.err;
    const auto j = list();
    ASSERT_EQ(j.size(), 1u);
    EXPECT_EQ(j[0]["status"], "aborted");
    EXPECT_EQ(j[0]["repetitions"].get<int>(), 0);
}

TEST_F(CliCrash, SigintDuringSweepKeepsCompletedPointsAndSaysSoOnce)
{
    CliProcess p(
        withDb({"run", "spin", "--sweep", "work=100,200,300", "--reps", "200", "--duration", "0.05", "--warmup", "0"}),
        m_dir);
    ASSERT_TRUE(waitForRepetitions(1));
    kill(p.pid(), SIGINT);
    const auto r = p.wait();
    EXPECT_EQ(r.status, 130) << r.err;
    EXPECT_EQ(lines(r.err), 1u) << r.err;
    EXPECT_NE(r.err.find("aborted: SIGINT"), std::string::npos) << r.err;
    const auto j = list();
    ASSERT_EQ(j.size(), 1u);  // the later points never started
    EXPECT_EQ(j[0]["status"], "aborted");
}

TEST_F(CliCrash, SigtermStopsTheCommandWorkloadAndNamesTheSignal)
{
    CliProcess p(withDb({"run", "command", "-p", "cmd=sleep 0.2", "--reps", "100", "--warmup", "0"}), m_dir);
    ASSERT_TRUE(waitForRepetitions(1));
    kill(p.pid(), SIGTERM);
    const auto r = p.wait();
    EXPECT_EQ(r.status, 143) << r.err;
    EXPECT_EQ(lines(r.err), 1u) << r.err;
    EXPECT_NE(r.err.find("aborted: SIGTERM: stopped during repetition"), std::string::npos) << r.err;
    const auto shown = nlohmann::json::parse(run({"show", "last", "--format", "json"}).out);
    EXPECT_NE(shown.dump().find("SIGTERM"), std::string::npos);
}

TEST_F(CliCrash, SigkilledRunReadsAsAbortedEverywhere)
{
    CliProcess p(withDb({"run", "spin", "--variant", "a", "--variant", "b", "--reps", "1000", "--duration", "0.05"}),
                 m_dir);
    ASSERT_TRUE(waitForRepetitions(2));
    kill(p.pid(), SIGKILL);
    EXPECT_EQ(p.wait().status, 128 + SIGKILL);
    EXPECT_EQ(integrity(), "ok");
    const auto j = list();
    ASSERT_EQ(j.size(), 1u);
    EXPECT_EQ(j[0]["status"], "aborted");
    EXPECT_NE(j[0]["status_reason"].get<std::string>().find("is gone"), std::string::npos);
    const auto show = run({"show", "1", "--format", "json"});
    ASSERT_EQ(show.status, 0) << show.err;
    EXPECT_NE(show.out.find("\"aborted\""), std::string::npos);
    const auto exported = run({"export", "1", "--format", "json"});
    ASSERT_EQ(exported.status, 0) << exported.err;
    EXPECT_NE(exported.out.find("\"aborted\""), std::string::npos);
    const auto compared = run({"compare", "1", "--format", "json"});
    EXPECT_EQ(compared.status, 0) << compared.err;
    // Stored repetitions are whole: both variants and their samples, or nothing.
    auto db = data::Database::open(m_dir.file("runs.db"), data::Database::Mode::ReadOnly);
    ASSERT_TRUE(db.ok());
    auto stmt = db->prepare(
        "SELECT count(*) FROM (SELECT idx FROM repetitions GROUP BY idx HAVING count(*) != 2) "
        "UNION ALL SELECT count(*) FROM repetitions WHERE id NOT IN (SELECT repetition_id FROM samples)");
    ASSERT_TRUE(stmt.ok());
    ASSERT_TRUE(nextRow(*stmt));
    EXPECT_EQ(stmt->int64(0), 0);
    ASSERT_TRUE(nextRow(*stmt));
    EXPECT_EQ(stmt->int64(0), 0);
}

TEST_F(CliCrash, TwoRunsWriteOneDatabaseWhileAReaderWatches)
{
    const std::vector<std::string> args = {"run",    "spin", "--variant",  "a",    "--variant", "b",
                                           "--reps", "30",   "--duration", "0.02", "--warmup",  "0"};
    // On different CPUs: a run refuses a CPU another run measures on (CliCpuLocks).
    auto onCpu = [&](const char* cpu) {
        auto a = args;
        a.insert(a.end(), {"--cpu", cpu});
        return withDb(a);
    };
    CliProcess first(onCpu("0"), m_dir);
    CliProcess second(onCpu("1"), m_dir);
    int reads = 0;
    int runningSeen = 0;
    for (int i = 0; i < 600; ++i) {
        if (!std::filesystem::exists(m_dir.file("runs.db"))) {  // a new database appears whole, schema and all
            usleep(10000);
            continue;
        }
        const auto r = run({"list", "--format", "json"});
        ASSERT_EQ(r.status, 0) << r.err;
        ++reads;
        const auto j = nlohmann::json::parse(r.out.empty() ? "[]" : r.out);
        bool running = false;
        for (const auto& row : j) {
            // A reader sees whole repetitions only, and a complete run with all of them.
            if (row["status"] == "complete") {
                EXPECT_EQ(row["repetitions"].get<int>(), 30);
            }
            running = running || row["status"] == "running";
        }
        runningSeen += running ? 1 : 0;
        if (j.size() == 2 && !running) {
            break;
        }
    }
    const auto a = first.wait();
    const auto b = second.wait();
    EXPECT_EQ(a.status, 0) << a.err;
    EXPECT_EQ(b.status, 0) << b.err;
    EXPECT_GT(runningSeen, 0) << "the reader never overlapped a writer";
    const auto j = list();
    ASSERT_EQ(j.size(), 2u);
    for (const auto& row : j) {
        EXPECT_EQ(row["status"], "complete");
        EXPECT_EQ(row["repetitions"].get<int>(), 30);
    }
    EXPECT_EQ(integrity(), "ok");
    RecordProperty("reads", reads);
}

// The run is stored complete and its report (about 125 kB of compact text for 600 variants, twice
// a pipe's 64 kB buffer) is being written to a pipe nobody reads yet, so the process cannot have
// finished: the signal is late, and still said and honoured once the report is read.
TEST_F(CliCrash, SigtermAfterTheLastRepetitionSaysSoAndExits143)
{
    const std::string nf = NF_CLI_PATH;
    const std::string db = m_dir.file("runs.db");
    std::string variants;
    for (int v = 0; v < 600; ++v) {
        variants += " --variant v" + std::to_string(v);
    }
    const std::string script = "set -u; " + nf + " --db " + db + " run spin --reps 2 --duration 0.004 --warmup 0" +
                               variants + " 2>" + m_dir.file("err") + " | { until " + nf + " --db " + db +
                               " list 2>/dev/null | grep -q complete; do sleep 0.05; done; pkill -TERM -f -- '--db " +
                               db + " run spin'; cat >/dev/null; }; echo status=${PIPESTATUS[0]}";
    std::ofstream(m_dir.file("late.sh")) << script << "\n";
    const auto [status, out] = shell("bash " + m_dir.file("late.sh"));
    const std::string err = readFile(m_dir.file("err"));
    EXPECT_NE(out.find("status=143"), std::string::npos) << out << err;
    EXPECT_EQ(lines(err), 1u) << err;
    EXPECT_NE(err.find("run 1 complete; SIGTERM arrived after its last repetition"), std::string::npos) << err;
    EXPECT_EQ(list()[0]["status"], "complete");
}

// stat reads a file with a bound: a device that never ends is refused in one line, at once.
TEST_F(CliCrash, StatRefusesAnEndlessFileInOneLine)
{
    const auto t0 = std::chrono::steady_clock::now();
    const auto r = runCli({"stat", "/dev/zero", "/dev/zero"}, m_dir);
    EXPECT_LT(std::chrono::duration<double>(std::chrono::steady_clock::now() - t0).count(), 10.0);
    EXPECT_EQ(r.status, 2) << r.err;
    EXPECT_EQ(lines(r.err), 1u) << r.err;
    EXPECT_NE(r.err.find("/dev/zero: more than 64 MiB"), std::string::npos) << r.err;
}

// A FIFO nobody writes to: import blocks reading it, and still takes the stop at once.
TEST_F(CliCrash, SigtermEndsAnImportBlockedOnAFifo)
{
    const auto fifo = m_dir.file("fifo");
    ASSERT_EQ(::mkfifo(fifo.c_str(), 0600), 0);
    for (const std::vector<std::string>& args : {std::vector<std::string>{"import", "perf-stat", fifo, "--label", "x"},
                                                 std::vector<std::string>{"stat", fifo, fifo}}) {
        CliProcess p(withDb(args), m_dir);
        usleep(300000);
        const auto t0 = std::chrono::steady_clock::now();
        kill(p.pid(), SIGTERM);
        const auto r = p.wait();
        EXPECT_LT(std::chrono::duration<double>(std::chrono::steady_clock::now() - t0).count(), 2.0);
        EXPECT_EQ(r.status, 143) << args[0] << ": " << r.err;
        EXPECT_EQ(lines(r.err), 1u) << r.err;
        EXPECT_NE(r.err.find(args[0] == "import" ? "import interrupted by SIGTERM; nothing was stored"
                                                 : "interrupted by SIGTERM"),
                  std::string::npos)
            << r.err;
    }
    EXPECT_FALSE(std::filesystem::exists(m_dir.file("runs.db")) && !list().empty());
}

// The processes a measured command starts die with it: at its timeout, at SIGINT and when
// noisefloor itself is SIGKILLed (its PID namespace goes with its init).
TEST_F(CliCrash, TheCommandsGrandchildrenDieWithItEvenWhenNoisefloorIsKilled)
{
    auto count = [](const std::string& marker) { return shell("pgrep -f -c '^sleep " + marker + "$'").second; };
    struct Case {
        std::string marker;
        std::vector<std::string> extra;
        int signal;  // 0: let it time out
    };
    const std::vector<Case> cases = {{"417.25", {"-p", "timeout=0.5", "--reps", "1"}, 0},
                                     {"417.5", {"--reps", "1"}, SIGINT},
                                     {"417.75", {"--reps", "1"}, SIGKILL}};
    for (const auto& c : cases) {
        std::vector<std::string> args = {
            "run", "command", "-p", "cmd=sh -c 'sleep " + c.marker + " & sleep " + c.marker + "'", "--warmup", "0"};
        args.insert(args.end(), c.extra.begin(), c.extra.end());
        CliProcess p(withDb(args), m_dir);
        for (int i = 0; i < 100 && count(c.marker) != "2\n"; ++i) {
            usleep(50000);
        }
        ASSERT_EQ(count(c.marker), "2\n") << "the command and its background child run";
        if (c.signal != 0) {
            kill(p.pid(), c.signal);
        }
        const auto r = p.wait();
        EXPECT_EQ(r.status, c.signal == 0 ? 0 : 128 + c.signal) << r.err;
        for (int i = 0; i < 40 && count(c.marker) != "0\n"; ++i) {
            usleep(50000);
        }
        EXPECT_EQ(count(c.marker), "0\n") << "sleep " << c.marker << " outlived the command";
    }
}

// `yes` writes gigabytes a second: what is kept of it is bounded, and the run says so.
TEST_F(CliCrash, TheCommandsOutputIsCappedNotKept)
{
    const auto [status, out] =
        shell("/usr/bin/time -f 'maxrss_kb=%M' " + std::string(NF_CLI_PATH) + " --db " + m_dir.file("runs.db") +
              " run command -p cmd=yes -p timeout=2 --reps 1 --warmup 0 2>&1");
    EXPECT_EQ(status, 0) << out;
    EXPECT_NE(out.find("was read and dropped"), std::string::npos) << out;
    const auto at = out.find("maxrss_kb=");
    ASSERT_NE(at, std::string::npos) << out;
    EXPECT_LT(std::stol(out.substr(at + 10)), 200'000 * kRssFactor) << out;
}

// A huge schedule is planned as it runs, not up front: 100,000 repetitions of two variants
// start at once in a few MB, and a SIGTERM ends them as any run (the run aborted, not running).
TEST_F(CliCrash, AHugeScheduleIsPlannedLazilyAndStopsOnSigterm)
{
    const std::string command = "/usr/bin/time -f 'maxrss_kb=%M' " + std::string(NF_CLI_PATH) + " --db " +
                                m_dir.file("runs.db") +
                                " run spin --variant a --variant b --reps 100000 --duration 0.002 --warmup 0"
                                " 2>&1 & pid=$!; sleep 2; pkill -TERM -P $pid; wait $pid";
    const auto [status, out] = shell(command);
    EXPECT_NE(out.find("aborted: SIGTERM"), std::string::npos) << out;
    const auto at = out.find("maxrss_kb=");
    ASSERT_NE(at, std::string::npos) << out;
    EXPECT_LT(std::stol(out.substr(at + 10)), 100'000 * kRssFactor) << out;
    const auto j = list();
    ASSERT_EQ(j.size(), 1u);
    EXPECT_EQ(j[0]["status"], "aborted");
}

}  // namespace
}  // namespace nf::test
