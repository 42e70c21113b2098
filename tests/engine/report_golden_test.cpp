// The compact report's layout, kept by golden files (tests/data/report/*.txt): an in-process run
// (paired chunks), a live run (eight rates and costs per packet, a unit multiple, drops near zero),
// across runs (vanilla against patched) and a sweep, each from a seeded simulation. The imported
// layout is kept by tests/app/cli_report_test.cpp on real perf stat files. Every layout is checked
// for 72 columns, the realistic ones for 25 lines. NF_UPDATE_GOLDEN=1 rewrites the files; review
// the diff.

#include <gtest/gtest.h>

#include <algorithm>
#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <iterator>
#include <map>
#include <random>
#include <regex>
#include <set>
#include <sstream>

#include "engine/report/comparison_report.h"
#include "engine/report/sweep_report.h"
#include "engine/report/text_table.h"

namespace nf::engine {
namespace {

// Deterministic noise on every platform: the sum of four uniforms from mt19937 (whose output the
// standard fixes), centred, about N(0, 1/3).
class Noise {
public:
    explicit Noise(unsigned seed) : m_gen(seed) {}
    double operator()()
    {
        double sum = 0;
        for (int i = 0; i < 4; ++i) {
            sum += (static_cast<double>(m_gen()) + 0.5) / 4294967296.0;
        }
        return sum - 2;
    }

private:
    std::mt19937 m_gen;
};

void expectGolden(const std::string& name, const std::string& text)
{
    const std::string path = std::string(NF_REPORT_GOLDEN) + "/" + name;
    if (std::getenv("NF_UPDATE_GOLDEN") != nullptr) {
        std::ofstream(path, std::ios::binary) << text;
    }
    std::ifstream in(path, std::ios::binary);
    ASSERT_TRUE(in) << path << " is missing (NF_UPDATE_GOLDEN=1 writes it)";
    std::stringstream want;
    want << in.rdbuf();
    EXPECT_EQ(text, want.str()) << "the layout of " << name << " changed; NF_UPDATE_GOLDEN=1 rewrites it";
    std::istringstream lines(text);
    for (std::string line; std::getline(lines, line);) {
        EXPECT_LE(columns(line), 72u) << name << ": " << line;
    }
}

void expectWithinAMail(const std::string& text)
{
    std::istringstream lines(text);
    for (std::string line; std::getline(lines, line);) {
        EXPECT_LE(columns(line), 72u) << line;
    }
}

std::size_t lineCount(const std::string& text)
{
    return static_cast<std::size_t>(std::count(text.begin(), text.end(), '\n'));
}

// The line of the table that starts with `name` (after the "* " or "  " mark), "" if none.
std::string rowOf(const std::string& text, const std::string& name)
{
    for (const char* mark : {"\n* ", "\n  "}) {
        const auto at = text.find(mark + name + " ");
        if (at != std::string::npos) {
            return text.substr(at + 1, text.find('\n', at + 1) - at - 1);
        }
    }
    return "";
}

// The name `shown` stands for: the full name the legend below the table gives it ("short = full"),
// else `shown` itself. Exactly one name: a legend that keys it twice gives "".
std::string fullName(const std::string& text, const std::string& shown)
{
    std::string full = shown;
    int found = 0;
    for (auto at = text.find("\n" + shown + " = "); at != std::string::npos;
         at = text.find("\n" + shown + " = ", at + 1)) {
        const auto start = at + shown.size() + 4;
        full = text.substr(start, text.find('\n', start) - start);
        ++found;
    }
    return found <= 1 ? full : "";
}

// The command after `lead` in `text`, as a shell reads it back: a line ending in " \" goes on with
// the next one, whose indentation is dropped.
std::string unwrapCommand(const std::string& text, const std::string& lead)
{
    const auto at = text.find(lead);
    if (at == std::string::npos) {
        return "";
    }
    std::istringstream lines(text.substr(at + lead.size()));
    std::string command;
    for (std::string line; std::getline(lines, line);) {
        if (!command.empty()) {
            line.erase(0, line.find_first_not_of(' '));
        }
        if (!line.ends_with(" \\")) {
            return command + line;
        }
        command += line.substr(0, line.size() - 1);
    }
    return command;
}

RunRecord baseRecord(const std::string& workload, MeasurementKind kind)
{
    RunRecord r;
    r.row.id = 12;
    r.row.workload = workload;
    r.row.status = RunStatus::Complete;
    r.row.kernel = "6.1.0-28-amd64";
    r.row.cpuModel = "Intel(R) Xeon(R) CPU E5-2680 v4 @ 2.40GHz";
    r.row.host = "lab1";
    r.environment.kind = kind;
    r.environment.workerCpu = 3;
    r.environment.tscInvariant = true;
    r.spec.workload = workload;
    r.spec.repetitions = 5;
    r.spec.duration = 1;
    r.spec.order = Order::Interleaved;
    return r;
}

// spin with work=1000 against work=1005: 0.5% more ticks per op, 40 chunk pairs per repetition.
RunRecord inProcessRun(unsigned seed = 22, double effect = 1.005)
{
    auto r = baseRecord("spin", MeasurementKind::CallLoop);
    r.environment.commandLine = "noisefloor run spin --variant a:work=1000 --variant b:work=1005";
    r.spec.variants = {{"a", {{"work", "1000"}}}, {"b", {{"work", "1005"}}}};
    r.spec.chunk = 0.002;
    r.data.variantNames = {"a", "b"};
    r.data.layout.quantities = {quantity::kOps, quantity::kTscTicks, quantity::kElapsedNs};
    r.data.layout.metrics = callLoopMetrics(r.data.layout.quantities);
    Noise noise(seed);
    for (int rep = 0; rep < 5; ++rep) {
        const double drift = 1 + 0.002 * noise();  // the machine's state in this repetition
        for (int pair = 0; pair < 40; ++pair) {
            for (int k = 0; k < 2; ++k) {
                const int v = (pair % 2 == 0) ? k : 1 - k;  // A B, B A, ...
                const double ops = 5000;
                const double ticks = ops * 2000 * (v == 1 ? effect : 1.0) * drift * (1 + 0.004 * noise());
                r.data.samples.append(Sample{v, rep, pair, pair, 0, 0.002, {ops, ticks, ticks / 2.4}});
            }
        }
    }
    return r;
}

// udp-rx with batch=1 against batch=64, as a live session on a VM without a PMU stores it: pps up
// 6%, 64-byte datagrams (bytes_per_sec = 64 x pps), drops in few intervals, the generator's rate,
// the receiver thread's and the counter CPUs' time, context switches and page faults per packet.
RunRecord liveRun()
{
    auto r = baseRecord("udp-rx", MeasurementKind::Live);
    r.environment.commandLine =
        "noisefloor run udp-rx --variant b1:batch=1 --variant b64:batch=64 --reps 5 --duration 1 --share-cpus";
    r.environment.hypervisor = true;
    r.environment.notMeasured = {{"cycles, instructions, branches, branch-misses, cache-misses",
                                  "perf_event_open: No such file or directory (no hardware PMU on this machine)"}};
    r.environment.json["measurement"] = {{"design", "repetitions"}, {"design_reason", ""}};
    r.warnings = {
        "CPU 0 shared with another run (--share-cpus): pid 4242 (noisefloor run into /tmp/x.db "
        "(udp-rx)) in pid namespace 4026531836"};
    r.spec.variants = {{"b1", {{"batch", "1"}}}, {"b64", {{"batch", "64"}}}};
    r.spec.chunk = 0.0;
    r.data.variantNames = {"b1", "b64"};
    r.data.layout.quantities = {
        quantity::kPackets, quantity::kBytes,      quantity::kDrops, quantity::kOfferedPackets, quantity::kElapsedNs,
        "rx_task-clock",    "rx_context-switches", "cpu_task-clock", "cpu_context-switches",    "cpu_page-faults"};
    r.data.layout.metrics = liveMetrics(r.data.layout.quantities);
    Noise noise(64);
    for (int rep = 0; rep < 5; ++rep) {
        for (int v = 0; v < 2; ++v) {
            for (int i = 0; i < 10; ++i) {
                const double packets = std::round(9500 * (v == 1 ? 1.06 : 1.0) * (1 + 0.15 * noise()));
                const double drops = (rep * 10 + i) % 17 == 3 ? std::round(3000 * (1 + noise())) : 0;
                const double gen = packets + drops + std::round(30000 * (1 + 0.1 * noise()));
                const double taskClock = packets * 1300 * (v == 1 ? 0.85 : 1.0) * (1 + 0.03 * noise());
                const double switches = std::round(packets * 0.05 * (1 + 0.4 * noise()));
                const double cpuClock = taskClock * 16 * (1 + 0.1 * noise());
                const double cpuSwitches = std::round(packets * 0.18 * (v == 1 ? 1.1 : 1.0) * (1 + 0.1 * noise()));
                const double faults = std::round(packets * 0.14 * (1 + 0.4 * noise()));
                r.data.samples.append(Sample{
                    v,
                    rep,
                    i,
                    -1,
                    0.1 * i,
                    0.1,
                    {packets, packets * 64, drops, gen, 1e8, taskClock, switches, cpuClock, cpuSwitches, faults}});
            }
        }
    }
    return r;
}

TEST(ReportGolden, InProcessRunPairedChunks)
{
    const auto run = inProcessRun();
    auto report = compareRuns({{&run, ""}}, {}, {});
    ASSERT_TRUE(report) << report.error().message;
    expectGolden("in_process.txt", comparisonText(*report));
    // --verbose keeps the full report: both designs and the tests.
    const auto verbose = comparisonText(*report, true);
    EXPECT_NE(verbose.find("independent analysis (repetitions)"), std::string::npos) << verbose;
    EXPECT_NE(verbose.find("Wilcoxon"), std::string::npos) << verbose;
}

TEST(ReportGolden, LiveRunRatesStayPositiveAndMultiplesAreNamedOnce)
{
    const auto run = liveRun();
    auto report = compareRuns({{&run, ""}}, {}, {});
    ASSERT_TRUE(report) << report.error().message;
    const auto text = comparisonText(*report);
    expectGolden("live.txt", text);
    EXPECT_NE(text.find("bytes_per_sec (64 x pps)"), std::string::npos) << text;
    EXPECT_EQ(text.find("\n  bytes_per_sec"), std::string::npos) << text;
    // Eight metrics and two variants: a header of one-line facts and two warnings, each whole
    // (wrapped, never cut), each metric on one line.
    EXPECT_LE(lineCount(text), 28u) << text;
    EXPECT_EQ(text.find("..."), std::string::npos) << text;
    for (const auto* name : {"pps", "drops/s", "offered_pps", "rx_task_clock/pkt", "rx_cs/pkt", "cpu_task_clock/pkt",
                             "cpu_cs/pkt", "cpu_faults/pkt"}) {
        EXPECT_NE(rowOf(text, name).find(" b"), 0u) << name << " has no line of its own:\n" << text;
        EXPECT_GT(rowOf(text, name).size(), 40u) << name << ": its values are not on its line\n" << text;
    }
    // The verbose table shows the drop rate's interval on the log scale; the JSON keeps Student's t
    // beside it.
    const auto verbose = comparisonText(*report, true);
    const auto table = verbose.substr(verbose.find("\ndrops_per_sec ("), 300);
    const auto b1 = table.substr(table.find("\n  b1 "), table.find("\n  b64 ") - table.find("\n  b1 "));
    EXPECT_EQ(b1.find("..-"), std::string::npos) << table;
    EXPECT_EQ(b1.find(" -"), std::string::npos) << table;
    std::ostringstream json;
    writeComparison(*report, "json", json);
    const auto j = nlohmann::json::parse(json.str());
    bool sawNegative = false;
    for (const auto& v : j["variants"]) {
        if (v["metric"] == "drops_per_sec") {
            sawNegative = sawNegative || v["ci_low"].get<double>() < 0;
            EXPECT_GT(v["ci_low_log"].get<double>(), 0) << v;
        }
    }
    EXPECT_TRUE(sawNegative) << "the simulation should give a t interval below zero";
    EXPECT_EQ(j["derived_metrics"][0]["metric"], "bytes_per_sec");
    EXPECT_DOUBLE_EQ(j["derived_metrics"][0]["factor"].get<double>(), 64);
}

TEST(ReportGolden, ThreeVariantsGiveOneBlockPerComparison)
{
    auto run = liveRun();
    run.data.variantNames.push_back("b8");
    run.spec.variants.push_back({"b8", {{"batch", "8"}}});
    std::vector<Sample> more;
    for (const auto& s : run.data.samples.toSamples()) {
        if (s.variant == 1) {
            auto copy = s;
            copy.variant = 2;
            copy.values[5] *= 1.01;
            more.push_back(copy);
        }
    }
    run.data.samples.append(more);
    auto report = compareRuns({{&run, ""}}, {}, {});
    ASSERT_TRUE(report) << report.error().message;
    const auto text = comparisonText(*report);
    EXPECT_NE(text.find("b64 vs b1 (baseline):"), std::string::npos) << text;
    EXPECT_NE(text.find("b8 vs b1 (baseline):"), std::string::npos) << text;
}

// Variant names of 30 characters: cut in the middle in the columns and named in full once below
// the table; every line within 72 columns, the metric's values on its own line.
TEST(ReportGolden, LongVariantNamesAreCutInTheColumnsAndNamedOnce)
{
    auto run = inProcessRun();
    const std::vector<std::string> names = {"baseline_kernel_vanilla_build", "candidate_kernel_with_patch_v3"};
    run.data.variantNames = names;
    run.spec.variants = {{names[0], {{"work", "1000"}}}, {names[1], {{"work", "1005"}}}};
    auto report = compareRuns({{&run, ""}}, {}, {});
    ASSERT_TRUE(report) << report.error().message;
    const auto text = comparisonText(*report);
    expectGolden("long_variant_names.txt", text);
    for (const auto& name : names) {
        const auto at = text.find(" = " + name + "\n");
        ASSERT_NE(at, std::string::npos) << name << " is not named in full:\n" << text;
        EXPECT_EQ(text.find(" = " + name + "\n", at + 1), std::string::npos) << name << " named twice:\n" << text;
    }
    EXPECT_GT(rowOf(text, "tsc/op").size(), 40u) << text;
    EXPECT_LE(lineCount(text), 25u) << text;
    expectWithinAMail(comparisonText(*report, true));
}

// A live run of udp-rx on the receiver thread's counters, stored under `label` with a command line
// that does not fit one line: pps, and cycles, instructions, branches and branch misses per packet.
RunRecord countedRun(std::int64_t id, const std::string& label, double branchMisses)
{
    auto r = baseRecord("udp-rx", MeasurementKind::Live);
    r.row.id = id;
    r.row.label = label;
    r.environment.commandLine =
        "noisefloor run udp-rx --label " + label +
        " -p tx_cpu=2 -p rx_cpu=3 -p batch=64 --cpu 3 --reps 5 --duration 1 "
        "--counters cycles,instructions,branches,branch-misses --db /var/tmp/noisefloor/runs.db";
    r.environment.json["measurement"] = {{"design", "repetitions"}, {"design_reason", ""}};
    r.spec.variants = {{"default", {}}};
    r.spec.chunk = 0.0;
    r.data.variantNames = {"default"};
    r.data.layout.quantities = {quantity::kPackets, quantity::kElapsedNs, "rx_cycles",
                                "rx_instructions",  "rx_branches",        "rx_branch-misses"};
    r.data.layout.metrics = liveMetrics(r.data.layout.quantities);
    Noise noise(static_cast<unsigned>(id));
    for (int rep = 0; rep < 5; ++rep) {
        for (int i = 0; i < 10; ++i) {
            const double packets = std::round(9500 * (1 + 0.05 * noise()));
            const double branches = packets * 260 * (1 + 0.01 * noise());
            r.data.samples.append(
                Sample{0,
                       rep,
                       i,
                       -1,
                       0.1 * i,
                       0.1,
                       {packets, 1e8, packets * 1310 * (1 + 0.01 * noise()), packets * 1800 * (1 + 0.01 * noise()),
                        branches, packets * branchMisses * (1 + 0.02 * noise())}});
        }
    }
    return r;
}

// What testers pasted into netdev mails, each cut ambiguously before: two labels that share a long
// prefix (and a non-ASCII letter), rx_branches and rx_branch-misses per packet, and a command line
// longer than a line. Each label and metric is shown by a name that only it matches (start and
// end), every cut one named in full below the table, and each command printed whole, broken with
// " \" so that it pastes back into a shell.
TEST(ReportGolden, LongLabelsAndMetricsStayDistinctAndCommandsWhole)
{
    const std::vector<std::string> labels = {"bj\u00f6rn_xsk_batch_before", "bj\u00f6rn_xsk_batch_restore"};
    const auto before = countedRun(12, labels[0], 2.1);
    const auto after = countedRun(13, labels[1], 1.4);
    auto report = compareRuns({{&before, ""}, {&after, ""}}, {}, {});
    ASSERT_TRUE(report) << report.error().message;
    const auto text = comparisonText(*report);
    expectGolden("long_names.txt", text);
    std::istringstream in(text);
    std::vector<std::string> lines;
    for (std::string line; std::getline(in, line);) {
        lines.push_back(line);
    }
    // The table's header names the two labels, each by a name of its own that a reader finds in
    // the legend (or in full).
    const auto header =
        std::find_if(lines.begin(), lines.end(), [](const auto& l) { return l.starts_with("  metric "); });
    ASSERT_NE(header, lines.end()) << text;
    std::istringstream columns(*header);
    std::vector<std::string> heads{std::istream_iterator<std::string>(columns), {}};
    ASSERT_GE(heads.size(), 4u) << *header;
    const std::vector<std::string> shown = {heads[1], heads[3]};
    EXPECT_NE(shown[0], shown[1]) << text;
    for (std::size_t i = 0; i < 2; ++i) {
        EXPECT_EQ(fullName(text, shown[i]), labels[i]) << text;
    }
    // rx_branches and rx_branch-misses per packet: two rows, two names, each resolving to its metric.
    std::vector<std::string> metrics;
    for (auto it = header + 1; it != lines.end() && !it->empty(); ++it) {
        metrics.push_back(it->substr(2, it->find(' ', 2) - 2));
    }
    std::set<std::string> resolved;
    for (const auto& m : metrics) {
        resolved.insert(fullName(text, m));
    }
    EXPECT_EQ(resolved.size(), metrics.size()) << text;
    EXPECT_TRUE(resolved.contains("rx_branches_per_packet") || resolved.contains("rx_branches/pkt")) << text;
    EXPECT_TRUE(resolved.contains("rx_branch_misses_per_packet") || resolved.contains("rx_branch_misses/pkt")) << text;
    // Each run's command, whole: unwrapped, it is the command the run recorded.
    for (const auto* run : {&before, &after}) {
        const std::string lead = "run " + std::to_string(run->row.id) + " '" + run->row.label + "': $ ";
        EXPECT_EQ(unwrapCommand(text, lead), run->environment.commandLine) << text;
    }
    EXPECT_EQ(text.find("..."), std::string::npos) << "nothing of the header is cut:\n" << text;
    // --verbose too: its per-metric tables name each label in full (or by a short name, given in
    // full once).
    const auto verbose = comparisonText(*report, true);
    expectWithinAMail(verbose);
    for (const auto& label : labels) {
        EXPECT_TRUE(verbose.find("\n  " + label + " ") != std::string::npos ||
                    verbose.find(" = " + label + "\n") != std::string::npos)
            << verbose;
    }
    for (const auto* run : {&before, &after}) {
        const std::string lead = "run " + std::to_string(run->row.id) + " '" + run->row.label + "': $ ";
        EXPECT_EQ(unwrapCommand(verbose, lead), run->environment.commandLine) << verbose;
    }
}

// A result measured in user space says so first, with the kernel code its workload models (the
// catalogue's `models`), in the compact text and the verbose one; a live run's does not.
TEST(ReportGolden, InProcessReportsOpenWithTheKernelCodeTheyModel)
{
    for (const auto& [workload, opening] : std::vector<std::pair<std::string, std::string>>{
             {"page-pool", "user-space model of net/core/page_pool.c: page_pool_dma_sync_for_device"},
             {"page-frag", "user-space model of mm/page_frag_cache.c: __page_frag_alloc_align"},
             {"indirect-call", "user-space model of net/xdp/xsk.c: xsk_flush"},
             {"spin", "user-space calibration loop: no kernel code modelled"}}) {
        auto run = inProcessRun();
        run.row.workload = workload;
        auto report = compareRuns({{&run, ""}}, {}, {});
        ASSERT_TRUE(report) << report.error().message;
        for (const bool verbose : {false, true}) {
            const auto text = comparisonText(*report, verbose);
            const auto second = text.find('\n') + 1;
            EXPECT_EQ(text.substr(second, text.find('\n', second) - second), opening) << text;
        }
    }
    const auto live = liveRun();
    auto report = compareRuns({{&live, ""}}, {}, {});
    ASSERT_TRUE(report) << report.error().message;
    EXPECT_EQ(comparisonText(*report).find("user-space"), std::string::npos) << comparisonText(*report);
}

// A command workload's count that is zero in most repetitions of one variant: the Fieller
// interval of the change reaches below -100%; the text holds it at -100% (no count below zero),
// the JSON keeps Fieller's and adds the held one.
TEST(ReportGolden, ACountsChangeIsNeverShownBelowMinusHundredPercent)
{
    auto r = baseRecord("command", MeasurementKind::Command);
    r.environment.commandLine = "noisefloor run command --variant a:cmd=./a.sh --variant b:cmd=./b.sh";
    r.spec.variants = {{"a", {}}, {"b", {}}};
    r.data.variantNames = {"a", "b"};
    r.data.layout.quantities = {"drops", "runs"};
    r.data.layout.metrics = {{.name = "drops", .unit = "drops", .numerator = "drops", .denominator = "runs"}};
    const std::vector<std::vector<double>> values = {{100, 101, 102, 100, 101}, {0, 0, 50, 0, 0}};
    for (int rep = 0; rep < 5; ++rep) {
        for (int v = 0; v < 2; ++v) {
            r.data.samples.append(
                Sample{v, rep, 0, -1, 0, 1, {values[static_cast<std::size_t>(v)][static_cast<std::size_t>(rep)], 1}});
        }
    }
    auto report = compareRuns({{&r, ""}}, {}, {});
    ASSERT_TRUE(report) << report.error().message;
    const auto& cs = report->analysis.comparisons;
    const auto& c = *std::find_if(cs.begin(), cs.end(), [](const MetricComparison& m) { return m.primary; });
    ASSERT_LT(c.result.interval.ci.low, -100) << "the case needs a Fieller interval below -100%\n"
                                              << comparisonText(*report, true);
    const auto text = comparisonText(*report);
    const auto row = rowOf(text, "drops");
    EXPECT_NE(row.find(" -100.."), std::string::npos) << text;
    EXPECT_FALSE(std::regex_search(row, std::regex("-(10[1-9]|1[1-9][0-9]|[2-9][0-9][0-9])"))) << text;
    const auto verbose = comparisonText(*report, true);
    EXPECT_NE(verbose.find("CI -100.00.."), std::string::npos) << verbose;
    EXPECT_NE(verbose.find("is cut at -100%"), std::string::npos) << verbose;
    std::ostringstream json;
    writeComparison(*report, "json", json);
    const auto all = nlohmann::json::parse(json.str());
    nlohmann::json j;
    for (const auto& x : all["comparisons"]) {
        if (x["primary"].get<bool>()) {
            j = x;
        }
    }
    ASSERT_TRUE(j.is_object()) << json.str();
    EXPECT_DOUBLE_EQ(j["ci_low_pct"].get<double>(), c.result.interval.ci.low);  // as before
    EXPECT_DOUBLE_EQ(j["ci_low_pct_positive"].get<double>(), -100);
    EXPECT_DOUBLE_EQ(j["ci_high_pct_positive"].get<double>(), c.result.interval.ci.high);
}

// A change that rounds to zero keeps its sign's digits: never "-0".
TEST(ReportGolden, NoMinusZero)
{
    const auto run = inProcessRun(22, 0.9999);
    auto report = compareRuns({{&run, ""}}, {}, {});
    ASSERT_TRUE(report) << report.error().message;
    const auto text = comparisonText(*report);
    for (const auto* zero : {" -0 ", " -0..", "..-0 ", " -0\n"}) {
        EXPECT_EQ(text.find(zero), std::string::npos) << text;
    }
}

// A tiny target that is not zero keeps its digits in the sizing line: "0.0030% needs ...", never
// "0.00% needs ...".
TEST(ReportGolden, ATinyTargetIsNotPrintedAsZero)
{
    const auto run = inProcessRun();
    AnalysisOptions options;
    options.compare.targetPct = 0.003;
    auto report = compareRuns({{&run, ""}}, {}, options);
    ASSERT_TRUE(report) << report.error().message;
    const auto verbose = comparisonText(*report, true);
    EXPECT_NE(verbose.find("0.0030% needs "), std::string::npos) << verbose;
    EXPECT_EQ(verbose.find("0.00% needs"), std::string::npos) << verbose;
}

// Unit conversions are named once in the default report; one asked for with --metric is shown.
TEST(ReportGolden, ConversionsAreNamedOnceAndShownWhenAskedFor)
{
    const auto run = inProcessRun();
    auto report = compareRuns({{&run, ""}}, {}, {});
    ASSERT_TRUE(report) << report.error().message;
    const auto text = comparisonText(*report);
    EXPECT_NE(text.find("ns_per_op, ops_per_sec (tsc_per_op in other units)"), std::string::npos) << text;
    auto asked = compareRuns({{&run, ""}}, {"tsc_per_op", "ns_per_op"}, {});
    ASSERT_TRUE(asked) << asked.error().message;
    const auto both = comparisonText(*asked);
    EXPECT_NE(rowOf(both, "tsc_per_op"), "") << both;
    EXPECT_NE(rowOf(both, "ns_per_op"), "") << both;
    EXPECT_EQ(both.find("not shown"), std::string::npos) << both;
}

std::string underscored(std::string name)
{
    std::replace(name.begin(), name.end(), '-', '_');
    return name;
}

// The four verdicts side by side, one metric each, from paired chunks of a seeded simulation:
// cycles per op 3% up (different), instructions per op 0.3% up with a tight interval (negligible: real,
// inside the +-1% margin), branches per op unchanged (equivalent), branch misses per op unchanged
// in noise of 30% (inconclusive). The text, the verbose text and the JSON give each the same verdict.
TEST(ReportGolden, FourVerdictsSideBySide)
{
    auto r = baseRecord("spin", MeasurementKind::CallLoop);
    r.environment.commandLine = "noisefloor run spin --variant a:work=1000 --variant b:work=1030";
    r.spec.variants = {{"a", {{"work", "1000"}}}, {"b", {{"work", "1030"}}}};
    r.spec.chunk = 0.002;
    r.data.variantNames = {"a", "b"};
    r.data.layout.quantities = {quantity::kOps, "cycles", "instructions", "branches", "branch-misses"};
    const std::vector<std::pair<std::string, double>> metrics = {
        {"cycles", 1.03}, {"instructions", 1.003}, {"branches", 1.0}, {"branch-misses", 1.0}};
    for (const auto& [counter, effect] : metrics) {
        r.data.layout.metrics.push_back({.name = underscored(counter) + "_per_op",
                                         .unit = counter + "/op",
                                         .numerator = counter,
                                         .denominator = quantity::kOps});
    }
    const std::vector<double> perOp = {2000, 3000, 600, 2};
    const std::vector<double> noiseOf = {0.004, 0.004, 0.004, 0.5};
    Noise noise(35);
    for (int rep = 0; rep < 5; ++rep) {
        for (int pair = 0; pair < 40; ++pair) {
            for (int k = 0; k < 2; ++k) {
                const int v = (pair % 2 == 0) ? k : 1 - k;
                const double ops = 5000;
                std::vector<double> values = {ops};
                for (std::size_t m = 0; m < metrics.size(); ++m) {
                    values.push_back(ops * perOp[m] * (v == 1 ? metrics[m].second : 1.0) * (1 + noiseOf[m] * noise()));
                }
                r.data.samples.append(Sample{v, rep, pair, pair, 0, 0.002, values});
            }
        }
    }
    auto report = compareRuns({{&r, ""}}, {}, {});
    ASSERT_TRUE(report) << report.error().message;
    const auto text = comparisonText(*report);
    expectGolden("four_verdicts.txt", text);
    const std::vector<std::pair<std::string, std::string>> want = {{"cycles_per_op", "different"},
                                                                   {"instructions_per_op", "negligible"},
                                                                   {"branches_per_op", "equivalent"},
                                                                   {"branch_misses_per_op", "~"}};
    // The table's rows in order, each name resolved through the legend.
    auto at = text.find("\n  metric ");
    ASSERT_NE(at, std::string::npos) << text;
    for (const auto& [metric, verdict] : want) {
        at = text.find('\n', at + 1);
        const auto row = text.substr(at + 1, text.find('\n', at + 1) - at - 1);
        const auto shown = row.substr(2, row.find(' ', 2) - 2);
        const auto full = fullName(text, shown);
        EXPECT_TRUE(full == metric || full == metric.substr(0, metric.size() - 7) + "/op") << row << "\n" << text;
        EXPECT_TRUE(row.ends_with(" " + verdict)) << metric << " should read " << verdict << ":\n" << text;
    }
    const auto verbose = comparisonText(*report, true);
    expectWithinAMail(verbose);
    EXPECT_NE(verbose.find("negligible: "), std::string::npos) << verbose;
    std::ostringstream json;
    writeComparison(*report, "json", json);
    const auto parsed = nlohmann::json::parse(json.str());
    std::map<std::string, std::string> decided;
    for (const auto& c : parsed["comparisons"]) {
        if (c["primary"].get<bool>()) {
            decided[c["metric"].get<std::string>()] = c["verdict"].get<std::string>();
        }
    }
    EXPECT_EQ(decided["cycles_per_op"], "different") << json.str();
    EXPECT_EQ(decided["instructions_per_op"], "negligible") << json.str();
    EXPECT_EQ(decided["branches_per_op"], "equivalent") << json.str();
    EXPECT_EQ(decided["branch_misses_per_op"], "inconclusive") << json.str();
}

// Variant a of two runs, one per kernel: the independent design across runs.
TEST(ReportGolden, CrossRunVanillaAgainstPatched)
{
    auto vanilla = inProcessRun(31, 1.0);
    vanilla.row.label = "vanilla";
    auto patched = inProcessRun(32, 1.0);
    patched.row.id = 13;
    patched.row.label = "patched";
    patched.row.kernel = "6.1.0-28-amd64+pp";
    auto samples = patched.data.samples.toSamples();
    for (auto& s : samples) {
        s.values[1] *= 0.99;  // 1% fewer ticks per op on the patched kernel
        s.values[2] *= 0.99;
    }
    patched.data.samples = RunTable(patched.data.layout.quantities.size(), samples);
    auto report = compareRuns({{&vanilla, "a"}, {&patched, "a"}}, {}, {});
    ASSERT_TRUE(report) << report.error().message;
    expectGolden("cross_run.txt", comparisonText(*report));
}

TEST(ReportGolden, SweepOneRowPerPointAndVariant)
{
    SweepReport sweep;
    sweep.id = "s1";
    sweep.workload = "spin";
    sweep.param = "work";
    sweep.metric = "tsc_per_op";
    int id = 20;
    for (const auto& [value, effect] : {std::pair<const char*, double>{"100", 1.0}, {"1000", 1.005}, {"10000", 1.02}}) {
        auto run = inProcessRun(static_cast<unsigned>(id), effect);
        auto input = analysisInput(run.data, true, {"tsc_per_op"});
        ASSERT_TRUE(input) << input.error().message;
        auto analysis = analyze(*input, {});
        ASSERT_TRUE(analysis) << analysis.error().message;
        sweep.points.push_back({value, id++, std::move(*analysis)});
    }
    std::ostringstream text;
    writeSweepText(sweep, text);
    expectGolden("sweep.txt", text.str());
}

// A sweep of page-pool's zero_size_pct with variants named as people name their kernels: within
// 72 columns, each variant by a name only it matches, named in full below the table.
TEST(ReportGolden, SweepWithLongNamesFitsAMail)
{
    SweepReport sweep;
    sweep.id = "s2";
    sweep.workload = "page-pool";
    sweep.param = "zero_size_pct";
    sweep.metric = "tsc_per_op";
    const std::vector<std::string> names = {"net-next-6.13-dma-sync-late", "net-next-6.13-dma-sync-early"};
    int id = 30;
    for (const auto& [value, effect] : {std::pair<const char*, double>{"0", 1.0}, {"0.001", 0.998}, {"100", 0.6}}) {
        auto run = inProcessRun(static_cast<unsigned>(id), effect);
        run.data.variantNames = names;
        auto input = analysisInput(run.data, true, {"tsc_per_op"});
        ASSERT_TRUE(input) << input.error().message;
        auto analysis = analyze(*input, {});
        ASSERT_TRUE(analysis) << analysis.error().message;
        sweep.points.push_back({value, id++, std::move(*analysis)});
    }
    sweep.missing = {"50 (run 33 aborted: interrupted by SIGINT after 2 of 5 repetitions, 2 stored)"};
    std::ostringstream out;
    writeSweepText(sweep, out);
    const auto text = out.str();
    expectGolden("sweep_long_names.txt", text);
    EXPECT_TRUE(text.starts_with("Sweep of zero_size_pct (page-pool, 3 points)")) << text;
    EXPECT_NE(text.find("\nuser-space model of net/core/page_pool.c: page_pool_dma_sync_for_device\n"),
              std::string::npos)
        << text;
    const auto header = text.find("\nzero_size_pct ");
    ASSERT_NE(header, std::string::npos) << text;
    std::set<std::string> shown;
    std::istringstream rows(text.substr(text.find('\n', header + 1) + 1));
    for (std::string row; std::getline(rows, row) && !row.empty() && row.find(" = ") == std::string::npos;) {
        std::istringstream cells(row);
        const std::vector<std::string> words{std::istream_iterator<std::string>(cells), {}};
        ASSERT_GE(words.size(), 3u) << row;
        shown.insert(row.starts_with(" ") ? words[0] : words[2]);  // the point's first row: value, run, variant
    }
    ASSERT_EQ(shown.size(), 2u) << text;
    std::set<std::string> full;
    for (const auto& s : shown) {
        full.insert(fullName(text, s));
    }
    EXPECT_EQ(full, std::set<std::string>(names.begin(), names.end())) << text;
}

// Every golden text, the compact reports and the sweeps a reviewer pastes into a mail: every line
// within 72 columns, counted in code points (a label's "ö" is one column, two bytes).
TEST(ReportGolden, EveryLineOfEveryGoldenTextFitsAMail)
{
    std::size_t files = 0;
    for (const auto& entry : std::filesystem::directory_iterator(NF_REPORT_GOLDEN)) {
        if (entry.path().extension() != ".txt") {
            continue;
        }
        ++files;
        std::ifstream in(entry.path(), std::ios::binary);
        std::size_t number = 0;
        for (std::string line; std::getline(in, line);) {
            ++number;
            EXPECT_LE(columns(line), 72u) << entry.path().filename() << ":" << number << ": " << line;
        }
    }
    EXPECT_GE(files, 8u);
    EXPECT_EQ(columns("bj\u00f6rn"), 5u);
}

}  // namespace
}  // namespace nf::engine
