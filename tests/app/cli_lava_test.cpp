// noisefloor lava export, results and collect: the dut's side of a LAVA job and the engineer's, as
// the job's shell lines call them, and the lab pair as a level of the design when runs of several
// pairs are compared. (The whole job, run by LAVA's own dispatchers, is tests/lava/lava_lab.py.)

#include <gtest/gtest.h>

#include <filesystem>
#include <fstream>
#include <nlohmann/json.hpp>
#include <sstream>

#include "tests/app/cli_process.h"

namespace nf::test {
namespace {

class CliLava : public ::testing::Test {
protected:
    CliResult in(const std::string& db, std::vector<std::string> args)
    {
        args.insert(args.begin(), {"--db", m_dir.file(db)});
        return runCli(args, m_dir);
    }

    // An imported page_frag_test run of about `us` microseconds per load (five loads around it).
    void moduleRun(const std::string& db, const std::string& label, double us)
    {
        const std::string path = m_dir.file(label + std::to_string(m_files++) + ".txt");
        writePageFragTestOutput(path, us);
        const auto r = in(db, {"import", "page-frag-test", path, "--label", label, "--allow-duplicate"});
        ASSERT_EQ(r.status, 0) << r.err;
    }

    // The newest run of `db` uploaded as job `job` of a pair would upload it.
    void upload(const std::string& db, const std::string& job, const std::string& generator, const std::string& dut)
    {
        std::filesystem::create_directories(m_dir.file("up"));
        const auto r = in(db, {"lava", "export", "last", "-o", m_dir.file("up/noisefloor-" + job + "-" + dut + ".db"),
                               "--job", job, "--device", dut, "--worker", "10.77.0.1", "--generator", generator});
        ASSERT_EQ(r.status, 0) << r.err;
    }

    nlohmann::json compareLabels(const std::string& db)
    {
        const auto r = in(db, {"compare", "--label", "vanilla", "--label", "patched", "--format", "json"});
        EXPECT_EQ(r.status, 0) << r.err;
        return nlohmann::json::parse(r.out);
    }

    TempDir m_dir;
    int m_files = 0;
};

TEST_F(CliLava, AnUploadedRunIsCollectedOnceWithItsJob)
{
    ASSERT_EQ(in("dut.db", {"run", "spin", "--variant", "a", "--variant", "b:work=200", "--reps", "3", "--duration",
                            "0.05", "--warmup", "0", "--share-cpus", "--label", "patched"})
                  .status,
              0);
    upload("dut.db", "41.1", "gen-1", "dut-1");

    // What the job turns into lava-test-case results: each metric's mean per variant, each verdict.
    const auto results = in("dut.db", {"lava", "results", "last"});
    ASSERT_EQ(results.status, 0) << results.err;
    std::istringstream lines(results.out);
    std::string line;
    int means = 0;
    int verdicts = 0;
    while (std::getline(lines, line)) {
        std::istringstream words(line);
        std::vector<std::string> w;
        for (std::string x; words >> x;) {
            w.push_back(x);
        }
        ASSERT_TRUE(w.size() == 2 || w.size() == 4) << line;
        EXPECT_TRUE(w[1] == "pass" || w[1] == "fail" || w[1] == "unknown") << line;
        EXPECT_EQ(w[0].find_first_not_of("abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRSTUVWXYZ0123456789._-"),
                  std::string::npos)
            << line;
        if (w[0].find("-vs-a") != std::string::npos) {
            ++verdicts;
            EXPECT_EQ(w.size(), 4u) << line;
            EXPECT_EQ(w[3], "%") << line;
        } else if (w[0].rfind("tsc_per_op.", 0) == 0) {
            ++means;
        }
    }
    EXPECT_EQ(means, 2) << results.out;  // tsc_per_op.a, tsc_per_op.b
    EXPECT_GE(verdicts, 1) << results.out;
    // b does a fifth of a's work: a change in the better direction, under a name that stays the same
    // from job to job.
    EXPECT_NE(results.out.find("tsc_per_op.b-vs-a pass -"), std::string::npos) << results.out;

    const auto collected = in("here.db", {"lava", "collect", m_dir.file("up")});
    ASSERT_EQ(collected.status, 0) << collected.err;
    EXPECT_NE(collected.out.find("job 41.1 on gen-1+dut-1: merged as run 1"), std::string::npos) << collected.out;
    // Collecting again stores nothing new.
    const auto again = in("here.db", {"lava", "collect", m_dir.file("up")});
    ASSERT_EQ(again.status, 0) << again.err;
    EXPECT_NE(again.out.find("0 merged, 1 not merged"), std::string::npos) << again.out;
    EXPECT_EQ(nlohmann::json::parse(in("here.db", {"list", "--format", "json"}).out).size(), 1u);

    const auto show = in("here.db", {"show", "1"});
    EXPECT_NE(show.out.find("LAVA job 41.1, device under test dut-1, generator gen-1, worker 10.77.0.1 (pair "
                            "gen-1+dut-1)"),
              std::string::npos)
        << show.out;
    const auto exported = nlohmann::json::parse(in("here.db", {"export", "1", "--format", "json"}).out);
    EXPECT_EQ(exported["environment"]["lava"]["job"], "41.1");
    EXPECT_EQ(exported["environment"]["lava"]["device"], "dut-1");
}

TEST_F(CliLava, CollectRefusesWhatNoJobUploaded)
{
    const auto none = in("here.db", {"lava", "collect", m_dir.file("nowhere")});
    EXPECT_EQ(none.status, 2);
    EXPECT_NE(none.err.find("not a directory"), std::string::npos) << none.err;

    // A plain export (no job facts) among the uploads is named and left out; the others merge.
    moduleRun("dut.db", "vanilla", 400000);
    upload("dut.db", "7.1", "gen-1", "dut-1");
    ASSERT_EQ(in("dut.db", {"export", "last", "--format", "sqlite", "-o", m_dir.file("up/noisefloor-plain.db")}).status,
              0);
    {
        std::ofstream junk(m_dir.file("up/noisefloor-junk.db"));
        junk << "not a database\n";
    }
    const auto r = in("here.db", {"lava", "collect", m_dir.file("up")});
    EXPECT_EQ(r.status, 1) << r.out << r.err;
    EXPECT_NE(r.err.find("noisefloor-plain.db: its run has no LAVA job facts"), std::string::npos) << r.err;
    EXPECT_NE(r.err.find("noisefloor-junk.db"), std::string::npos) << r.err;
    EXPECT_NE(r.out.find("1 merged, 0 not merged, 2 failed"), std::string::npos) << r.out;

    const auto exportNoJob = in("dut.db", {"lava", "export", "last", "-o", m_dir.file("x.db")});
    EXPECT_EQ(exportNoJob.status, 2);
    EXPECT_FALSE(std::filesystem::exists(m_dir.file("x.db")));
}

// Vanilla measured on one pair and patched on another: the pairs' own difference is in the number,
// so the tool does not call it a change. On the same two pairs, each pair is one unit.
TEST_F(CliLava, RunsOfDifferentPairsAreNotPooledAsOneMachine)
{
    int job = 1;
    const auto labRun = [&](const std::string& label, double us, const std::string& pair) {
        moduleRun("lab.db", label, us);
        upload("lab.db", std::to_string(job++), "gen-" + pair, "dut-" + pair);
    };
    for (int i = 0; i < 3; ++i) {
        labRun("vanilla", 400000 * (1 + 0.002 * i), "a");
        labRun("patched", 440000 * (1 + 0.002 * i), "b");
    }
    ASSERT_EQ(in("split.db", {"lava", "collect", m_dir.file("up")}).status, 0);
    const auto split = compareLabels("split.db");
    const auto& c = split["comparisons"][0];
    EXPECT_EQ(c["verdict"], "inconclusive") << c;
    EXPECT_NE(split.dump().find("different lab pairs (gen-a+dut-a against gen-b+dut-b)"), std::string::npos) << split;

    // Vanilla on both pairs, patched on one of them: the other pair weighs on vanilla alone.
    std::filesystem::remove_all(m_dir.file("up"));
    for (int i = 0; i < 2; ++i) {
        labRun("vanilla", 400000 * (1 + 0.001 * i), "a");
        labRun("vanilla", 404000 * (1 + 0.001 * i), "b");
        labRun("patched", 440000 * (1 + 0.001 * i), "b");
    }
    ASSERT_EQ(in("partial.db", {"lava", "collect", m_dir.file("up")}).status, 0);
    const auto partial = compareLabels("partial.db");
    EXPECT_EQ(partial["comparisons"][0]["verdict"], "inconclusive") << partial["comparisons"][0];
    EXPECT_NE(partial.dump().find("different lab pairs (gen-a+dut-a, gen-b+dut-b against gen-b+dut-b)"),
              std::string::npos)
        << partial;

    // The same change measured on both pairs: pair means are the units, and the verdict stands.
    std::filesystem::remove_all(m_dir.file("up"));
    for (const std::string pair : {"a", "b"}) {
        const double level = pair == "a" ? 1.0 : 1.01;  // pair b is 1% slower for both kernels
        for (int i = 0; i < 2; ++i) {
            labRun("vanilla", 400000 * level * (1 + 0.001 * i), pair);
            labRun("patched", 440000 * level * (1 + 0.001 * i), pair);
        }
    }
    ASSERT_EQ(in("both.db", {"lava", "collect", m_dir.file("up")}).status, 0);
    const auto both = compareLabels("both.db");
    const auto& b = both["comparisons"][0];
    EXPECT_EQ(b["verdict"], "different") << b;
    EXPECT_EQ(both.dump().find("different lab pairs"), std::string::npos) << both;
    EXPECT_NE(both.dump().find("runs in lab pairs (2 against 2 pairs)"), std::string::npos) << both;
}

// A campaign's boots as LAVA jobs: a job per planned boot, each deploying its kernel on one pair;
// collected runs become the campaign's boots, a boot of the wrong build is kept and not counted.
TEST_F(CliLava, ACampaignsBootsAreJobsAndCollectedRunsCountAsItsBoots)
{
    const std::string vanilla = "0123456789abcdef0123456789abcdef01234567";
    const std::string patched = "89abcdef0123456789abcdef0123456789abcdef";
    ASSERT_EQ(in("here.db", {"campaign", "new", "lab1", "--kernel", "vanilla=" + vanilla, "--kernel",
                             "patched=" + patched, "--boots", "4", "--", "run", "iface-rx", "-p", "iface=eth1"})
                  .status,
              0);
    const auto jobs = in("here.db", {"lava",        "job",
                                     "--campaign",  "lab1",
                                     "--deploy",    "kexec",
                                     "--kernel",    "vanilla=https://lab.example/v/bzImage",
                                     "--kernel",    "patched=https://lab.example/p/bzImage",
                                     "--tag",       "pair-1",
                                     "--artifacts", "store:/srv/up",
                                     "-o",          m_dir.file("jobs"),
                                     "--",          "run",
                                     "udp-rx",      "-p",
                                     "iface=eth1"});
    ASSERT_EQ(jobs.status, 0) << jobs.err;
    const std::vector<std::string> order = {"vanilla", "patched", "patched", "vanilla"};
    for (std::size_t i = 0; i < order.size(); ++i) {
        const auto path = m_dir.file("jobs/lab1-boot-0" + std::to_string(i + 1) + "-" + order[i] + ".yaml");
        const std::string text = readFile(path);
        EXPECT_NE(text.find("https://lab.example/" + order[i].substr(0, 1) + "/bzImage"), std::string::npos) << path;
        EXPECT_NE(text.find("--label lab1." + order[i]), std::string::npos) << path;
        EXPECT_NE(text.find("pair-1"), std::string::npos) << path;
    }
    EXPECT_EQ(in("here.db", {"lava", "job", "--campaign", "lab1", "--deploy", "kexec", "--kernel",
                             "vanilla=https://k/v", "--artifacts", "s:/u", "--tag", "p", "-o", m_dir.file("j2"), "--",
                             "run", "udp-rx", "-p", "iface=eth1"})
                  .status,
              2);  // patched has no URL

    // The dut's runs: each boot's kernel as the job deployed it; the third boot ran the wrong build.
    int job = 1;
    const auto boot = [&](const std::string& kernel, const std::string& buildId, double us) {
        ::setenv("NOISEFLOOR_KERNEL_IDENTITY", nlohmann::json{{"build_id", buildId}}.dump().c_str(), 1);
        moduleRun("dut.db", "lab1." + kernel, us);
        ::unsetenv("NOISEFLOOR_KERNEL_IDENTITY");
        upload("dut.db", std::to_string(job++), "gen-1", "dut-1");
    };
    boot("vanilla", vanilla, 400000);
    boot("patched", patched, 440000);
    boot("patched", vanilla, 400000);  // the deploy failed and the old kernel ran
    boot("patched", patched, 441000);
    boot("vanilla", vanilla, 401000);
    const auto collected = in("here.db", {"lava", "collect", m_dir.file("up")});
    ASSERT_EQ(collected.status, 0) << collected.err;
    EXPECT_NE(collected.out.find("campaign lab1: boot 1 of 4 (vanilla) counted"), std::string::npos) << collected.out;
    EXPECT_NE(collected.out.find("campaign lab1: a boot of patched kept, not counted: the dut ran build " + vanilla),
              std::string::npos)
        << collected.out;
    EXPECT_NE(collected.out.find("campaign lab1: boot 4 of 4 (vanilla) counted"), std::string::npos) << collected.out;
    const auto status = in("here.db", {"campaign", "status", "lab1", "--format", "json"});
    ASSERT_EQ(status.status, 0) << status.err;
    const auto j = nlohmann::json::parse(status.out);
    EXPECT_EQ(j["boots_done"], 4) << j;
    EXPECT_NE(j.dump().find("different"), std::string::npos) << j;
}

}  // namespace
}  // namespace nf::test
