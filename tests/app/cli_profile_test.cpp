// run --profile on this machine's kernel (cpu-clock: no hardware PMU here), then compare's "where
// the time went" and export --format folded: the retpoline variant of indirect-call spends a
// significant share of its samples in the retpoline thunk, which the direct variant never enters.
// Then profiles recorded elsewhere: real perf script output imported under two labels, sliced into
// repetitions, compared across the runs, and the files refused.

#include <gtest/gtest.h>
#include <unistd.h>

#include <fstream>
#include <nlohmann/json.hpp>

#include "tests/app/cli_process.h"

namespace nf::test {
namespace {

using CliProfile = CliTest;

TEST_F(CliProfile, TheRetpolineThunkIsWhereTheRetpolineVariantsTimeGoes)
{
    if (::geteuid() != 0) {
        GTEST_SKIP() << "sampling whole CPUs needs root";
    }
    const auto ran =
        run({"run", "indirect-call", "--variant", "direct:call=direct", "--variant", "retpoline:call=retpoline",
             "--reps", "2", "--duration", "1", "--warmup", "0.1", "--profile=999", "--layouts", "0"});
    ASSERT_EQ(ran.status, 0) << ran.err;

    const auto text = run({"compare", "last"});
    ASSERT_EQ(text.status, 0) << text.err;
    EXPECT_NE(text.out.find("where the time went"), std::string::npos) << text.out;
    EXPECT_NE(text.out.find("at 999 Hz on CPU"), std::string::npos) << text.out;
    std::string unwrapped = text.out;  // the legend wraps at 72 columns wherever its words fall
    for (auto at = unwrapped.find("\n  "); at != std::string::npos; at = unwrapped.find("\n  ", at)) {
        unwrapped.replace(at, 3, " ");
    }
    EXPECT_NE(unwrapped.find("(self, not its callees"), std::string::npos) << text.out;
    EXPECT_NE(text.out.find("retpoline against direct, per chunk pair ("), std::string::npos) << text.out;
    EXPECT_NE(text.out.find("    per op: "), std::string::npos) << text.out;  // ns per op beside the shares
    // GCC's thunk (__x86_indirect_thunk_rax, cut past two thirds) or clang's (__llvm_retpoline_r11).
    EXPECT_TRUE(text.out.find("__x86_indirec~") != std::string::npos ||
                text.out.find("__llvm_retpoline") != std::string::npos)
        << text.out;
    for (std::size_t at = 0, end = 0; at < text.out.size(); at = end + 1) {
        end = text.out.find('\n', at);
        end = end == std::string::npos ? text.out.size() : end;
        EXPECT_LE(end - at, 72U) << text.out.substr(at, end - at);
    }

    const auto json = run({"compare", "last", "--format", "json"});
    ASSERT_EQ(json.status, 0) << json.err;
    const auto j = nlohmann::json::parse(json.out);
    EXPECT_EQ(j["profile"]["hz"], 999);
    EXPECT_GT(j["profile"]["samples"].get<int>(), 1000);  // about 999 a second for 4 s of chunks
    bool found = false;
    for (const auto& c : j["comparisons"]) {
        if (!c.contains("profile")) {
            continue;
        }
        for (const auto& row : c["profile"]) {
            const auto symbol = row["symbol"].get<std::string>();
            if (symbol.rfind("__x86_indirect_thunk", 0) == 0 || symbol.rfind("__llvm_retpoline", 0) == 0) {
                found = true;
                EXPECT_EQ(row["share_pct"]["direct"].get<double>(), 0.0);
                EXPECT_GT(row["share_pct"]["retpoline"].get<double>(), 0.5);
                EXPECT_GT(row["ci_low_pp"].get<double>(), 0.0);
                EXPECT_LT(row["q_value"].get<double>(), 0.05);
                EXPECT_EQ(row["role"], "worker");
            }
        }
    }
    EXPECT_TRUE(found) << json.out;

    const auto folded = run({"export", "last", "--format", "folded"});
    ASSERT_EQ(folded.status, 0) << folded.err;
    EXPECT_NE(folded.out.find("retpoline;cpu"), std::string::npos) << folded.out;
    EXPECT_NE(folded.out.find("direct;"), std::string::npos);
    EXPECT_TRUE(folded.out.find("__x86_indirect_thunk") != std::string::npos ||
                folded.out.find("__llvm_retpoline") != std::string::npos);
    EXPECT_EQ(folded.out.back(), '\n');
}

TEST_F(CliProfile, AnUnprofiledRunHasNoStacksToExport)
{
    ASSERT_EQ(run({"run", "spin", "--reps", "1", "--duration", "0.05", "--warmup", "0.01"}).status, 0);
    const auto folded = run({"export", "last", "--format", "folded"});
    EXPECT_EQ(folded.status, 1);
    EXPECT_NE(folded.err.find("has no profile (run it with --profile)"), std::string::npos) << folded.err;
    EXPECT_TRUE(folded.out.empty());
    const auto text = run({"compare", "last"});
    EXPECT_EQ(text.out.find("where the time went"), std::string::npos);
}

std::string real(const std::string& name)
{
    return std::string(NF_IMPORT_SAMPLES) + "/real/" + name;
}

// FlameGraph's numa recording (32 CPUs, 61 ms): the first 16 CPUs under one label, the others under
// another, each cut into 10 ms slices. Its last 16 CPUs spend more of their samples idle.
TEST_F(CliProfile, ImportedRecordingsCompareAcrossLabels)
{
    const auto numa = real("perf-script_numa_32-cpus_kallsyms_flamegraph.txt");
    auto low =
        run({"import", "perf-script", numa, "--label", "low", "--slice", "0.01", "--cpu", "0-15", "--kernel", "k"});
    ASSERT_EQ(low.status, 0) << low.err;
    EXPECT_NE(low.out.find("imported 6 repetitions of perf-script"), std::string::npos) << low.out;
    EXPECT_NE(low.out.find("part slice"), std::string::npos) << low.out;
    auto high = run({"import", numa, "--label", "high", "--slice", "0.01", "--cpu", "16-23,24-31", "--kernel", "k"});
    ASSERT_EQ(high.status, 0) << high.err;
    EXPECT_NE(high.out.find("detected perf-script"), std::string::npos) << high.out;
    const auto text = run({"compare", "--label", "low", "--label", "high"});
    ASSERT_EQ(text.status, 0) << text.err;
    EXPECT_NE(text.out.find("imported from perf-script"), std::string::npos) << text.out;
    EXPECT_NE(text.out.find("high against low, per repetition (11 repetitions)"), std::string::npos) << text.out;
    const auto json = run({"compare", "--label", "low", "--label", "high", "--format", "json"});
    ASSERT_EQ(json.status, 0) << json.err;
    const auto j = nlohmann::json::parse(json.out);
    EXPECT_EQ(j["profile"]["source"], "perf-script");
    bool idle = false;
    for (const auto& c : j["comparisons"]) {
        for (const auto& row : c.value("profile", nlohmann::json::array())) {
            if (row["symbol"] == "native_safe_halt") {
                idle = true;
                EXPECT_EQ(row["role"], "pooled");
                EXPECT_GT(row["ci_low_pp"].get<double>(), 0);
                EXPECT_LT(row["q_value"].get<double>(), 0.05);
            }
        }
    }
    EXPECT_TRUE(idle) << json.out;
    const auto folded = run({"export", "--format", "folded", "1"});
    ASSERT_EQ(folded.status, 0) << folded.err;
    EXPECT_EQ(folded.out.rfind("default;CPU_0-15;", 0), 0U) << folded.out;
}

// One recording a side: shares and differences, untested, and never "nothing changed".
TEST_F(CliProfile, OneFileASideSaysItCannotTell)
{
    ASSERT_EQ(run({"import", real("perf-script_iperf_pid-tid_flamegraph.txt"), "--label", "one"}).status, 0);
    ASSERT_EQ(run({"import", real("perf-script_numa_32-cpus_kallsyms_flamegraph.txt"), "--label", "two"}).status, 0);
    const auto text = run({"compare", "--label", "one", "--label", "two"});
    ASSERT_EQ(text.status, 0) << text.err;
    EXPECT_NE(text.out.find("untested"), std::string::npos) << text.out;
    EXPECT_EQ(text.out.find("no symbol's share changed"), std::string::npos) << text.out;
    EXPECT_NE(text.out.find("(boots unknown)"), std::string::npos) << text.out;  // imports: not this boot
}

TEST_F(CliProfile, AFileWithoutSamplesOrWithSeveralEventsIsRefused)
{
    const auto empty = m_dir.file("empty.txt");
    std::ofstream(empty) << "# ========\n# captured on    : Sun Dec  6 2026\n# ========\n#\n";
    auto r = run({"import", "perf-script", empty, "--label", "x"});
    EXPECT_EQ(r.status, 2);
    EXPECT_NE(r.err.find("no samples in it"), std::string::npos) << r.err;
    r = run({"import", real("perf-script_cycles-instructions_lbr_flamegraph.txt"), "--label", "x"});
    EXPECT_EQ(r.status, 2);
    EXPECT_NE(r.err.find("choose one with --event"), std::string::npos) << r.err;
    r = run({"import", real("perf-report_n-samples_two-events_cache-branch-misses_oltean.txt"), "--label", "x",
             "--event", "branch-misses"});
    EXPECT_EQ(r.status, 0) << r.err;
    r = run({"import", real("perf-report_n-samples_two-events_cache-branch-misses_oltean.txt"), "--label", "x",
             "--slice", "1"});
    EXPECT_EQ(r.status, 2);
    EXPECT_NE(r.err.find("--cpu and --slice read perf script output, not perf-report"), std::string::npos) << r.err;
    r = run({"import", real("perf-script_iperf_pid-tid_flamegraph.txt"), "--label", "x", "--cpu", "0-1x"});
    EXPECT_EQ(r.status, 2);
    EXPECT_NE(r.err.find("--cpu '0-1x': not a CPU list"), std::string::npos) << r.err;
    const auto list = run({"list", "--format", "json"});
    EXPECT_EQ(nlohmann::json::parse(list.out).size(), 1U);  // only the branch-misses report was stored
}

}  // namespace
}  // namespace nf::test
