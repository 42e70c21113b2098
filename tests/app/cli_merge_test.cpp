// `noisefloor export RUN --format sqlite` and `noisefloor merge`: a run measured in one database
// arrives in another as the same run, once, through the files a user would move between hosts.

#include <gtest/gtest.h>

#include <algorithm>
#include <fstream>
#include <nlohmann/json.hpp>

#include "tests/app/cli_process.h"

namespace nf::test {
namespace {

class CliMerge : public ::testing::Test {
protected:
    CliResult in(const std::string& db, std::vector<std::string> args)
    {
        args.insert(args.begin(), {"--db", m_dir.file(db)});
        return runCli(args, m_dir);
    }
    // The run as `export --format json` writes it, without its id and its provenance.
    nlohmann::json exported(const std::string& db, const std::string& id)
    {
        const auto r = in(db, {"export", id, "--format", "json"});
        EXPECT_EQ(r.status, 0) << r.err;
        auto j = nlohmann::json::parse(r.out);
        j["run"].erase("id");
        j["environment"].erase("copied_from");
        return j;
    }
    TempDir m_dir;
};

TEST_F(CliMerge, AnExportedRunDatabaseMergesOnceAsTheSameRun)
{
    ASSERT_EQ(in("dut.db", {"run", "spin", "--variant", "a", "--variant", "b:work=200", "--reps", "2", "--duration",
                            "0.05", "--warmup", "0", "--share-cpus", "--label", "patched"})
                  .status,
              0);
    ASSERT_EQ(
        in("here.db", {"run", "spin", "--reps", "1", "--duration", "0.05", "--warmup", "0", "--share-cpus"}).status, 0);
    // To stdout, as `ssh dut noisefloor export 1 --format sqlite > run.db` does.
    const auto dump = in("dut.db", {"export", "1", "--format", "sqlite"});
    ASSERT_EQ(dump.status, 0) << dump.err;
    ASSERT_EQ(dump.out.rfind("SQLite format 3", 0), 0u);
    {
        std::ofstream f(m_dir.file("run1.db"), std::ios::binary);
        f << dump.out;
    }
    const auto merged = in("here.db", {"merge", m_dir.file("run1.db"), "--origin", "dut:runs.db"});
    ASSERT_EQ(merged.status, 0) << merged.err;
    EXPECT_NE(merged.out.find("merged as run 2"), std::string::npos) << merged.out;
    EXPECT_EQ(exported("here.db", "2"), exported("dut.db", "1"));
    const auto show = in("here.db", {"export", "2", "--format", "json"});
    EXPECT_EQ(nlohmann::json::parse(show.out)["environment"]["copied_from"]["origin"], "dut:runs.db");

    const auto again = in("here.db", {"merge", m_dir.file("dut.db")});
    ASSERT_EQ(again.status, 0) << again.err;
    EXPECT_NE(again.out.find("not merged: already here as run 2"), std::string::npos) << again.out;
    const auto compare = in("here.db", {"compare", "2"});
    EXPECT_EQ(compare.status, 0) << compare.err;
}

TEST_F(CliMerge, BadInputIsOneLineAndExitTwo)
{
    ASSERT_EQ(
        in("dut.db", {"run", "spin", "--reps", "1", "--duration", "0.05", "--warmup", "0", "--share-cpus"}).status, 0);
    ASSERT_EQ(in("dut.db", {"export", "1", "--format", "sqlite", "-o", m_dir.file("one.db")}).status, 0);
    ASSERT_EQ(in("here.db", {"merge", m_dir.file("one.db")}).status, 0);
    const std::vector<std::pair<std::string, std::vector<std::string>>> bad = {
        {"dut.db", {"export", "1", "--format", "sqlite", "-o", m_dir.file("one.db")}},  // exists
        {"here.db", {"merge", m_dir.file("missing.db")}},
        {"here.db", {"merge", m_dir.file("here.db")}},  // itself
        {"here.db", {"merge", m_dir.file("one.db"), "--run", "5"}},
    };
    for (const auto& [db, args] : bad) {
        const auto r = in(db, args);
        EXPECT_EQ(r.status, 2) << args[1] << ": " << r.err;
        EXPECT_EQ(std::count(r.err.begin(), r.err.end(), '\n'), 1) << r.err;
    }
}

}  // namespace
}  // namespace nf::test
