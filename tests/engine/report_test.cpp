#include "engine/report/run_summary.h"

#include <gtest/gtest.h>
#include <unistd.h>

#include <cstdio>
#include <fstream>
#include <random>
#include <set>
#include <sstream>

#include "engine/model/metric.h"
#include "engine/report/compact_table.h"
#include "engine/report/evidence_context.h"
#include "engine/report/run_text.h"
#include "engine/report/text_table.h"

namespace nf::engine {
namespace {

RunData twoVariants()
{
    RunData d;
    d.variantNames = {"a", "b"};
    d.layout.quantities = {"ops", "tsc_ticks", "elapsed_ns"};
    d.layout.metrics = callLoopMetrics(d.layout.quantities);
    for (int rep = 0; rep < 3; ++rep) {
        for (int v = 0; v < 2; ++v) {
            for (int i = 0; i < 2; ++i) {
                const double ticks = (v + 1) * 1000.0 + rep;  // b costs twice a, per op
                d.samples.append(Sample{v, rep, i, i, 0, 0.001, {10, ticks * 10, ticks * 4}});
            }
        }
    }
    return d;
}

TEST(Report, RepetitionValuesAreRatiosOfTotals)
{
    const auto d = twoVariants();
    const auto values = d.repetitionValues(1, d.layout.metrics[0], {});
    EXPECT_EQ(values, (std::vector<double>{2000, 2001, 2002}));
}

TEST(Report, SummaryPerVariantAndMetric)
{
    const auto d = twoVariants();
    const auto s = summarizeRun(d);
    ASSERT_EQ(s.size(), 3u);
    EXPECT_EQ(s[0].metric.name, "tsc_per_op");
    EXPECT_DOUBLE_EQ(s[0].perVariant[0].mean, 1001);
    EXPECT_DOUBLE_EQ(s[0].perVariant[1].mean, 2001);
    EXPECT_EQ(s[0].perVariant[1].n, 3u);
    std::ostringstream text;
    writeSummaryText(d, text);
    EXPECT_NE(text.str().find("tsc_per_op"), std::string::npos);
    EXPECT_NE(text.str().find("2001.0"), std::string::npos);
    EXPECT_EQ(summaryJson(d)[0]["variants"][1]["mean"], 2001);
}

TEST(TextTable, AlignsColumns)
{
    TextTable t({"name", ">value"});
    t.addRow({"a", "1"});
    t.addRow({"long", "100"});
    std::ostringstream out;
    t.write(out);
    EXPECT_EQ(out.str(), "name  value\na         1\nlong    100\n");
}

TEST(TextTable, FormatValue)
{
    EXPECT_EQ(formatValue(1234.5678), "1234.6");
    EXPECT_EQ(formatValue(0.5), "0.50000");
    EXPECT_EQ(formatValue(123456), "123456");
    EXPECT_EQ(formatValue(0), "0");
    EXPECT_EQ(formatPercent(0.1234), "12.34%");
}

// A live run side by side whose variants traded places: a on place 2 received 4% more than on
// place 1, b the same on both, so place 2 received the geometric mean of 1.04 and 1.00 more
// (+1.98%; the arithmetic mean would say +2.00%).
RunRecord tradedPlaces()
{
    RunRecord r;
    r.environment.kind = MeasurementKind::Live;
    r.environment.json["measurement"] = {{"design", "paired chunks, variants side by side"}, {"design_reason", ""}};
    r.spec.variants = {{"a", {{"batch", "64"}}}, {"b", {{"batch", "8"}}}};
    r.spec.chunk = 0.025;
    r.data.variantNames = {"a", "b"};
    r.data.layout.quantities = {quantity::kPackets, quantity::kElapsedNs, quantity::kGuardPackets, quantity::kGuardNs,
                                quantity::kPlace};
    r.data.layout.metrics = liveMetrics(r.data.layout.quantities);
    for (int pair = 0; pair < 8; ++pair) {
        const double place = pair < 4 ? 0 : 1;  // a on place 1 then 2, b the other way round
        r.data.samples.append(
            Sample{0, 0, pair, pair, 0, 0.025, {place == 0 ? 1000.0 : 1040.0, 2.5e7, 10, 1e6, place}});
        r.data.samples.append(Sample{1, 0, pair, pair, 0, 0.025, {2000.0, 2.5e7, 10, 1e6, 1 - place}});
    }
    return r;
}

// The run's table made again from `samples`, which a test changed.
void setSamples(RunRecord& r, const std::vector<Sample>& samples)
{
    r.data.samples = RunTable(r.data.layout.quantities.size(), samples);
}

TEST(LiveDesign, SaysWhatEachPlaceReceivedAgainstTheFirst)
{
    auto r = tradedPlaces();
    const auto line = liveDesignLine(r);
    EXPECT_NE(line.find("0.66% of packets at switches in no chunk (160)"), std::string::npos) << line;
    EXPECT_NE(line.find("; the variants traded 2 places (pps against place 1: place 2 +1.98%)"), std::string::npos)
        << line;
    auto samples = r.data.samples.toSamples();
    samples.pop_back();  // b's last chunk on place 1: no longer equal times
    samples.pop_back();  // and a's on place 2
    setSamples(r, samples);
    EXPECT_NE(liveDesignLine(r).find("traded 2 places, not for equal times (pps against place 1: place 2 "),
              std::string::npos)
        << liveDesignLine(r);
    // A run too short to trade (one phase): a on place 1 and b on place 2 throughout.
    for (auto& s : samples) {
        s.values.back() = s.variant;
    }
    setSamples(r, samples);
    EXPECT_NE(liveDesignLine(r).find("; every variant kept its place"), std::string::npos) << liveDesignLine(r);
    r.data.layout.quantities.pop_back();  // a run stored before variants traded places
    for (auto& s : samples) {
        s.values.pop_back();
    }
    setSamples(r, samples);
    EXPECT_EQ(liveDesignLine(r).find("place"), std::string::npos) << liveDesignLine(r);
}

// A chunk in which the generator offered nothing (it stalled) is named with the line, since the
// comparison skips its pair.
TEST(LiveDesign, NamesTheChunksInWhichTheGeneratorOfferedNothing)
{
    auto r = tradedPlaces();
    r.data.layout.quantities.push_back(quantity::kOfferedPackets);
    auto samples = r.data.samples.toSamples();
    for (auto& s : samples) {
        s.values.push_back(3000);
    }
    setSamples(r, samples);
    EXPECT_EQ(liveDesignLine(r).find("offered nothing"), std::string::npos) << liveDesignLine(r);
    samples[5].values.back() = 0;  // offered nothing, but received what was still queued
    setSamples(r, samples);
    EXPECT_NE(liveDesignLine(r).find("; the generator offered nothing in 1 of 16 chunks (it stalled); the "),
              std::string::npos)
        << liveDesignLine(r);
    samples[5].values.front() = 0;  // and received nothing: its pair is skipped
    setSamples(r, samples);
    EXPECT_NE(liveDesignLine(r).find("; the generator offered nothing in 1 of 16 chunks (it stalled), whose pairs "
                                     "are left out"),
              std::string::npos)
        << liveDesignLine(r);
}

// The names a short name could stand for: those that start with its part before ".." and end with
// its part after it (a name without ".." stands for itself).
std::vector<std::string> matching(const std::string& shortName, const std::vector<std::string>& names)
{
    const auto dots = shortName.find("..");
    std::vector<std::string> out;
    for (const auto& n : names) {
        const bool match = dots == std::string::npos
                               ? n == shortName
                               : n.starts_with(shortName.substr(0, dots)) && n.ends_with(shortName.substr(dots + 2)) &&
                                     columns(n) >= columns(shortName) - 2;
        if (match) {
            out.push_back(n);
        }
    }
    return out;
}

// Testers pasted "rx_bra..es/pkt" twice (rx_branches/pkt and rx_branch-misses/pkt) and "bjo..re"
// for a label: each short name now matches its own name and no other.
TEST(ReportNames, ACutNeverMatchesTwoNames)
{
    const std::vector<std::string> metrics = {"rx_branches/pkt", "rx_branch_misses/pkt"};
    const auto cut = compact::abbreviate(metrics, 14);
    EXPECT_NE(cut[0], cut[1]);
    for (std::size_t i = 0; i < 2; ++i) {
        EXPECT_NE(cut[i], "rx_bra..es/pkt");
        EXPECT_LE(columns(cut[i]), 14u) << cut[i];
        EXPECT_EQ(matching(cut[i], metrics), std::vector<std::string>{metrics[i]}) << cut[i];
    }
    const std::vector<std::string> labels = {"bjorn_before", "bjorn_restore", "bjorn_fast"};
    const auto short7 = compact::abbreviate(labels, 7);
    for (std::size_t i = 0; i < labels.size(); ++i) {
        EXPECT_EQ(matching(short7[i], labels), std::vector<std::string>{labels[i]}) << short7[i];
    }
    // Names alike at both ends: no cut tells them apart, a number does.
    const std::vector<std::string> alike = {"run_aaaa_x_bbbb_end", "run_aaaa_y_bbbb_end"};
    const auto numbered = compact::abbreviate(alike, 8);
    EXPECT_NE(numbered[0], numbered[1]);
    EXPECT_NE(numbered[0].find('#'), std::string::npos) << numbered[0];
    EXPECT_LE(columns(numbered[0]), 8u) << numbered[0];
    // A name that fits stays as it is; a cut keeps whole code points.
    EXPECT_EQ(compact::abbreviate({"a", "b\u00f6rn_before_the_fix"}, 8)[0], "a");
    const auto utf8 = compact::abbreviate({"b\u00f6rn_before_the_fix", "b\u00f6rn_after_the_fix"}, 8);
    for (const auto& u : utf8) {
        EXPECT_LE(columns(u), 8u) << u;
        EXPECT_TRUE(u.starts_with("b\u00f6") || u.starts_with("..")) << u;
    }
}

// Seeded random sets of names sharing starts and ends, at every width: each short name fits, and
// names another than its own only where it carries its number.
TEST(ReportNames, RandomNamesStayDistinctAtEveryWidth)
{
    std::mt19937 gen(35);
    const std::vector<std::string> parts = {"rx_", "bjorn", "_xsk", "-before", "-restore", "_v2", "_per_pkt", "x"};
    for (int trial = 0; trial < 300; ++trial) {
        std::set<std::string> unique;
        const std::size_t count = 2 + gen() % 5;
        while (unique.size() < count) {
            std::string name;
            for (std::size_t k = 0, n = 1 + gen() % 5; k < n; ++k) {
                name += parts[gen() % parts.size()];
            }
            unique.insert(name);
        }
        const std::vector<std::string> names(unique.begin(), unique.end());
        for (std::size_t limit = 4; limit <= 24; ++limit) {
            const auto cut = compact::abbreviate(names, limit);
            EXPECT_EQ(std::set<std::string>(cut.begin(), cut.end()).size(), names.size());
            for (std::size_t i = 0; i < names.size(); ++i) {
                EXPECT_LE(columns(cut[i]), std::max(limit, std::size_t{4})) << cut[i];
                if (cut[i].find('#') == std::string::npos) {
                    EXPECT_EQ(matching(cut[i], names), std::vector<std::string>{names[i]}) << cut[i] << " at " << limit;
                }
            }
        }
    }
}

// The words `sh` passes to a command given `command` (its continuation lines included), one per
// line in brackets.
std::string shellWords(const std::string& command)
{
    char path[] = "/tmp/nf_command_XXXXXX";
    const int fd = mkstemp(path);
    if (fd < 0) {
        return "mkstemp failed";
    }
    close(fd);
    std::ofstream(path) << "printf '[%s]\\n' " << command << "\n";
    std::string out;
    if (FILE* p = popen(("sh " + std::string(path)).c_str(), "r")) {
        char buffer[4096];
        for (std::size_t n; (n = fread(buffer, 1, sizeof buffer, p)) > 0;) {
            out.append(buffer, n);
        }
        pclose(p);
    }
    unlink(path);
    return out;
}

// A command as a report prints it, pasted back into a shell: the same words, every line within 72
// columns; broken only between words, it unwraps to the command itself.
TEST(ReportCommand, AWrappedCommandPastesBackAsTheSameWords)
{
    const std::string longPath = "/srv/lab/noisefloor/results/2025-06-01/net-next-6.13-page-pool-dma-sync/runs.db";
    const std::vector<std::string> commands = {
        "noisefloor run spin --variant a:work=1000",
        std::string("noisefloor run udp-rx --label bj\u00f6rn_xsk_batch_before -p tx_cpu=2 -p rx_cpu=3 ") +
            "-p batch=64 --reps 5 --duration 1 --counters cycles,instructions,branches,branch-misses " +
            "--label 'before the fix'",
        "noisefloor --db " + longPath + " run page-pool --variant late:check=late",
        "noisefloor run command --variant " +
            shellQuote("a:cmd=./bench.sh --mode fast --iterations 100000 --output /tmp/out-a.json --it's-quoted") +
            " --reps 3",
        std::string("noisefloor run command --variant \"b:cmd=./bench.sh --mode slow --iterations 100000 ") +
            "--output /tmp/out-b.json\" --reps 3",
        "noisefloor import perf-stat " + std::string(90, 'x') + "\\ " + std::string(10, 'y'),
    };
    for (const auto& command : commands) {
        const auto lines = commandLines("$ ", command, 72);
        std::string pasted;
        bool brokenInsideAWord = false;
        for (std::size_t i = 0; i < lines.size(); ++i) {
            EXPECT_LE(columns(lines[i]), 72u) << lines[i];
            if (i + 1 < lines.size()) {
                EXPECT_TRUE(lines[i].ends_with("\\")) << lines[i];
                brokenInsideAWord = brokenInsideAWord || !lines[i].ends_with(" \\");
            }
            pasted += (i == 0 ? lines[i].substr(2) : lines[i]) + "\n";
        }
        ASSERT_TRUE(lines.front().starts_with("$ noisefloor ")) << lines.front();
        EXPECT_EQ(shellWords(pasted), shellWords(command)) << pasted;
        EXPECT_NE(shellWords(command).find("[noisefloor]"), std::string::npos) << shellWords(command);
        if (!brokenInsideAWord) {  // unwrapped as a reader would: " \" and the next line's indentation go
            std::string unwrapped;
            for (std::size_t i = 0; i < lines.size(); ++i) {
                std::string line = i == 0 ? lines[i].substr(2) : lines[i].substr(lines[i].find_first_not_of(' '));
                unwrapped += i + 1 < lines.size() ? line.substr(0, line.size() - 1) : line;
            }
            EXPECT_EQ(unwrapped, command);
        }
    }
    // The first fits one line and stays one; the long path is broken inside itself.
    EXPECT_EQ(commandLines("$ ", commands[0], 72), std::vector<std::string>{"$ " + commands[0]});
    EXPECT_GT(commandLines("$ ", commands[2], 72).size(), 1u);
}

// The code sizes `run` and `show` print for each variant, symbol by symbol, within a mail's 72
// columns.
TEST(ReportRunText, CodeSizeLinesFitAMail)
{
    RunRecord run;
    run.row.id = 4;
    run.row.workload = "page-pool";
    run.data.variantNames = {"late", "early"};
    nlohmann::json code = nlohmann::json::object();
    for (const auto& [name, extra] : {std::pair<const char*, int>{"late", 0}, {"early", 16}}) {
        code[name] = {{"bytes", 1536 + extra},
                      {"symbols",
                       {{{"name", "page_pool_recycle_in_cache_model"}, {"bytes", 512}},
                        {{"name", "page_pool_dma_sync_for_device_model"}, {"bytes", 640 + extra}},
                        {{"name", "__page_pool_put_page_model"}, {"bytes", 384}}}}};
    }
    run.environment.json["measurement"] = {{"code", code}};
    std::ostringstream out;
    printRunHeader(run, out);
    const auto text = out.str();
    ASSERT_NE(text.find("code size of each variant's hot functions"), std::string::npos) << text;
    EXPECT_NE(text.find("early: 1552 bytes (+16): "), std::string::npos) << text;
    std::istringstream lines(text.substr(text.find("code size")));
    for (std::string line; std::getline(lines, line);) {
        EXPECT_LE(columns(line), 72u) << line;
    }
    EXPECT_NE(text.find("page_pool_dma_sync_for_device_model 656"), std::string::npos) << text;
}

}  // namespace
}  // namespace nf::engine
