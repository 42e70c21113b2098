// End-to-end tests of the `noisefloor` binary: the commands a user types, checked by their output.

#include <gtest/gtest.h>
#include <signal.h>
#include <unistd.h>

#include <map>
#include <nlohmann/json.hpp>
#include <sstream>

#include "tests/app/cli_process.h"

namespace nf::test {
namespace {

std::vector<std::string> splitCsvLine(const std::string& line)
{
    std::vector<std::string> cells;
    std::string cell;
    std::istringstream in(line);
    while (std::getline(in, cell, ',')) {
        cells.push_back(cell);
    }
    return cells;
}

class Cli : public CliTest {};

TEST_F(Cli, WorkloadsListsSpinWithItsParameters)
{
    const auto text = run({"workloads"});
    ASSERT_EQ(text.status, 0) << text.err;
    EXPECT_NE(text.out.find("spin"), std::string::npos);
    EXPECT_NE(text.out.find("1..100000000"), std::string::npos);
    const auto json = run({"workloads", "--format", "json"});
    ASSERT_EQ(json.status, 0);
    const auto j = nlohmann::json::parse(json.out);
    EXPECT_EQ(j[0]["name"], "spin");
    EXPECT_EQ(j[0]["params"][0]["name"], "work");
    EXPECT_EQ(j[0]["params"][0]["default"], "1000");
}

TEST_F(Cli, RunStoresACompleteRunWhoseExportShowsBCostingTwiceA)
{
    const auto r = run({"run", "spin", "--variant", "a:work=500", "--variant", "b:work=1000", "--reps", "4",
                        "--duration", "0.3", "--label", "e2e"});
    ASSERT_EQ(r.status, 0) << r.err;
    EXPECT_NE(r.out.find("run 1  spin  complete"), std::string::npos) << r.out;
    EXPECT_NE(r.out.find("tsc_per_op"), std::string::npos);

    const auto list = nlohmann::json::parse(run({"list", "--format", "json"}).out);
    ASSERT_EQ(list.size(), 1u);
    EXPECT_EQ(list[0]["status"], "complete");
    EXPECT_EQ(list[0]["label"], "e2e");
    EXPECT_EQ(list[0]["repetitions"], 4);

    const auto csv = run({"export", "1", "--format", "csv", "-o", m_dir.file("run.csv")});
    ASSERT_EQ(csv.status, 0) << csv.err;
    std::istringstream lines(readFile(m_dir.file("run.csv")));
    std::string line;
    std::getline(lines, line);
    const auto header = splitCsvLine(line);
    auto col = [&](const std::string& name) {
        return static_cast<std::size_t>(std::find(header.begin(), header.end(), name) - header.begin());
    };
    ASSERT_LT(col("tsc_per_op"), header.size());
    std::map<std::string, std::pair<double, double>> totals;  // variant -> (ticks, ops)
    int rows = 0;
    while (std::getline(lines, line)) {
        const auto cells = splitCsvLine(line);
        totals[cells[col("variant")]].first += std::stod(cells[col("tsc_ticks")]);
        totals[cells[col("variant")]].second += std::stod(cells[col("ops")]);
        ++rows;
    }
    EXPECT_EQ(rows, 2 * 4 * 150);  // 0.3 s in 2 ms chunks, per variant and repetition
    const double a = totals["a"].first / totals["a"].second;
    const double b = totals["b"].first / totals["b"].second;
    EXPECT_NEAR(b / a, 2.0, 0.2);
}

TEST_F(Cli, ShowAndJsonExportDescribeTheRun)
{
    ASSERT_EQ(run({"run", "spin", "--reps", "2", "--duration", "0.05", "--warmup", "0"}).status, 0);
    const auto show = run({"show", "last", "--format", "json"});
    ASSERT_EQ(show.status, 0) << show.err;
    const auto j = nlohmann::json::parse(show.out);
    EXPECT_EQ(j["workload"], "spin");
    EXPECT_EQ(j["variants"][0]["name"], "default");
    EXPECT_EQ(j["variants"][0]["params"]["work"], "1000");
    EXPECT_TRUE(j["environment"].contains("system"));
    EXPECT_EQ(j["summary"][0]["metric"], "tsc_per_op");
    EXPECT_EQ(j["summary"][0]["variants"][0]["n"], 2);
    const auto text = run({"show", "1"});
    EXPECT_NE(text.out.find("not measured:"), std::string::npos);  // this VM has no PMU; says so
    const auto exported = run({"export", "1", "--format", "json"});
    ASSERT_EQ(exported.status, 0);
    EXPECT_FALSE(nlohmann::json::parse(exported.out)["samples"].empty());
}

TEST_F(Cli, ShowGivesEachVariantsCodeSizeFromTheSymbolTable)
{
    ASSERT_EQ(run({"run", "indirect-call", "--variant", "direct:call=direct", "--variant", "retpoline:call=retpoline",
                   "--reps", "2", "--duration", "0.05", "--warmup", "0"})
                  .status,
              0);
    const auto j = nlohmann::json::parse(run({"show", "last", "--format", "json"}).out);
    const auto& direct = j["variants"][0];
    const auto& retpoline = j["variants"][1];
    ASSERT_TRUE(direct.contains("code_bytes")) << j["environment"]["measurement"].dump();
    EXPECT_EQ(direct["code_symbols"][0]["name"], "runDirect");
    EXPECT_EQ(retpoline["code_symbols"][0]["name"], "runRetpoline");
    EXPECT_EQ(direct["code_symbols"][1]["name"], "sockDefReadable");
    std::uint64_t sum = 0;
    for (const auto& s : direct["code_symbols"]) {
        sum += s["bytes"].get<std::uint64_t>();
    }
    EXPECT_EQ(direct["code_bytes"].get<std::uint64_t>(), sum);
    EXPECT_TRUE(direct["code_bytes_delta"].is_null());
    EXPECT_EQ(retpoline["code_bytes_delta"].get<std::int64_t>(),
              retpoline["code_bytes"].get<std::int64_t>() - direct["code_bytes"].get<std::int64_t>());
    const auto text = run({"show", "last"});
    EXPECT_NE(text.out.find("code size of each variant's hot functions"), std::string::npos) << text.out;
    EXPECT_NE(text.out.find("    retpoline: "), std::string::npos) << text.out;
}

TEST_F(Cli, CheckReportsEachFindingWithAFix)
{
    const auto r = run({"check", "--format", "json"});
    ASSERT_EQ(r.status, 0) << r.err;
    const auto j = nlohmann::json::parse(r.out);
    bool hardware = false;
    for (const auto& c : j) {
        if (c["name"] == "hardware counters") {
            hardware = true;
            if (c["level"] != "ok") {
                EXPECT_FALSE(c["fix"].get<std::string>().empty());
            }
        }
    }
    EXPECT_TRUE(hardware);
}

TEST_F(Cli, SigintAbortsKeepsFinishedRepetitionsAndExits130)
{
    CliProcess p({"--db", m_dir.file("runs.db"), "run", "spin", "--reps", "1000", "--duration", "0.1"}, m_dir);
    // Wait until at least one repetition is stored, then interrupt.
    ASSERT_TRUE(waitForRepetitions(1));
    kill(p.pid(), SIGINT);
    const auto r = p.wait();
    EXPECT_EQ(r.status, 130) << r.err;
    EXPECT_NE(r.err.find("aborted: SIGINT"), std::string::npos) << r.err;
    const auto j = nlohmann::json::parse(run({"list", "--format", "json"}).out);
    ASSERT_EQ(j.size(), 1u);
    EXPECT_EQ(j[0]["status"], "aborted");
    EXPECT_GE(j[0]["repetitions"].get<int>(), 1);
    EXPECT_LT(j[0]["repetitions"].get<int>(), 1000);
}

}  // namespace
}  // namespace nf::test
