// The compact report of imported runs (real perf stat output of the same netcat test before and
// after a patch, tests/data/import/real/PROVENANCE.md), kept by a golden file like the layouts in
// tests/engine/report_golden_test.cpp. NF_UPDATE_GOLDEN=1 rewrites it.

#include <gtest/gtest.h>

#include <algorithm>
#include <cstdlib>
#include <fstream>
#include <sstream>

#include "tests/app/cli_process.h"

namespace nf::test {
namespace {

class CliReport : public CliTest {
protected:
    static std::string real(const std::string& name) { return std::string(NF_IMPORT_SAMPLES) + "/real/" + name; }
};

// The command lines name this machine's paths: the golden file keeps every other line. A command
// goes on over the lines its " \\" (or, inside a word, "\\") ends.
std::string withoutCommandLines(const std::string& text)
{
    std::istringstream in(text);
    std::string out;
    bool command = false;
    for (std::string line; std::getline(in, line);) {
        command = command || line.find("$ noisefloor") != std::string::npos;
        if (!command) {
            out += line + "\n";
        }
        command = command && line.ends_with("\\");
    }
    return out;
}

TEST_F(CliReport, ImportedRunsBeforeAndAfter)
{
    for (const auto& [file, label] :
         {std::pair<const char*, const char*>{"perf-stat_r30_netcat_yunsheng.txt", "before"},
          {"perf-stat_r200_netcat_yunsheng.txt", "after"}}) {
        const auto r = run({"import", real(file), "--label", label, "--kernel", "6.9.0-rc2", "--host", "lab2",
                            "--cpu-model", "Kunpeng 920"});
        ASSERT_EQ(r.status, 0) << r.err;
    }
    const auto compact = run({"compare", "--label", "before", "--label", "after"});
    ASSERT_EQ(compact.status, 0) << compact.err;
    const std::string path = std::string(NF_REPORT_GOLDEN) + "/imported.txt";
    const auto text = withoutCommandLines(compact.out);
    if (std::getenv("NF_UPDATE_GOLDEN") != nullptr) {
        std::ofstream(path, std::ios::binary) << text;
    }
    EXPECT_EQ(text, readFile(path)) << "the layout changed; NF_UPDATE_GOLDEN=1 rewrites " << path;
    std::istringstream lines(compact.out);
    for (std::string line; std::getline(lines, line);) {
        EXPECT_LE(line.size(), 72u) << line;
    }
    EXPECT_NE(compact.out.find("$ noisefloor"), std::string::npos) << compact.out;
    // Nine events of two runs, a line for each command: at most 25 lines, each event on its own.
    // Each command is printed whole, over as many lines as it takes (this machine's paths).
    EXPECT_LE(std::count(text.begin(), text.end(), '\n') + 2, 25) << compact.out;
    for (const auto* event : {"task-clock", "cs", "migrations", "faults", "cycles", "instructions", "branches",
                              "branch-misses", "time_elapsed"}) {
        const auto at = compact.out.find(std::string(" ") + event + " ");
        ASSERT_NE(at, std::string::npos) << event << ":\n" << compact.out;
        const auto line = compact.out.substr(at, compact.out.find('\n', at) - at);
        EXPECT_NE(line.find("different"), std::string::npos) << event << " has no values on its line:\n" << compact.out;
    }
    // --verbose is the full report of before: the tests, and why Mann-Whitney did not run.
    const auto verbose = run({"compare", "--label", "before", "--label", "after", "--verbose"});
    ASSERT_EQ(verbose.status, 0) << verbose.err;
    EXPECT_NE(verbose.out.find("Mann-Whitney not run (needs the runs)"), std::string::npos) << verbose.out;
    EXPECT_GT(verbose.out.size(), compact.out.size() * 2);
}

}  // namespace
}  // namespace nf::test
