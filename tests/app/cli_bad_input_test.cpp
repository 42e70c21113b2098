// Bad input: every invocation below must fail with one clear line on stderr naming the problem,
// exit status 2 (usage) or 1 (runtime), and leave the database as it was.

#include <gtest/gtest.h>

#include <fstream>

#include "cli_process.h"

namespace nf::test {
namespace {

struct BadCase {
    std::vector<std::string> args;
    int status;
    std::string message;  // must appear in stderr
};

class CliBadInput : public ::testing::Test {
protected:
    static void SetUpTestSuite()
    {
        s_dir = new TempDir();
        const auto r = runCli(
            {"--db", s_dir->file("runs.db"), "run", "spin", "--reps", "2", "--duration", "0.02", "--warmup", "0"},
            *s_dir);
        ASSERT_EQ(r.status, 0) << r.err;
        std::ofstream(s_dir->file("not-a-db")) << "this is a text file, not SQLite\n";
    }
    static void TearDownTestSuite()
    {
        delete s_dir;
        s_dir = nullptr;
    }
    static std::string snapshot()
    {
        return runCli({"--db", s_dir->file("runs.db"), "export", "1", "--format", "json"}, *s_dir).out +
               runCli({"--db", s_dir->file("runs.db"), "list", "--format", "json"}, *s_dir).out;
    }
    static TempDir* s_dir;
};

TempDir* CliBadInput::s_dir = nullptr;

TEST_F(CliBadInput, EachFailsCleanlyAndChangesNothing)
{
    const std::vector<BadCase> cases = {
        {{"frobnicate"}, 2, "frobnicate"},
        {{}, 2, "subcommand"},
        {{"run"}, 2, "workload"},
        {{"run", "nope"}, 2, "unknown workload 'nope'"},
        {{"run", "spin", "-p", "colour=red"}, 2, "no parameter 'colour'"},
        {{"run", "spin", "-p", "work"}, 2, "expected key=value"},
        {{"run", "spin", "-p", "work=0"}, 2, "work=0: out of range"},
        {{"run", "spin", "-p", "work=-5"}, 2, "work=-5: out of range"},
        {{"run", "spin", "-p", "work=ten"}, 2, "work=ten: not an integer"},
        {{"run", "spin", "-p", "work=1e99"}, 2, "work=1e99"},
        {{"run", "spin", "--variant", "a", "--variant", "a"}, 2, "--variant a: duplicate variant name"},
        {{"run", "spin", "--variant", "b:work"}, 2, "expected key=value"},
        {{"run", "spin", "--variant", "bad name"}, 2, "variant name"},
        {{"run", "spin", "--sweep", "work"}, 2, "--sweep 'work': expected PARAM=v1,v2,..."},
        {{"run", "spin", "--sweep", "colour=1,2"}, 2, "spin has no parameter 'colour'"},
        {{"run", "spin", "--sweep", "work=10,0"}, 2, "work=0: out of range"},
        {{"run", "spin", "--variant", "b:work=3", "--sweep", "work=1,2"}, 2, "variant b sets it too"},
        {{"compare", "--sweep", "1"}, 2, "run 1 is not part of a sweep"},
        {{"run", "spin", "--cpu", "4096"}, 2, "--cpu 4096: no such CPU"},
        {{"run", "spin", "--cpu", "one"}, 2, "--cpu 'one'"},
        {{"run", "spin", "--cpu", "-1"}, 2, "--cpu"},
        {{"run", "spin", "--reps", "0"}, 2, "--reps 0"},
        {{"run", "spin", "--reps", "-3"}, 2, "--reps -3"},
        {{"run", "spin", "--reps", "many"}, 2, "--reps"},
        {{"run", "spin", "--duration", "0"}, 2, "--duration 0"},
        {{"run", "spin", "--duration", "nan"}, 2, "--duration"},
        {{"run", "spin", "--duration", "1e300"}, 2, "--duration"},
        {{"run", "spin", "--warmup", "-1"}, 2, "--warmup"},
        {{"run", "spin", "--chunk", "-0.5"}, 2, "--chunk"},
        {{"run", "spin", "--chunk", "5", "--duration", "1"}, 2, "--chunk 5"},
        {{"run", "spin", "--order", "sideways"}, 2, "--order sideways"},
        {{"run", "spin", "--counters", "warp-drive"}, 2, "unknown counter 'warp-drive'"},
        {{"run", "spin", "--seed", "x"}, 2, "--seed"},
        {{"run", "spin", "--bogus"}, 2, "--bogus"},
        {{"show", "999"}, 1, "no run 999"},
        {{"show", "abc"}, 2, "RUN 'abc'"},
        {{"show", "1", "--format", "xml"}, 2, "--format"},
        {{"export", "1"}, 2, "--format"},
        {{"export", "1", "--format", "csv", "-o", "/nonexistent-dir/x.csv"}, 1, "cannot write /nonexistent-dir/x.csv"},
        {{"list", "--format", "yaml"}, 2, "--format"},
    };
    const std::string before = snapshot();
    ASSERT_NE(before.find("\"status\": \"complete\""), std::string::npos);
    for (const auto& c : cases) {
        std::vector<std::string> args = {"--db", s_dir->file("runs.db")};
        args.insert(args.end(), c.args.begin(), c.args.end());
        const auto r = runCli(args, *s_dir);
        std::string shown;
        for (const auto& a : c.args) {
            shown += a + " ";
        }
        EXPECT_EQ(r.status, c.status) << shown << "\nstderr: " << r.err;
        EXPECT_NE(r.err.find(c.message), std::string::npos) << shown << "\nstderr: " << r.err;
        EXPECT_EQ(std::count(r.err.begin(), r.err.end(), '\n'), 1) << shown << "\nstderr: " << r.err;
        EXPECT_EQ(r.err.rfind("noisefloor: ", 0), 0u) << shown << "\nstderr: " << r.err;
    }
    EXPECT_EQ(snapshot(), before);
}

TEST_F(CliBadInput, DatabaseProblemsAreRuntimeErrors)
{
    const std::vector<BadCase> cases = {
        {{"--db", s_dir->file("not-a-db"), "list"}, 1, "not-a-db"},
        {{"--db", s_dir->file("not-a-db"), "run", "spin", "--duration", "0.01"}, 1, "not-a-db"},
        {{"--db", "/proc/nf-no-such/runs.db", "run", "spin", "--duration", "0.01"}, 1, "/proc/nf-no-such/runs.db"},
        {{"--db", s_dir->file("missing.db"), "show", "1"}, 1, "does not exist"},
    };
    for (const auto& c : cases) {
        const auto r = runCli(c.args, *s_dir);
        EXPECT_EQ(r.status, c.status) << c.args[2] << "\nstderr: " << r.err;
        EXPECT_NE(r.err.find(c.message), std::string::npos) << r.err;
        EXPECT_EQ(std::count(r.err.begin(), r.err.end(), '\n'), 1) << r.err;
    }
    EXPECT_EQ(readFile(s_dir->file("not-a-db")), "this is a text file, not SQLite\n");
}

}  // namespace
}  // namespace nf::test
