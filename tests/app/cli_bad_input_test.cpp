// Bad input: every invocation below must fail with one clear line on stderr naming the problem,
// exit status 2 (usage) or 1 (runtime), and leave the database as it was.

#include <gtest/gtest.h>

#include <fstream>

#include <nlohmann/json.hpp>

#include "data/database.h"
#include "tests/app/cli_process.h"

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
        auto other = data::Database::open(s_dir->file("other.db"));  // someone else's SQLite file
        ASSERT_TRUE(other.ok());
        ASSERT_TRUE(other->exec("CREATE TABLE t(x); INSERT INTO t VALUES (1)").ok());
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
        {{"run", "spin", "--cpu", "0", "--housekeeping", "0"}, 2, "--housekeeping 0: CPU 0 is measured by this run"},
        {{"run", "spin", "--housekeeping", "4096"}, 2, "--housekeeping 4096: no such CPU"},
        {{"run", "spin", "--housekeeping", "one"}, 2, "--housekeeping 'one'"},
        {{"run", "udp-rx", "-p", "tx_cpu=0", "-p", "rx_cpu=0", "-p", "share_cpu=1", "--housekeeping", "0"},
         2,
         "--housekeeping 0: CPU 0 is measured by this run (measured: 0)"},
        {{"run", "udp-rx", "--variant", "a", "--variant", "b", "--setups", "3"},
         2,
         "--setups 3: expected a multiple of the 2 variants"},
        {{"run", "udp-rx", "--variant", "a", "--variant", "b", "--setups", "0"}, 2, "--setups 0: expected a multiple"},
        {{"run", "udp-rx", "--variant", "a", "--variant", "b", "--setups", "100"},
         2,
         "--setups 100: more setups than the 40 chunk rounds of a repetition"},
        {{"run", "udp-rx", "--variant", "a", "--variant", "b", "--setups", "many"}, 2, "--setups"},
        {{"run", "spin", "--variant", "a", "--variant", "b", "--setups", "2"},
         2,
         "--setups 2: setups are the phases of a live run"},
        {{"run", "udp-rx", "--variant", "a", "--variant", "b:gro=0", "--setups", "2"},
         2,
         "here runs one variant at a time"},
        {{"run", "spin", "--profile=5"}, 2, "--profile 5: must be 10..20000 samples a second"},
        {{"run", "spin", "--profile=50000"}, 2, "--profile 50000: must be 10..20000"},
        {{"run", "spin", "--profile=fast"}, 2, "--profile=fast: expected a rate in samples a second"},
        {{"run", "command", "-p", "cmd=true", "--profile"}, 2, "--profile 499: profiles are of in-process and live"},
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
        {{"run", "spin", "--counters-mode", "bogus"}, 2, "--counters-mode 'bogus': expected user"},
        {{"run", "spin", "--counters-mode", ""}, 2, "--counters-mode"},
        {{"run", "xdp-rx", "-p", "busy_poll=1", "-p", "busy_poll_us=0"}, 2, "busy_poll_us=0: out of range"},
        {{"run", "xdp-rx", "-p", "busy_poll=1", "-p", "busy_poll_budget=70000"}, 2, "busy_poll_budget=70000"},
        {{"run", "xdp-rx", "-p", "busy_poll_us=50"}, 2, "busy_poll_us=50: only with busy_poll=1"},
        {{"run", "xdp-rx", "-p", "busy_poll_budget=8"}, 2, "busy_poll_budget=8: only with busy_poll=1"},
        {{"run", "spin", "--bogus"}, 2, "--bogus"},
        {{"show", "999"}, 1, "no run 999"},
        {{"show", "abc"}, 2, "RUN 'abc'"},
        {{"show", "1", "--format", "xml"}, 2, "--format"},
        {{"export", "1"}, 2, "--format"},
        {{"export", "1", "--format", "csv", "-o", "/nonexistent-dir/x.csv"}, 1, "cannot write /nonexistent-dir/x.csv"},
        {{"list", "--format", "yaml"}, 2, "--format"},
        {{"run", "spin", "--duration", "inf"}, 2, "--duration"},
        {{"run", "spin", "--duration", "-0.1"}, 2, "--duration"},
        {{"run", "spin", "--interval", "0"}, 2, "--interval"},
        {{"run", "spin", "--reps", "99999999999"}, 2, "--reps"},
        {{"run", "spin", "-p", "work=nan"}, 2, "work=nan"},
        {{"run", "spin", "-p", "work=99999999999999999999"}, 2, "work=99999999999999999999"},
        {{"run", "spin", "--variant", "a:work=1,work=2"}, 2, "'work' set twice"},
        {{"run", "spin", "--cpu", "0-4095"}, 2, "--cpu"},
        {{"run", "spin", "--events", "xml"}, 2, "--events"},
        {{"run", "spin", "--sweep", "work="}, 2, "--sweep"},
        {{"run", "spin", "--sweep", "work=1,1"}, 2, "--sweep"},
        {{"run", "command"}, 2, "cmd"},
        {{"run", "udp-rx", "-p", "rate=-1"}, 2, "rate=-1"},
        {{"show", "-1"}, 2, "RUN '-1'"},
        {{"show", "99999999999999999999999"}, 2, "99999999999999999999999"},
        {{"export", "999", "--format", "csv"}, 1, "no run 999"},
        {{"compare", "999"}, 1, "no run 999"},
        {{"compare", "1:nosuch"}, 2, "nosuch"},
        {{"compare", "1", "--alpha", "2"}, 2, "--alpha"},
        {{"compare", "1", "--margin", "-1"}, 2, "--margin"},
        {{"compare", "1", "--metric", "warp"}, 2, "warp"},
        {{"compare", "--label", "no-such-label"}, 2, "no-such-label"},
        {{"series", "--label", "no-such-label"}, 2, "no-such-label"},
        {{"series", "1", "--permutations", "0"}, 2, "--permutations"},
        {{"stat", "/nonexistent/a.txt", "/nonexistent/b.txt"}, 2, "/nonexistent/a.txt"},
        {{"stat", "only-one.txt"}, 2, "stat"},
        {{"stat", "-C", "0", "a", "b"}, 2, "-C 0"},
        {{"import", "perf-stat", "--label", "x", "/nonexistent/perf.csv"}, 1, "/nonexistent/perf.csv"},
        {{"import", "tcpdump", "--label", "x", "/dev/null"}, 2, "tcpdump"},
        {{"import", "perf-stat", "/dev/null"}, 2, "--label"},
        {{"import", "perf-stat", "--label", "x", "--runs", "1", "/dev/null"}, 2, "--runs"},
        {{"calibrate", "nope"}, 2, "nope"},
        {{"calibrate", "--layout", "--label", "x"}, 2, "takes --placebo LABEL"},
        {{"calibrate", "spin", "--placebo", "x"}, 2, "--placebo x takes --layout"},
        {{"compare", "1", "--placebo", "x"}, 2, "--placebo x takes --label"},
        {{"selftest", "--cpu", "4096"}, 2, "4096"},
        {{"selftest", "--cpu", "abc"}, 2, "--cpu 'abc'"},
        {{"run", "command", "-p", "cmd='unterminated"}, 2, "unterminated"},
        {{"run", "command", "-p", "cmd=true", "-p", "metric_regex=(("}, 2, "metric_regex"},
        {{"check", "--iface", "nf-no-such-if0"}, 1, "nf-no-such-if0"},
        {{"workloads", "--format", "yaml"}, 2, "--format"},
        {{"cleanup", "--everything"}, 2, "--everything"},
        // Exports that would destroy data: refused before anything is read.
        {{"export", "1", "--format", "csv", "-o", s_dir->file("runs.db")}, 2, "is the database ("},
        {{"export", "1", "--format", "csv", "-o", s_dir->file("runs.db-wal")}, 2, "is the database's wal file"},
        {{"export", "1", "--format", "csv", "-o", s_dir->file("runs.db-shm")}, 2, "is the database's shm file"},
        {{"export", "1", "--format", "json", "-o", s_dir->file("other.db")}, 2, "is an SQLite database"},
        // A repetition is held whole until it is stored: its size is bounded up front.
        {{"run", "spin", "--reps", "100000", "--duration", "86400"}, 2, "samples (at most 1000000)"},
        {{"run", "spin", "--duration", "200", "--chunk", "0", "--interval", "0.0001"}, 2, "--duration 200"},
        // --until decided: what it needs, checked before anything runs.
        {{"run", "spin", "--variant", "a", "--variant", "b", "--until", "maybe"},
         2,
         "--until 'maybe': expected 'decided'"},
        {{"run", "spin", "--max-time", "10"}, 2, "--max-time: only with --until decided"},
        {{"run", "spin", "--until", "decided"}, 2, "--until decided: compares a candidate with a baseline"},
        {{"run", "spin", "--variant", "a", "--variant", "b", "--until", "decided", "--max-time", "0"},
         2,
         "--max-time 0"},
        {{"run", "spin", "--variant", "a", "--variant", "b", "--until", "decided", "--margin", "-1"},
         2,
         "--margin -1.0: margin must be"},
        {{"run", "spin", "--variant", "a", "--variant", "b", "--until", "decided", "--alpha", "0.9"},
         2,
         "--alpha 0.9: alpha must be"},
        {{"run", "spin", "--variant", "a", "--variant", "b", "--until", "decided", "--order", "blocked"},
         2,
         "order interleaved or random"},
        {{"run", "command", "--variant", "a", "--variant", "b", "--until", "decided", "-p", "cmd=true"},
         2,
         "is for in-process and live workloads"},
        // Control characters in what is echoed back are escaped.
        {{"show", "\x1b]0;owned\x07\r\x01"}, 2, "RUN '\\x1b]0;owned\\x07\\r\\x01'"},
        {{"run", "nope\x1b[2J"}, 2, "unknown workload 'nope\\x1b[2J'"},
    };
    const std::string before = snapshot();
    ASSERT_NE(before.find("\"status\": \"complete\""), std::string::npos);
    const std::string bytes = readFile(s_dir->file("runs.db"));
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
        EXPECT_EQ(std::count_if(r.err.begin(), r.err.end(),
                                [](char ch) { return static_cast<unsigned char>(ch) < 0x20 && ch != '\n'; }),
                  0)
            << shown << ": a control character reached the terminal";
    }
    EXPECT_EQ(readFile(s_dir->file("runs.db")), bytes) << "the database file changed";
    EXPECT_EQ(snapshot(), before);
}

// Labels, parameters and a command's stderr are the user's text: what reaches the terminal from
// them carries no control characters; JSON keeps them exactly (escaped by JSON itself).
TEST_F(CliBadInput, ControlCharactersNeverReachTheTerminal)
{
    TempDir dir;
    const std::string db = dir.file("runs.db");
    const std::string esc = "\x1b[2J\x1b]0;owned\x07";
    const auto stored =
        runCli({"--db", db, "run", "command", "--label", "l" + esc, "-p",
                "cmd=sh -c 'printf \"bad\\033[31m\\r\\n\" >&2; exit 3'", "--reps", "1", "--warmup", "0"},
               dir);
    auto rawControl = [](const std::string& text) {
        return std::count_if(text.begin(), text.end(), [](char ch) {
            const auto c = static_cast<unsigned char>(ch);
            return (c < 0x20 && ch != '\n' && ch != '\t') || c == 0x7f;
        });
    };
    EXPECT_EQ(rawControl(stored.out), 0) << stored.out;
    EXPECT_EQ(rawControl(stored.err), 0) << stored.err;
    EXPECT_NE(stored.err.find("bad\\x1b[31m\\r"), std::string::npos) << stored.err;
    for (const std::vector<std::string>& args :
         {std::vector<std::string>{"list"}, {"show", "last"}, {"compare", "last"}, {"compare", "--label", "l" + esc}}) {
        std::vector<std::string> full = {"--db", db};
        full.insert(full.end(), args.begin(), args.end());
        const auto r = runCli(full, dir);
        EXPECT_EQ(rawControl(r.out), 0) << args[0] << ": " << r.out;
        EXPECT_EQ(rawControl(r.err), 0) << args[0] << ": " << r.err;
    }
    const auto listed = runCli({"--db", db, "list"}, dir);
    EXPECT_NE(listed.out.find("l\\x1b[2J\\x1b]0;owned\\x07"), std::string::npos) << listed.out;
    const auto json = runCli({"--db", db, "list", "--format", "json"}, dir);
    ASSERT_EQ(json.status, 0) << json.err;
    EXPECT_EQ(nlohmann::json::parse(json.out)[0]["label"], "l" + esc) << "JSON stays exact";
}

TEST_F(CliBadInput, DatabaseProblemsAreRuntimeErrors)
{
    const std::vector<BadCase> cases = {
        {{"--db", s_dir->file("not-a-db"), "list"}, 1, "not-a-db"},
        {{"--db", s_dir->file("not-a-db"), "run", "spin", "--duration", "0.01"}, 1, "not-a-db"},
        {{"--db", "/proc/nf-no-such/runs.db", "run", "spin", "--duration", "0.01"}, 1, "/proc/nf-no-such/runs.db"},
        {{"--db", s_dir->file("missing.db"), "show", "1"}, 1, "does not exist"},
        {{"--db", s_dir->path(), "list"}, 1, s_dir->path()},
        {{"--db", s_dir->file("runs.db"), "stat", s_dir->path(), s_dir->path()}, 2, s_dir->path()},
        {{"--db", s_dir->file("runs.db"), "import", "perf-stat", "--label", "x", s_dir->path()}, 1, s_dir->path()},
        // A front end on another host with another version: refused before anything is done.
        {{"--db", s_dir->file("runs.db"), "--expect-version", "0.0.0-other", "run", "spin", "--duration", "0.01"},
         1,
         "the caller runs 0.0.0-other (install the same version on both hosts)"},
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
