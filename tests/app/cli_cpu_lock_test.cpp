// Runs that do not silently share CPUs, through the `noisefloor` binary: while another process
// holds the lock of a CPU (/run/noisefloor/cpu/<n>.lock), a run on it refuses to start and names
// the holder, stores nothing, and with --share-cpus runs and stores the sharing as a warning.

#include <gtest/gtest.h>
#include <unistd.h>

#include <nlohmann/json.hpp>

#include "base/system_facts.h"
#include "engine/run/cpu_claim.h"
#include "tests/app/cli_process.h"

namespace nf::test {
namespace {

class CliCpuLocks : public CliTest {
protected:
    void SetUp() override
    {
        if (::geteuid() != 0) {
            GTEST_SKIP() << "the CPU locks live in /run/noisefloor: needs root";
        }
        const auto facts = base::readSystemFacts();
        ASSERT_FALSE(facts.allowedCpus.empty());
        m_cpu = std::to_string(facts.allowedCpus.back());
    }
    std::string m_cpu;
};

TEST_F(CliCpuLocks, ARunOnAHeldCpuRefusesAndNamesTheHolderUnlessToldToShare)
{
    auto held = engine::claimCpus({std::stoi(m_cpu)}, "the test's other run", false);
    ASSERT_TRUE(held) << held.error().message;
    ASSERT_EQ(held->locks.size(), 1u) << "CPU " << m_cpu << " is held by another process already";

    const std::vector<std::string> spin = {"run", "spin", "--cpu", m_cpu, "--reps", "2", "--duration", "0.05"};
    const auto refused = run(spin);
    EXPECT_EQ(refused.status, 1) << refused.err;
    EXPECT_NE(refused.err.find("CPU " + m_cpu + " is measured by another run, pid " + std::to_string(::getpid()) +
                               " (the test's other run)"),
              std::string::npos)
        << refused.err;
    EXPECT_EQ(run({"list", "--format", "json"}).out.find("\"id\""), std::string::npos);  // nothing stored

    auto args = spin;
    args.push_back("--share-cpus");
    const auto shared = run(args);
    ASSERT_EQ(shared.status, 0) << shared.err;
    const auto j = nlohmann::json::parse(run({"show", "1", "--format", "json"}).out);
    EXPECT_EQ(j["spec"]["share_cpus"], true) << j.dump();
    EXPECT_NE(j.dump().find("CPU " + m_cpu + " shared with another run (--share-cpus)"), std::string::npos) << j.dump();

    held->locks.clear();  // released: the next run takes the CPU itself
    const auto after = run(spin);
    EXPECT_EQ(after.status, 0) << after.err;
    EXPECT_EQ(nlohmann::json::parse(run({"show", "2", "--format", "json"}).out).dump().find("shared with"),
              std::string::npos);
}

}  // namespace
}  // namespace nf::test
