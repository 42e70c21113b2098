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
    EXPECT_EQ(kernelsLine({a, b}),
              "kernels: 6.1 (run 1) vs 6.1 (run 2) -- the same release (builds unknown: two builds without "
              "LOCALVERSION share it)");
}

// Two builds of one release (no LOCALVERSION) are told apart by their build ids; what differs
// besides the kernel (the .config, a mitigation, the microcode) is named.
TEST(EnvironmentDiff, BuildsOfOneReleaseAreToldApartAndTheirMitigationsCompared)
{
    auto a = facts("run 1", "6.1", "performance", 1);
    auto b = facts("run 2", "6.1", "performance", 1);
    a.environment["kernel"] = {
        {"build_id", "3f2a9c0011223344556677889900aabbccddeeff"},
        {"config_sha256", "aa11"},
        {"microcode", "0xf0"},
        {"vulnerabilities", {{"spectre_v2", "Mitigation: Retpolines"}, {"mds", "Not affected"}}}};
    b.environment["kernel"] = {
        {"build_id", "9b1c000011223344556677889900aabbccddeeff"},
        {"config_sha256", "bb22"},
        {"microcode", "0xf0"},
        {"vulnerabilities", {{"spectre_v2", "Mitigation: Enhanced IBRS"}, {"mds", "Not affected"}}}};
    EXPECT_EQ(kernelsLine({a, b}),
              "kernels: 6.1 build 3f2a9c001122 (run 1) vs 6.1 build 9b1c00001122 (run 2) -- the same release, "
              "different builds");
    const auto lines = environmentDifferences({a, b});
    ASSERT_EQ(lines.size(), 2u);
    EXPECT_EQ(lines[0], "kernel .config (sha256) differs: aa11 (run 1) vs bb22 (run 2)");
    EXPECT_EQ(lines[1],
              "mitigation of spectre_v2 differs: Mitigation: Retpolines (run 1) vs Mitigation: Enhanced "
              "IBRS (run 2)");
    b.environment["kernel"]["build_id"] = a.environment["kernel"]["build_id"];
    EXPECT_EQ(kernelsLine({a, b}),
              "kernels: 6.1 build 3f2a9c001122 (run 1) vs 6.1 build 3f2a9c001122 (run 2) -- the same kernel build");
}

// A live test's interface set up otherwise in one boot than the other is named: it is not the kernel.
TEST(EnvironmentDiff, TestedInterfaceSettingsThatDifferAreNamed)
{
    auto a = facts("run 1", "6.1", "performance", 1);
    auto b = facts("run 2", "6.1+p", "performance", 1);
    a.testedState = {{"eth0 coalescing", "rx-usecs 8"}, {"eth0 driver", "mlx5_core 6.1"}, {"eth0 gro", "unavailable"}};
    b.testedState = {{"eth0 coalescing", "rx-usecs 50"}, {"eth0 driver", "mlx5_core 6.1"}, {"eth0 gro", "on"}};
    const auto lines = environmentDifferences({a, b});
    ASSERT_EQ(lines.size(), 1u);
    EXPECT_EQ(lines[0], "eth0 coalescing differs: rx-usecs 8 (run 1) vs rx-usecs 50 (run 2)");
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
