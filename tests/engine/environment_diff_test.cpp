// What differs between runs compared across boots.

#include <gtest/gtest.h>

#include "engine/analysis/environment_diff.h"

namespace nf::engine {
namespace {

RunFacts facts(const std::string& name, const std::string& kernel, const std::string& governor, int cpu)
{
    RunFacts r{name, kernel, "lab1", "Xeon", "0.1.0", nlohmann::json::object(), {{"workload", "spin"}}};
    r.environment["system"] = {{"governors", {{"0", governor}, {"1", governor}}}, {"boost", "off"}};
    r.environment["measurement"] = {{"worker_cpu", cpu}};
    return r;
}

TEST(EnvironmentDiff, SameMachineOtherKernelHasNoWarnings)
{
    const std::vector<RunFacts> runs = {facts("run 1", "6.1", "performance", 1),
                                        facts("run 2", "6.1+p", "performance", 1)};
    EXPECT_TRUE(environmentDifferences(runs).empty());
    EXPECT_EQ(kernelsLine(runs), "kernels: 6.1 (run 1) vs 6.1+p (run 2)");
}

TEST(EnvironmentDiff, GovernorBoostCoreAndVersionAreNamed)
{
    auto a = facts("run 1", "6.1", "performance", 1);
    auto b = facts("run 2", "6.1", "powersave", 0);
    b.environment["system"]["boost"] = "on";
    b.toolVersion = "0.2.0";
    const auto lines = environmentDifferences({a, b});
    ASSERT_EQ(lines.size(), 4u);
    EXPECT_EQ(lines[0], "CPU governor differs: performance (run 1) vs powersave (run 2)");
    EXPECT_EQ(lines[1], "CPU boost differs: off (run 1) vs on (run 2)");
    EXPECT_EQ(lines[2], "measuring core differs: CPU 1 (run 1) vs CPU 0 (run 2)");
    EXPECT_EQ(lines[3], "noisefloor version differs: 0.1.0 (run 1) vs 0.2.0 (run 2)");
    EXPECT_EQ(kernelsLine({a, b}), "kernels: 6.1 (run 1) vs 6.1 (run 2) -- the same kernel");
}

TEST(EnvironmentDiff, UnknownFactsAreNotCompared)
{
    auto a = facts("run 1", "6.1", "performance", 1);
    RunFacts imported{"run 2", "", "", "", "0.1.0", {{"import", {{"format", "sar"}}}}, {{"workload", "spin"}}};
    EXPECT_TRUE(environmentDifferences({a, imported}).empty());
    EXPECT_EQ(kernelsLine({a, imported}), "kernels: 6.1 (run 1) vs unknown (run 2)");
}

}  // namespace
}  // namespace nf::engine
