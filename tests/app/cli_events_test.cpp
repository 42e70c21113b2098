// `noisefloor run --events jsonl`: the stream a front end reads, line by line.

#include <fcntl.h>
#include <gtest/gtest.h>
#include <pthread.h>
#include <signal.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <unistd.h>

#include <chrono>
#include <cstring>
#include <nlohmann/json.hpp>
#include <sstream>

#include "tests/app/cli_process.h"

namespace nf::test {
namespace {

std::vector<nlohmann::json> events(const std::string& out)
{
    std::vector<nlohmann::json> lines;
    std::istringstream in(out);
    std::string line;
    while (std::getline(in, line)) {
        lines.push_back(nlohmann::json::parse(line));  // every line is one JSON object
    }
    return lines;
}

class CliEvents : public ::testing::Test {
protected:
    std::vector<std::string> args(std::vector<std::string> rest)
    {
        rest.insert(rest.begin(), {"--db", m_dir.file("runs.db")});
        return rest;
    }
    TempDir m_dir;
};

TEST_F(CliEvents, StreamsACompleteRun)
{
    const auto r = runCli(args({"run", "spin", "--variant", "a", "--variant", "b:work=2000", "--reps", "3",
                                "--duration", "0.05", "--warmup", "0.01", "--label", "stream", "--events", "jsonl"}),
                          m_dir);
    ASSERT_EQ(r.status, 0) << r.err;
    const auto lines = events(r.out);
    ASSERT_GE(lines.size(), 2U + 3 * 3);
    const auto& start = lines.front();
    EXPECT_EQ(start["event"], "run_started");
    EXPECT_EQ(start["schema_version"], 1);
    EXPECT_EQ(start["run"], 1);
    EXPECT_EQ(start["spec"]["label"], "stream");
    EXPECT_EQ(start["variants"][1]["name"], "b");
    EXPECT_EQ(start["variants"][1]["params"]["work"], "2000");
    EXPECT_EQ(start["metrics"][0]["name"], "tsc_per_op");
    const auto quantities = start["quantities"].size();
    int sampleEvents = 0;
    int repetitions = 0;
    double bMinusA = 0;
    for (const auto& e : lines) {
        EXPECT_EQ(e["run"], 1) << e.dump();
        if (e["event"] == "samples") {
            ++sampleEvents;
            for (const auto& s : e["samples"]) {
                EXPECT_EQ(s["values"].size(), quantities);
                EXPECT_EQ(s["repetition"], e["repetition"]);
                ASSERT_TRUE(s["primary"].is_number()) << s.dump();
                bMinusA += (s["variant"] == 1 ? 1.0 : -1.0) * s["primary"].get<double>();
            }
        } else if (e["event"] == "repetition_done") {
            ++repetitions;
        }
    }
    EXPECT_EQ(sampleEvents, 3);
    EXPECT_EQ(repetitions, 3);
    EXPECT_GT(bMinusA, 0);  // b does twenty times the work of a: its ticks per op are higher
    const auto& last = lines.back();
    EXPECT_EQ(last["event"], "finished");
    EXPECT_EQ(last["status"], "complete");
    // No text report on stdout, but the run is stored as usual.
    const auto list = nlohmann::json::parse(runCli(args({"list", "--format", "json"}), m_dir).out);
    ASSERT_EQ(list.size(), 1U);
    EXPECT_EQ(list[0]["status"], "complete");
}

TEST_F(CliEvents, ASweepStreamsOneRunPerPoint)
{
    const auto r = runCli(args({"run", "spin", "--variant", "a", "--variant", "b", "--sweep", "work=100,300", "--reps",
                                "2", "--duration", "0.03", "--warmup", "0.01", "--events", "jsonl"}),
                          m_dir);
    ASSERT_EQ(r.status, 0) << r.err;
    std::vector<std::string> values;
    int finished = 0;
    for (const auto& e : events(r.out)) {
        if (e["event"] == "run_started") {
            values.push_back(e["spec"]["sweep"]["value"].get<std::string>());
            EXPECT_EQ(e["spec"]["sweep"]["param"], "work");
            EXPECT_EQ(e["run"], static_cast<int>(values.size()));
        } else if (e["event"] == "finished") {
            ++finished;
            EXPECT_EQ(e["status"], "complete");
        }
    }
    EXPECT_EQ(values, (std::vector<std::string>{"100", "300"}));
    EXPECT_EQ(finished, 2);
    EXPECT_EQ(runCli(args({"run", "spin", "--sweep", "work=0,1", "--events", "jsonl"}), m_dir).status, 2);
}

TEST_F(CliEvents, BadInputIsAnErrorEventAndExitTwo)
{
    const auto r = runCli(args({"run", "spin", "-p", "work=0", "--events", "jsonl"}), m_dir);
    EXPECT_EQ(r.status, 2);
    const auto lines = events(r.out);
    ASSERT_EQ(lines.size(), 1U);
    EXPECT_EQ(lines[0]["event"], "error");
    EXPECT_EQ(lines[0]["exit_status"], 2);
    EXPECT_NE(lines[0]["message"].get<std::string>().find("work=0"), std::string::npos);
    EXPECT_EQ(r.err, "noisefloor: work=0: out of range 1..100000000\n");
    EXPECT_EQ(runCli(args({"run", "spin", "--events", "xml"}), m_dir).status, 2);
}

TEST_F(CliEvents, StopEndsTheStreamWithAborted)
{
    CliProcess p(args({"run", "spin", "--reps", "50", "--duration", "0.2", "--events", "jsonl"}), m_dir);
    // Wait until the run is stored (it has started), then stop it as the GUI's Stop does.
    for (int i = 0; i < 200; ++i) {
        usleep(50000);
        const auto list = runCli(args({"list", "--format", "json"}), m_dir);
        if (list.status == 0 && list.out.find("\"id\"") != std::string::npos) {
            break;
        }
    }
    kill(p.pid(), SIGTERM);
    const auto r = p.wait();
    EXPECT_EQ(r.status, 143) << r.err;
    const auto lines = events(r.out);
    ASSERT_GE(lines.size(), 2U) << r.out;
    EXPECT_EQ(lines.front()["event"], "run_started");
    // `finished` is the run's last event: it says how the run ended, and no `error` follows it
    // (the line on stderr is the same as without the stream).
    const auto& finished = lines.back();
    EXPECT_EQ(finished["event"], "finished");
    EXPECT_EQ(finished["status"], "aborted");
    EXPECT_NE(finished["reason"].get<std::string>().find("SIGTERM"), std::string::npos);
    EXPECT_NE(r.err.find("aborted: SIGTERM"), std::string::npos) << r.err;
}

// The reader goes away (the GUI's ssh dropped, `| head` had enough): the run stops as at a
// signal, is stored as aborted with the reason, and says so in one line on stderr.
TEST_F(CliEvents, AClosedStreamStopsTheRunAsAborted)
{
    const std::string db = m_dir.file("runs.db");
    const auto [rc, out] = shell("bash -c '" + std::string(NF_CLI_PATH) + " --db " + db +
                                 " run spin --reps 200 --duration 0.1 --warmup 0 --share-cpus --events jsonl 2>" +
                                 m_dir.file("err") + " | head -n 2 >/dev/null; exit ${PIPESTATUS[0]}'");
    EXPECT_EQ(rc, 141) << out;
    const std::string err = readFile(m_dir.file("err"));
    EXPECT_EQ(std::count(err.begin(), err.end(), '\n'), 1) << err;
    EXPECT_NE(err.find("aborted: SIGPIPE"), std::string::npos) << err;
    const auto list = runCli(args({"list", "--format", "json"}), m_dir);
    ASSERT_EQ(list.status, 0) << list.err;
    const auto runs = nlohmann::json::parse(list.out);
    ASSERT_EQ(runs.size(), 1U) << list.out;
    EXPECT_EQ(runs[0]["status"], "aborted");
    EXPECT_LT(runs[0]["repetitions"].get<int>(), 200);
}

// A front end over ssh stops the run by closing its stdin (a signal to ssh would not reach it).
TEST_F(CliEvents, TheEndOfStdinStopsARunThatAsksForIt)
{
    const std::string db = m_dir.file("runs.db");
    const auto [rc, out] = shell("bash -c 'sleep 1 | " + std::string(NF_CLI_PATH) + " --db " + db +
                                 " run spin --reps 200 --duration 0.1 --warmup 0 --share-cpus --events jsonl "
                                 "--stop-when-stdin-closes >" +
                                 m_dir.file("out") + " 2>" + m_dir.file("err") + "; exit ${PIPESTATUS[1]}'");
    EXPECT_EQ(rc, 129) << readFile(m_dir.file("err"));
    const auto lines = events(readFile(m_dir.file("out")));
    ASSERT_GE(lines.size(), 2U);
    EXPECT_EQ(lines.back()["event"], "finished");
    EXPECT_EQ(lines.back()["status"], "aborted");
    EXPECT_NE(lines.back()["reason"].get<std::string>().find("SIGHUP"), std::string::npos);
}

// A reader that stops reading without closing (`| sleep 40`, a hung front end) must not hold the
// run: the engine never waits in a write to it, so SIGTERM, SIGINT, SIGHUP and the end of stdin
// (the GUI's Stop) still stop the run, which is stored as aborted and gives up its CPU.
TEST_F(CliEvents, AReaderThatStopsReadingDoesNotHoldTheRun)
{
    for (const int stop : {SIGTERM, SIGINT, SIGHUP, 0}) {
        SCOPED_TRACE(stop == 0 ? std::string("stdin closed") : std::string(sigabbrev_np(stop)));
        TempDir dir;
        const std::string db = dir.file("runs.db");
        const std::string fifo = dir.file("events");
        ASSERT_EQ(::mkfifo(fifo.c_str(), 0600), 0);
        // This test is the reader: it opens the FIFO and never reads it.
        const int reader = ::open(fifo.c_str(), O_RDONLY | O_NONBLOCK | O_CLOEXEC);
        ASSERT_GE(reader, 0);
        int input[2];
        ASSERT_EQ(::pipe2(input, O_CLOEXEC), 0);
        const pid_t pid = ::fork();
        ASSERT_GE(pid, 0);
        if (pid == 0) {
            sigset_t none;
            sigemptyset(&none);
            ::pthread_sigmask(SIG_SETMASK, &none, nullptr);
            struct sigaction dfl {};
            dfl.sa_handler = SIG_DFL;
            for (const int sig : {SIGINT, SIGTERM, SIGHUP, SIGPIPE}) {
                (void)::sigaction(sig, &dfl, nullptr);
            }
            const int out = ::open(fifo.c_str(), O_WRONLY);
            const int err = ::open(dir.file("err").c_str(), O_WRONLY | O_CREAT | O_TRUNC, 0600);
            if (out < 0 || err < 0 || ::dup2(input[0], 0) < 0 || ::dup2(out, 1) < 0 || ::dup2(err, 2) < 0) {
                ::_exit(99);
            }
            ::execl(NF_CLI_PATH, NF_CLI_PATH, "--db", db.c_str(), "run", "spin", "--variant", "a", "--variant",
                    "b:work=200", "--reps", "400", "--duration", "0.1", "--warmup", "0", "--share-cpus", "--events",
                    "jsonl", "--stop-when-stdin-closes", static_cast<char*>(nullptr));
            ::_exit(98);
        }
        ::close(input[0]);
        // Each repetition's samples event is about 40 kB: after 4 the pipe (64 kB) is full.
        ASSERT_TRUE(waitForStoredRepetitions(db, dir, 4)) << readFile(dir.file("err"));
        ::usleep(300000);
        const auto t0 = std::chrono::steady_clock::now();
        if (stop != 0) {
            ::kill(pid, stop);
        } else {
            ::close(input[1]);
        }
        int status = 0;
        pid_t done = 0;
        while ((done = ::waitpid(pid, &status, WNOHANG)) == 0 &&
               std::chrono::steady_clock::now() - t0 < std::chrono::seconds(20)) {
            ::usleep(20000);
        }
        const double seconds = std::chrono::duration<double>(std::chrono::steady_clock::now() - t0).count();
        if (done == 0) {
            ::kill(pid, SIGKILL);
            ::waitpid(pid, &status, 0);
        }
        if (stop != 0) {
            ::close(input[1]);
        }
        ::close(reader);
        ASSERT_EQ(done, pid) << "still running 20 s after the stop; " << readFile(dir.file("err"));
        ASSERT_TRUE(WIFEXITED(status));
        EXPECT_EQ(WEXITSTATUS(status), 128 + (stop != 0 ? stop : SIGHUP)) << readFile(dir.file("err"));
        EXPECT_LT(seconds, 5.0);
        const auto list = runCli({"--db", db, "list", "--format", "json"}, dir);
        ASSERT_EQ(list.status, 0) << list.err;
        const auto runs = nlohmann::json::parse(list.out);
        ASSERT_EQ(runs.size(), 1U) << list.out;
        EXPECT_EQ(runs[0]["status"], "aborted");
    }
}

}  // namespace
}  // namespace nf::test
