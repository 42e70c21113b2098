// End-to-end tests of --pmu simulated: chosen only explicitly, SIMULATED in the first lines of every
// output, multiplexed counts scaled back and their counted share stored per sample, and a failed
// counter read failing the run rather than leaving a number silently wrong.

#include <gtest/gtest.h>

#include <algorithm>
#include <cmath>
#include <cstdlib>
#include <map>
#include <nlohmann/json.hpp>
#include <sstream>
#include <string>
#include <tuple>
#include <vector>

#include "tests/app/cli_process.h"

namespace nf::test {
namespace {

std::string firstLine(const std::string& text)
{
    return text.substr(0, text.find('\n'));
}

std::vector<std::string> split(const std::string& line)
{
    std::vector<std::string> out;
    std::stringstream s(line);
    std::string field;
    while (std::getline(s, field, ',')) {
        out.push_back(field);
    }
    return out;
}

// The sample rows of `noisefloor export --format csv`, by column name.
std::vector<std::map<std::string, double>> samples(const std::string& csv)
{
    std::istringstream in(csv);
    std::string line;
    std::vector<std::string> header;
    std::vector<std::map<std::string, double>> rows;
    while (std::getline(in, line)) {
        if (line.empty() || line[0] == '#') {
            continue;
        }
        if (header.empty()) {
            header = split(line);
            continue;
        }
        const auto fields = split(line);
        std::map<std::string, double> row;
        for (std::size_t i = 0; i < fields.size() && i < header.size(); ++i) {
            char* end = nullptr;
            const double v = std::strtod(fields[i].c_str(), &end);
            if (end != fields[i].c_str()) {
                row[header[i]] = v;
            }
        }
        rows.push_back(row);
    }
    return rows;
}

using CliSimulatedPmu = CliTest;

TEST_F(CliSimulatedPmu, MultiplexedCountsAreScaledBackAndEveryOutputSaysSimulated)
{
    const auto r = run({"run", "spin", "--variant", "a", "--variant", "b:work=2000", "--reps", "2", "--duration", "0.2",
                        "--pmu", "simulated:running=0.5,period_ms=1"});
    ASSERT_EQ(r.status, 0) << r.err;
    EXPECT_EQ(firstLine(r.out).rfind("SIMULATED counters (--pmu simulated:running=0.5)", 0), 0U) << r.out;
    EXPECT_NE(r.err.find("counters multiplexed from repetition 1"), std::string::npos) << r.err;

    for (const std::vector<std::string>& args :
         std::vector<std::vector<std::string>>{{"show", "last"}, {"compare", "last", "--format", "csv"}}) {
        const auto out = run(args);
        ASSERT_EQ(out.status, 0) << out.err;
        EXPECT_NE(firstLine(out.out).find("SIMULATED counters"), std::string::npos) << args[0] << ": " << out.out;
    }
    for (const std::vector<std::string>& args :
         std::vector<std::vector<std::string>>{{"show", "last", "--format", "json"},
                                               {"compare", "last", "--format", "json"},
                                               {"export", "last", "--format", "json"}}) {
        const auto out = run(args);
        ASSERT_EQ(out.status, 0) << out.err;
        const auto json = nlohmann::json::parse(out.out);
        ASSERT_FALSE(json.empty());
        EXPECT_EQ(json.begin().key(), "SIMULATED_counters") << args[0];
    }
    EXPECT_NE(run({"compare", "last"}).out.find("\nSIMULATED counters"), std::string::npos);  // compact too
    const auto text = run({"compare", "last", "--verbose"});
    EXPECT_NE(text.out.find("SIMULATED counters"), std::string::npos);
    EXPECT_NE(text.out.find("ipc"), std::string::npos);
    EXPECT_NE(text.out.find("branch_misses_per_op"), std::string::npos);
    EXPECT_NE(text.out.find("cycles_per_op"), std::string::npos);

    const auto csv = run({"export", "last", "--format", "csv"});
    ASSERT_EQ(csv.status, 0) << csv.err;
    EXPECT_EQ(firstLine(csv.out).rfind("# SIMULATED counters", 0), 0U);
    const auto rows = samples(csv.out);
    ASSERT_GT(rows.size(), 50U);
    double counted = 0;
    std::size_t unmeasured = 0;
    std::vector<double> ratios;
    for (const auto& row : rows) {
        ASSERT_TRUE(row.contains("counted:cycles"));
        EXPECT_FALSE(row.contains("counted:task-clock"));  // a software event is never multiplexed
        // The share of a sample the counter ran depends on how the sample falls on the simulated
        // rotation period; over the run it is the half that was simulated. A sample the counter
        // never ran in (preempted through its whole turn on a loaded machine) has no value, as
        // with a real PMU: it is not made up.
        EXPECT_GE(row.at("counted:cycles"), 0.0);
        EXPECT_LE(row.at("counted:cycles"), 1.0);
        counted += row.at("counted:cycles");
        if (row.at("counted:cycles") == 0.0) {
            EXPECT_TRUE(!row.contains("cycles") || std::isnan(row.at("cycles")));
            ++unmeasured;
            continue;
        }
        // Simulated cycles are TSC ticks while counting: scaled by enabled / running they are the
        // sample's TSC ticks again, though the counter ran about half of the time (unscaled: about
        // 0.5). The counters are read just outside the sample's two TSC reads, so a preemption
        // between the two makes that sample's ratio high on a loaded machine, never low: the
        // median is the check.
        const double ratio = row.at("cycles") / row.at("tsc_ticks");
        EXPECT_GT(ratio, 0.95);
        ratios.push_back(ratio);
    }
    std::sort(ratios.begin(), ratios.end());
    EXPECT_NEAR(ratios[ratios.size() / 2], 1.0, 0.02);
    EXPECT_NEAR(counted / static_cast<double>(rows.size()), 0.5, 0.05);
    EXPECT_LT(unmeasured, rows.size() / 10);
}

TEST_F(CliSimulatedPmu, AFailedCounterReadFailsTheRun)
{
    // No warmup: its chunks read the counters too, and on a loaded machine (chunks of fewer calls)
    // the 300th read could come before the run is stored. Measuring reads them 1,200 times or more.
    const auto r = run({"run", "spin", "--variant", "a", "--variant", "b", "--reps", "3", "--duration", "0.2",
                        "--warmup", "0", "--pmu", "simulated:fail_read=300"});
    EXPECT_EQ(r.status, 1) << r.out;
    EXPECT_NE(r.err.find("reading the counters of the worker thread"), std::string::npos) << r.err;
    EXPECT_NE(r.err.find("fail_read"), std::string::npos) << r.err;
    const auto list = run({"list"});
    EXPECT_NE(list.out.find("failed"), std::string::npos) << list.out;
    EXPECT_EQ(list.out.find("complete"), std::string::npos) << list.out;
}

TEST_F(CliSimulatedPmu, OnlyWhenAskedForAndBadSettingsAreUsageErrors)
{
    const auto plain = run({"run", "spin", "--reps", "2", "--duration", "0.05"});
    ASSERT_EQ(plain.status, 0) << plain.err;
    EXPECT_EQ(plain.out.find("SIMULATED"), std::string::npos);
    const auto json = nlohmann::json::parse(run({"show", "last", "--format", "json"}).out);
    EXPECT_FALSE(json.contains("SIMULATED_counters"));

    for (const char* bad : {"bogus", "simulated:running=0", "simulated:running=1.5", "simulated:period_ms=x",
                            "simulated:fail_read=1.5", "simulated:colour=red"}) {
        const auto r = run({"run", "spin", "--pmu", bad});
        EXPECT_EQ(r.status, 2) << bad << ": " << r.err;
        EXPECT_NE(r.err.find("--pmu"), std::string::npos) << r.err;
        EXPECT_EQ(std::count(r.err.begin(), r.err.end(), '\n'), 1) << r.err;
    }
    const auto self = run({"selftest", "--pmu", "bogus"});
    EXPECT_EQ(self.status, 2) << self.err;
    // `check` reports the machine's PMU, never the simulated one.
    const auto check = run({"check"});
    EXPECT_EQ(check.out.find("SIMULATED"), std::string::npos) << check.out;
}

// --counters-mode: in-process workloads count hardware events in user mode unless told otherwise,
// and every description of the counters says which mode, with the simulated PMU too.
TEST_F(CliSimulatedPmu, TheCountingModeIsStatedWhereTheCountersAreDescribed)
{
    const auto plan = run({"run", "spin", "--dry-run", "--pmu", "simulated"});
    ASSERT_EQ(plan.status, 0) << plan.err;
    EXPECT_NE(plan.out.find("hardware events in user mode (kernel excluded)"), std::string::npos) << plan.out;
    const auto planAll = run({"run", "spin", "--dry-run", "--counters-mode", "all"});
    ASSERT_EQ(planAll.status, 0) << planAll.err;
    EXPECT_NE(planAll.out.find("hardware events in user and kernel mode"), std::string::npos) << planAll.out;
    const auto planJson = nlohmann::json::parse(run({"run", "spin", "--dry-run", "--format", "json"}).out);
    EXPECT_EQ(planJson.value("counters_mode", ""), "user");

    for (const auto& [given, mode, text] : std::vector<std::tuple<std::string, std::string, std::string>>{
             {"", "user", "hardware events in user mode (kernel excluded)"},
             {"all", "all", "hardware events in user and kernel mode"}}) {
        std::vector<std::string> args = {"run", "spin", "--reps", "2", "--duration", "0.05", "--pmu", "simulated"};
        if (!given.empty()) {
            args.insert(args.end(), {"--counters-mode", given});
        }
        const auto r = run(args);
        ASSERT_EQ(r.status, 0) << r.err;
        EXPECT_NE(r.out.find(text), std::string::npos) << "the run's report: " << r.out;
        const auto show = run({"show", "last"});
        ASSERT_EQ(show.status, 0) << show.err;
        EXPECT_NE(show.out.find("counters on the worker thread (CPU "), std::string::npos) << show.out;
        EXPECT_NE(show.out.find(text), std::string::npos) << show.out;
        EXPECT_NE(show.out.find("SIMULATED counters"), std::string::npos) << show.out;
        const auto json = nlohmann::json::parse(run({"show", "last", "--format", "json"}).out);
        EXPECT_EQ(json["spec"].value("counters_mode", ""), mode);
        EXPECT_EQ(json["environment"]["counters"].value("mode", ""), mode);
        EXPECT_EQ(json["environment"]["counters"].value("backend", ""), "simulated");
    }
}

}  // namespace
}  // namespace nf::test
