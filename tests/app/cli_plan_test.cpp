// `noisefloor run --dry-run`: the time a design takes (engine/catalog/plan_time.h), as text and as
// JSON (--format json, what the GUI's "Retry when free" reads), with the CPUs it would measure on
// and the runs measuring on them now.

#include <gtest/gtest.h>
#include <unistd.h>

#include <nlohmann/json.hpp>

#include "base/system_facts.h"
#include "engine/run/cpu_claim.h"
#include "tests/app/cli_process.h"

namespace nf::test {
namespace {

using CliPlan = CliTest;

const std::vector<std::string> kDesign = {"run",        "spin", "--variant", "a",   "--variant", "b", "--reps",   "3",
                                          "--duration", "2",    "--warmup",  "0.5", "--cpu",     "0", "--dry-run"};

std::vector<std::string> with(std::vector<std::string> args, const std::vector<std::string>& more)
{
    args.insert(args.end(), more.begin(), more.end());
    return args;
}

TEST_F(CliPlan, TheDryRunSaysHowLongTheDesignTakes)
{
    const auto text = run(kDesign);
    ASSERT_EQ(text.status, 0) << text.err;
    EXPECT_NE(text.out.find("\n  time about 13 s (6 variant-repetitions of 2 s, plus 0.5 s of warmup per variant)\n"),
              std::string::npos)
        << text.out;

    const auto json = run(with(kDesign, {"--format", "json"}));
    ASSERT_EQ(json.status, 0) << json.err;
    const auto j = nlohmann::json::parse(json.out);
    EXPECT_EQ(j["time"]["text"], "about 13 s (6 variant-repetitions of 2 s, plus 0.5 s of warmup per variant)");
    EXPECT_DOUBLE_EQ(j["time"]["total_s"].get<double>(), 13);
    EXPECT_FALSE(j["time"]["at_most"].get<bool>());
    EXPECT_EQ(j["cpus"], nlohmann::json::array({0}));

    const auto decided = run(with(kDesign, {"--until", "decided", "--max-time", "60", "--format", "json"}));
    ASSERT_EQ(decided.status, 0) << decided.err;
    EXPECT_EQ(nlohmann::json::parse(decided.out)["time"]["text"],
              "at most 1 min 1 s (until decided: at most 1 min of measuring, plus 0.5 s of warmup per variant)");

    const auto sweep = run(with(kDesign, {"--sweep", "work=10,20", "--format", "json"}));
    ASSERT_EQ(sweep.status, 0) << sweep.err;
    EXPECT_EQ(nlohmann::json::parse(sweep.out)["time"]["text"],
              "about 26 s over 2 sweep points (each 6 variant-repetitions of 2 s, plus 0.5 s of warmup per variant)");

    const auto notDry = run({"run", "spin", "--format", "json"});
    EXPECT_EQ(notDry.status, 2);
    EXPECT_NE(notDry.err.find("--format is for --dry-run"), std::string::npos) << notDry.err;
}

// Where the harness's threads go: --housekeeping's CPUs, else the allowed CPUs the run does not
// measure on, else (none left) the measured ones, said as such.
TEST_F(CliPlan, TheDryRunSaysWhereTheHarnessRuns)
{
    const auto cpus = base::readSystemFacts().allowedCpus;
    const std::string first = std::to_string(cpus.front());
    const auto alone = run({"run", "spin", "--cpu", first, "--dry-run", "--format", "json"});
    ASSERT_EQ(alone.status, 0) << alone.err;
    const auto housekeeping = nlohmann::json::parse(alone.out)["housekeeping"];
    EXPECT_EQ(housekeeping.size(), cpus.size() - 1) << housekeeping;
    if (cpus.size() < 2) {
        return;
    }
    const std::string second = std::to_string(cpus[1]);
    const auto given = run({"run", "spin", "--cpu", first, "--housekeeping", second, "--dry-run"});
    ASSERT_EQ(given.status, 0) << given.err;
    EXPECT_NE(given.out.find("\n  harness (sampler, recorder) on CPU " + second + "\n"), std::string::npos)
        << given.out;
    const auto json = run({"run", "spin", "--cpu", first, "--housekeeping", second, "--dry-run", "--format", "json"});
    EXPECT_EQ(nlohmann::json::parse(json.out)["housekeeping"], nlohmann::json::array({cpus[1]}));
    if (cpus.size() == 2) {  // the generator and the receiver take both: the harness shares them
        const auto none = run({"run", "udp-rx", "-p", "tx_cpu=" + first, "-p", "rx_cpu=" + second, "--dry-run"});
        ASSERT_EQ(none.status, 0) << none.err;
        EXPECT_NE(none.out.find("harness (sampler, recorder) on the measured CPUs " + base::formatCpuList(cpus) +
                                " (no other CPU allowed)"),
                  std::string::npos)
            << none.out;
    }
    const auto command = run({"run", "command", "-p", "cmd=true", "--housekeeping", first, "--dry-run"});
    EXPECT_EQ(command.status, 2);
    EXPECT_NE(command.err.find("--housekeeping " + first + ": command has no harness thread"), std::string::npos)
        << command.err;
}

// --setups: the plan says how many phases each repetition has, in text and JSON; without it a run
// side by side gets one per 20 chunk rounds, at least one per variant, and a run that is not side
// by side none.
TEST_F(CliPlan, TheDryRunSaysTheSetups)
{
    const auto text = run({"run", "udp-rx", "--variant", "a", "--variant", "b", "--setups", "4", "--dry-run"});
    ASSERT_EQ(text.status, 0) << text.err;
    EXPECT_NE(text.out.find("\n  4 setups per repetition: the variants' receivers start anew in each"),
              std::string::npos)
        << text.out;
    const auto json =
        run({"run", "udp-rx", "--variant", "a", "--variant", "b", "--setups", "4", "--dry-run", "--format", "json"});
    EXPECT_EQ(nlohmann::json::parse(json.out)["setups"], 4);
    const auto shortRun = run({"run", "udp-rx", "--variant", "a", "--variant", "b", "--dry-run", "--format", "json"});
    EXPECT_EQ(nlohmann::json::parse(shortRun.out)["setups"], 2) << "40 rounds of 1 s: one setup per variant";
    const auto tenSeconds =
        run({"run", "udp-rx", "--variant", "a", "--variant", "b", "--duration", "10", "--dry-run", "--format", "json"});
    EXPECT_EQ(nlohmann::json::parse(tenSeconds.out)["setups"], 20) << "400 rounds: a setup per 20";
    EXPECT_NE(nlohmann::json::parse(tenSeconds.out)["time"]["text"].get<std::string>().find(
                  "of warmup in each of 100 setups"),
              std::string::npos)
        << tenSeconds.out;
    const auto inProcess = run({"run", "spin", "--variant", "a", "--variant", "b", "--dry-run", "--format", "json"});
    EXPECT_TRUE(nlohmann::json::parse(inProcess.out)["setups"].is_null()) << inProcess.out;
}

TEST_F(CliPlan, TheJsonPlanNamesTheRunsOnItsCpus)
{
    if (::geteuid() != 0) {
        GTEST_SKIP() << "the CPU locks live in /run/noisefloor: needs root";
    }
    auto held = engine::claimCpus({0}, "the test's other run", false);
    if (!held) {
        GTEST_SKIP() << "CPU 0 is measured by another test's run: " << held.error().message;
    }
    const auto json = run(with(kDesign, {"--format", "json"}));
    ASSERT_EQ(json.status, 0) << json.err;
    const auto inUse = nlohmann::json::parse(json.out)["cpus_in_use"];
    ASSERT_EQ(inUse.size(), 1u) << json.out;
    EXPECT_EQ(inUse[0].get<std::string>().rfind("CPU 0: pid " + std::to_string(::getpid()) + " ", 0), 0u) << json.out;
}

}  // namespace
}  // namespace nf::test
