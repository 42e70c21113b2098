// The compact report of imported runs (real perf stat output of the same netcat test before and
// after a patch, tests/data/import/real/PROVENANCE.md), kept by a golden file like the layouts in
// tests/engine/report_golden_test.cpp. NF_UPDATE_GOLDEN=1 rewrites it.

#include <gtest/gtest.h>

#include <algorithm>
#include <cstdlib>
#include <fstream>
#include <iterator>
#include <sstream>
#include <vector>

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

// Columns in a mail: code points, not bytes.
std::size_t columnsOf(const std::string& line)
{
    return static_cast<std::size_t>(
        std::count_if(line.begin(), line.end(), [](char c) { return (static_cast<unsigned char>(c) & 0xC0) != 0x80; }));
}

// The name `shown` stands for: the full name a legend line "shown = full" gives (indented or
// not), else itself.
std::string fullName(const std::string& text, const std::string& shown)
{
    for (const char* lead : {"\n", "\n  "}) {
        const auto at = text.find(lead + shown + " = ");
        if (at != std::string::npos) {
            const auto start = text.find(" = ", at) + 3;
            return text.substr(start, text.find('\n', start) - start);
        }
    }
    return shown;
}

// The command after `lead`, with its continuation lines, as `sh` passes its words: one per line.
std::string pastedWords(const std::string& text, const std::string& lead, const TempDir& dir)
{
    const auto at = text.find(lead);
    if (at == std::string::npos) {
        return "";
    }
    std::istringstream lines(text.substr(at + lead.size()));
    std::string command;
    for (std::string line; std::getline(lines, line);) {
        command += line + "\n";
        if (!line.ends_with("\\")) {
            break;
        }
    }
    std::ofstream(dir.file("pasted.sh")) << "printf '%s\\n' " << command;
    return shell("sh " + dir.file("pasted.sh")).second;
}

// Two runs under labels that share a long prefix (as a tester's "bjo..re" and "bjo..st" did),
// compared with the real binary: the table names each label by a name of its own that resolves to
// it, every line is within 72 columns, the report says it is a user-space loop, and each run's
// command, pasted back into a shell, gives the words the run was started with.
TEST_F(CliReport, TwoLongLabelsPasteAsDistinctNames)
{
    const std::vector<std::string> labels = {"bj\u00f6rn_xsk_zerocopy_batch_before",
                                             "bj\u00f6rn_xsk_zerocopy_batch_restore"};
    std::vector<std::vector<std::string>> argvs;
    for (std::size_t i = 0; i < labels.size(); ++i) {
        argvs.push_back({"run", "spin", "-p", i == 0 ? "work=1000" : "work=1100", "--reps", "3", "--duration", "0.05",
                         "--warmup", "0", "--label", labels[i]});
        const auto r = run(argvs.back());
        ASSERT_EQ(r.status, 0) << r.err;
    }
    for (const bool verbose : {false, true}) {
        std::vector<std::string> args = {"compare", "--label", labels[0], "--label", labels[1]};
        if (verbose) {
            args.emplace_back("--verbose");
        }
        const auto compare = run(args);
        ASSERT_EQ(compare.status, 0) << compare.err;
        const auto& text = compare.out;
        std::istringstream in(text);
        std::vector<std::string> lines;
        for (std::string line; std::getline(in, line);) {
            EXPECT_LE(columnsOf(line), 72u) << line;
            lines.push_back(line);
        }
        // What the result is, before anything else but the title.
        const auto model = text.find("\nuser-space calibration loop: no kernel code modelled\n");
        EXPECT_NE(model, std::string::npos) << text;
        EXPECT_LT(model, text.find("\nrun 1 ")) << text;
        const auto header = std::find_if(lines.begin(), lines.end(), [&](const std::string& l) {
            return l.starts_with(verbose ? "  variant " : "  metric ");
        });
        ASSERT_NE(header, lines.end()) << text;
        std::vector<std::string> shown;
        if (verbose) {  // one row per variant: its name, then n
            for (auto it = header + 1; it != lines.end(); ++it) {
                std::istringstream cells(*it);
                const std::vector<std::string> words{std::istream_iterator<std::string>(cells), {}};
                if (words.size() < 2 || words[1].find_first_not_of("0123456789") != std::string::npos) {
                    break;
                }
                shown.push_back(words[0]);
            }
        } else {  // the labels head the value columns
            std::istringstream cells(*header);
            const std::vector<std::string> words{std::istream_iterator<std::string>(cells), {}};
            ASSERT_GE(words.size(), 4u) << *header;
            shown = {words[1], words[3]};
        }
        ASSERT_EQ(shown.size(), 2u) << text;
        EXPECT_NE(shown[0], shown[1]) << text;
        EXPECT_EQ(fullName(text, shown[0]), labels[0]) << text;
        EXPECT_EQ(fullName(text, shown[1]), labels[1]) << text;
        for (std::size_t i = 0; i < labels.size(); ++i) {
            std::string want = "noisefloor\n--db\n" + m_dir.file("runs.db") + "\n";
            for (const auto& a : argvs[i]) {
                want += a + "\n";
            }
            const std::string lead = "run " + std::to_string(i + 1) + " '" + labels[i] + "': $ ";
            EXPECT_EQ(pastedWords(text, lead, m_dir), want) << text;
        }
    }
}

}  // namespace
}  // namespace nf::test
