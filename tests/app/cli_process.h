#pragma once
// Runs the built `noisefloor` binary the way a user would, capturing its output and exit status.

#include <gtest/gtest.h>
#include <sys/types.h>

#include <string>
#include <utility>
#include <vector>

#include "tests/support/temp_dir.h"

namespace nf::test {

struct CliResult {
    int status = -1;  // exit status, or 128 + signal
    std::string out;
    std::string err;
};

class CliProcess {
public:
    // Starts `noisefloor args...` with stdout and stderr going to files in `dir`, and SIGINT,
    // SIGTERM and SIGHUP as a terminal gives them (default), whatever the test runner was started
    // with; `ignored`, if not 0, is started ignored instead, as nohup does SIGHUP.
    CliProcess(const std::vector<std::string>& args, const TempDir& dir, int ignored = 0);
    pid_t pid() const { return m_pid; }
    CliResult wait();

private:
    pid_t m_pid = -1;
    std::string m_outPath;
    std::string m_errPath;
};

CliResult runCli(const std::vector<std::string>& args, const TempDir& dir);
std::string readFile(const std::string& path);

// What page_frag_test.ko prints for five loads around `us` microseconds each (0, +-0.1%, +-0.2%):
// an imported run of a kernel build at that level.
void writePageFragTestOutput(const std::string& path, double us);

// Runs a shell command line: its exit status (-1 if it did not exit) and its merged output.
std::pair<int, std::string> shell(const std::string& command);

// Polls `noisefloor --db DB list` every 50 ms, up to `seconds`, until the newest run has at
// least `reps` repetitions stored.
bool waitForStoredRepetitions(const std::string& db, const TempDir& dir, int reps, double seconds = 20);

// A test with its own directory and database; run() is `noisefloor --db DIR/runs.db args...`.
class CliTest : public ::testing::Test {
protected:
    CliResult run(std::vector<std::string> args)
    {
        args.insert(args.begin(), {"--db", m_dir.file("runs.db")});
        return runCli(args, m_dir);
    }
    bool waitForRepetitions(int reps) { return waitForStoredRepetitions(m_dir.file("runs.db"), m_dir, reps); }
    TempDir m_dir;
};

}  // namespace nf::test
