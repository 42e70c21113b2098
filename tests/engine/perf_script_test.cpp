// perf script imports held against FlameGraph's stackcollapse-perf.pl, run on the same real files
// (tests/data/import/real/PROVENANCE.md): the stacks noisefloor stores, named as that script names
// them, are its stacks with its counts. Where they differ by design it is said per file: the script
// weights a sample by its period where the header prints one (noisefloor counts samples), and drops a
// file's last sample when no blank line follows it. Then what an import makes of the options: the
// event, the CPUs, slices; and the files refused.

#include <gtest/gtest.h>

#include <algorithm>
#include <map>
#include <regex>
#include <set>
#include <sstream>

#include "engine/import/import_format.h"
#include "tests/support/read_whole.h"

namespace nf::engine {
namespace {

const std::string kReal = std::string(NF_IMPORT_SAMPLES) + "/real";

Result<ImportTable> importScript(const std::string& name, const ImportOptions& options = {})
{
    const ImportSource src{name, test::readWhole(kReal + "/" + name)};
    return findImportFormat("perf-script")->parse(src, options);
}

// A stored frame as stackcollapse-perf.pl (default options) names it: an unknown address by its
// object ("[unknown_dd]" -> "[dd]"), no module ("veth_xdp_rcv_[veth]"), nothing from the first
// parenthesis on (C++ arguments), no quotes, and Java's leading L dropped from a class path.
std::string asStackcollapse(std::string frame, bool java)
{
    static const std::regex unknownOf(R"(^\[unknown_(.+)\]$)");
    static const std::regex module(R"(^(.+)_\[[^\]]+\]$)");
    frame = std::regex_replace(frame, unknownOf, "[$1]");
    if (frame.front() != '[') {
        frame = std::regex_replace(frame, module, "$1");
    }
    if (const auto open = frame.find('('); open != std::string::npos && frame.find("(anonymous namespace)") != open) {
        frame.erase(open);
    }
    std::erase(frame, '"');
    std::erase(frame, '\'');
    if (java && frame.size() > 1 && frame.front() == 'L' && frame.find('/') != std::string::npos) {
        frame.erase(0, 1);
    }
    return frame;
}

std::map<std::string, long long> storedStacks(const ImportTable& table)
{
    std::map<std::string, long long> out;
    for (const auto& rep : table.profile->repetitions) {
        for (const auto& s : rep.stacks) {
            std::string stack;
            std::stringstream frames(s.stack);
            std::string frame;
            bool first = true;
            bool java = s.stack.rfind("java", 0) == 0;
            while (std::getline(frames, frame, ';')) {
                stack += (first ? "" : ";") + asStackcollapse(frame, java);
                first = false;
            }
            out[stack] += s.samples;
        }
    }
    return out;
}

std::map<std::string, long long> referenceStacks(const std::string& name)
{
    std::map<std::string, long long> out;
    std::istringstream in(test::readWhole(kReal + "/expected/" + name));
    std::string line;
    while (std::getline(in, line)) {
        const auto space = line.rfind(' ');
        out[line.substr(0, space)] += std::stoll(line.substr(space + 1));
    }
    return out;
}

struct Case {
    std::string file;
    std::string reference;
    std::string event;
    long long period;  // the script's weight of every sample (the file's one period), 1 where none is printed
    bool lastDropped;  // no blank line after the file's last sample
};

TEST(PerfScriptImport, StacksAreThoseStackcollapsePerfFolds)
{
    const std::vector<Case> cases = {
        {"perf-script_iperf_pid-tid_flamegraph.txt", "perf-script_iperf_pid-tid_flamegraph.folded", "", 1, true},
        {"perf-script_numa_32-cpus_kallsyms_flamegraph.txt", "perf-script_numa_32-cpus_kallsyms_flamegraph.folded", "",
         1, true},
        {"perf-script_dd_period_unknown-frames_flamegraph.txt",
         "perf-script_dd_period_unknown-frames_flamegraph.folded", "", 10101010, true},
        {"perf-script_cycles-instructions_lbr_flamegraph.txt",
         "perf-script_cycles-instructions_lbr_flamegraph.cycles.folded", "cycles", 1, false},
        {"perf-script_cycles-instructions_lbr_flamegraph.txt", "perf-script_cycles-instructions_lbr_flamegraph.folded",
         "instructions", 1, false},
        {"perf-script_java_unindented-frames_flamegraph.txt", "perf-script_java_unindented-frames_flamegraph.folded",
         "", 1, false},
    };
    for (const auto& c : cases) {
        SCOPED_TRACE(c.file + " " + c.event);
        ImportOptions options;
        options.event = c.event;
        auto table = importScript(c.file, options);
        ASSERT_TRUE(table.ok()) << table.error().message;
        ASSERT_TRUE(table->profile.has_value());
        auto ours = storedStacks(*table);
        for (auto& [stack, n] : ours) {
            n *= c.period;
        }
        const auto theirs = referenceStacks(c.reference);
        if (c.lastDropped) {  // one stack, once, is ours alone
            long long extra = 0;
            for (auto& [stack, n] : ours) {
                const auto it = theirs.find(stack);
                const long long d = n - (it == theirs.end() ? 0 : it->second);
                if (d == c.period) {
                    n -= c.period;
                    ++extra;
                    break;
                }
            }
            EXPECT_EQ(extra, 1);
            std::erase_if(ours, [](const auto& kv) { return kv.second == 0; });
        }
        EXPECT_EQ(ours, theirs);
    }
}

// With varying periods the script's counts are period sums: the stacks are the same set.
TEST(PerfScriptImport, RustSymbolOffsetsAndVaryingPeriodsGiveTheScriptsStacks)
{
    auto table = importScript("perf-script_rust_sym-offset_cycles-u_flamegraph.txt");
    ASSERT_TRUE(table.ok()) << table.error().message;
    std::set<std::string> ours;
    for (const auto& [stack, n] : storedStacks(*table)) {
        ours.insert(stack);
    }
    std::set<std::string> theirs;
    for (const auto& [stack, n] : referenceStacks("perf-script_rust_sym-offset_cycles-u_flamegraph.folded")) {
        theirs.insert(stack);
    }
    EXPECT_EQ(ours, theirs);
    EXPECT_EQ(table->profile->summary.samples, 58U);
    EXPECT_EQ(table->profile->summary.event, "cycles:u");
}

TEST(PerfScriptImport, SelfCountsAreTheLeafFrames)
{
    auto table = importScript("perf-script_dd_period_unknown-frames_flamegraph.txt");
    ASSERT_TRUE(table.ok()) << table.error().message;
    const auto& rep = table->profile->repetitions.at(0);
    std::map<std::string, int> self;
    for (const auto& c : rep.counts) {
        self[rep.symbols.at(static_cast<std::size_t>(c.symbol))] += c.samples;
    }
    // Read off the file: 11 samples; __srcu_read_unlock ends three stacks, fsnotify one.
    EXPECT_EQ(self["__srcu_read_unlock"], 3);
    EXPECT_EQ(self["fsnotify"], 1);
    int all = 0;
    for (const auto& [name, n] : self) {
        all += n;
    }
    EXPECT_EQ(all, 11);
    ASSERT_EQ(rep.chunks.size(), 1U);
    EXPECT_EQ(rep.chunks[0].samples, 11);
    EXPECT_EQ(rep.chunks[0].cpu, -1);
}

TEST(PerfScriptImport, CpusAreChosenAndPooled)
{
    ImportOptions options;
    options.cpus = {0, 2};
    auto table = importScript("perf-script_iperf_pid-tid_flamegraph.txt", options);
    ASSERT_TRUE(table.ok()) << table.error().message;
    EXPECT_EQ(table->profile->summary.samples, 101U);  // CPU 0: 51, CPU 2: 50 (counted by hand)
    ASSERT_EQ(table->profile->summary.cpus.size(), 1U);
    EXPECT_EQ(table->profile->summary.cpus[0].role, "CPU 0,2");
}

TEST(PerfScriptImport, SlicesAreRepetitionsOfTheirTime)
{
    // numa: 200 samples over 60.733 ms (30143.481555 to 30143.542288).
    ImportOptions options;
    options.slice = 0.02;
    auto table = importScript("perf-script_numa_32-cpus_kallsyms_flamegraph.txt", options);
    ASSERT_TRUE(table.ok()) << table.error().message;
    ASSERT_EQ(table->repetitions.size(), 3U);
    ASSERT_EQ(table->profile->repetitions.size(), 3U);
    double inSlices = 0;
    for (std::size_t r = 0; r < 3; ++r) {
        EXPECT_EQ(table->profile->repetitions[r].repetition, static_cast<int>(r));
        EXPECT_DOUBLE_EQ(table->repetitions[r].at(0).values[1], 0.02);
        inSlices += table->repetitions[r].at(0).values[0];
    }
    EXPECT_LT(inSlices, 200);  // the last 0.733 ms is a part slice, left out and said
    EXPECT_EQ(static_cast<double>(table->profile->summary.samples), inSlices);
    const auto said = [&](const std::string& part) {
        return std::any_of(table->notes.begin(), table->notes.end(),
                           [&](const std::string& n) { return n.find(part) != std::string::npos; });
    };
    EXPECT_TRUE(said("a part slice")) << testing::PrintToString(table->notes);
    EXPECT_TRUE(said("mostly sampling noise")) << testing::PrintToString(table->notes);  // 0.02 s: under 100
    EXPECT_EQ(table->host, "xxxxxclusters-r38xl-i-xxxxxxxx");  // its perf script --header lines
    EXPECT_EQ(table->kernel, "3.13.0-49-generic");
}

TEST(PerfScriptImport, FilesJoinAsRepetitions)
{
    const auto* format = findImportFormat("perf-script");
    const std::string name = "perf-script_iperf_pid-tid_flamegraph.txt";
    const ImportSource src{name, test::readWhole(kReal + "/" + name)};
    auto table = parseImportFiles(*format, {src, src}, {});
    ASSERT_TRUE(table.ok()) << table.error().message;
    ASSERT_EQ(table->profile->repetitions.size(), 2U);
    EXPECT_EQ(table->profile->repetitions[1].repetition, 1);
    for (const auto& c : table->profile->repetitions[1].counts) {
        EXPECT_EQ(c.repetition, 1);
    }
    EXPECT_EQ(table->profile->summary.samples, 402U);
}

TEST(PerfScriptImport, RefusesWhatIsNotAProfile)
{
    const auto* format = findImportFormat("perf-script");
    const auto parse = [&](const std::string& text, const ImportOptions& options = {}) {
        return format->parse({"x.txt", text}, options);
    };
    const auto refused = [](const Result<ImportTable>& t, const std::string& part) {
        ASSERT_FALSE(t.ok());
        EXPECT_NE(t.error().message.find(part), std::string::npos) << t.error().message;
        EXPECT_EQ(t.error().message.find('\n'), std::string::npos) << t.error().message;
    };
    refused(parse("# ========\n# captured on: today\n# ========\n#\n"), "no samples");
    refused(parse(""), "no samples");
    refused(parse("\tffffffff8103ce3b native_safe_halt ([kernel.kallsyms])\n"), "outside a sample");
    refused(parse("swapper     0 [000] 158665.570607: cpu-clock: \n\tnot a frame\n"), "x.txt:2:");
    refused(parse("swapper     0 [000] 158665.570607: cpu-clock: \n"), "1 sample");
    const std::string two =
        "a 1 [000] 1.0: cpu-clock: \n\tffff f ([kernel.kallsyms])\n\n"
        "a 1 [001] 1.0: cpu-clock: \n\tffff f ([kernel.kallsyms])\n\n";
    refused(parse(two), "same time");
    ImportOptions event;
    event.event = "cycles";
    refused(parse(two, event), "--event cycles");
    const auto mixed = parse(
        "a 1 [000] 1.0: cycles: \n\tffff f ([kernel.kallsyms])\n\na 1 [000] 1.1: instructions: \n\tffff f "
        "([kernel.kallsyms])\n\n");
    refused(mixed, "choose one with --event");
    refused(parse("a 1 [99999999999] 1.0: cpu-clock: \n\tffff f ([kernel.kallsyms])\n\n"),
            "x.txt:1: a CPU or time out of range");
    ImportOptions slice;
    slice.slice = 1;
    refused(parse("a 1 [000] 1.0: cpu-clock: \n\tffff f ([kernel.kallsyms])\n\na 1 [000] 1.5: cpu-clock: \n\tffff f "
                  "([kernel.kallsyms])\n\n",
                  slice),
            "less than one slice");
}

TEST(PerfScriptImport, NamesFramesAsRunProfileDoes)
{
    const std::string text =
        "ksoftirqd/1    18 [001]  100.000: 250000 cpu-clock: \n"
        "\tffffffffc0a1b2c3 veth_xdp_rcv+0x1f3 ([veth])\n"
        "\tffffffff81000000 [unknown] ([kernel.kallsyms])\n"
        "\t7f0000001000 [unknown] (/usr/lib/x86_64-linux-gnu/libc.so.6)\n"
        "\t7f0000002000 [unknown] ([unknown])\n"
        "\n"
        "ksoftirqd/1    18 [001]  100.004: 250000 cpu-clock: \n"
        "\tffffffff81000100 __napi_poll+0x20 ([kernel.kallsyms])\n"
        "\n";
    auto table = findImportFormat("perf-script")->parse({"x.txt", text}, {});
    ASSERT_TRUE(table.ok()) << table.error().message;
    const auto& rep = table->profile->repetitions.at(0);
    std::set<std::string> stacks;
    for (const auto& s : rep.stacks) {
        stacks.insert(s.stack);
    }
    EXPECT_EQ(stacks,
              (std::set<std::string>{"ksoftirqd/1;[unknown];[unknown_libc.so.6];[unknown_kernel];veth_xdp_rcv_[veth]",
                                     "ksoftirqd/1;__napi_poll"}));
    EXPECT_NEAR(table->repetitions.at(0).at(0).values[1], 0.008, 1e-9);  // 4 ms apart: 2 x 4 ms
}

}  // namespace
}  // namespace nf::engine
