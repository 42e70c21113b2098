// perf report --stdio imports on the real reports of tests/data/import/real (PROVENANCE.md): the
// counts each row stands for, read off the report (its Samples column, or its Overhead of the
// "# Samples:" figure, apportioned so that the rows add up), the symbols named as run --profile
// names them, and what is refused.

#include <gtest/gtest.h>

#include <map>

#include "engine/import/import_format.h"
#include "tests/support/read_whole.h"

namespace nf::engine {
namespace {

const std::string kReal = std::string(NF_IMPORT_SAMPLES) + "/real";

Result<ImportTable> importReport(const std::string& name, const ImportOptions& options = {})
{
    return findImportFormat("perf-report")->parse({name, test::readWhole(kReal + "/" + name)}, options);
}

std::map<std::string, int> countsOf(const ImportTable& table)
{
    const auto& rep = table.profile->repetitions.at(0);
    std::map<std::string, int> out;
    for (const auto& c : rep.counts) {
        out[rep.symbols.at(static_cast<std::size_t>(c.symbol))] += c.samples;
    }
    return out;
}

TEST(PerfReportImport, OverheadIsApportionedOverTheSampleFigure)
{
    // acme: 15 samples of cycles:u, six rows adding up to 100.00%: 46.99% of 15 is 7.05, 29.24% 4.39,
    // 16.45% 2.47, 5.92% 0.89, 1.40% 0.21; the two samples past the whole parts go to the largest
    // remainders (0.89, 0.47).
    auto t = importReport("perf-report_flat_unknown-kernel-addr_tip-footer_acme.txt");
    ASSERT_TRUE(t.ok()) << t.error().message;
    const auto counts = countsOf(*t);
    EXPECT_EQ(counts.at("_dl_addr"), 7);
    EXPECT_EQ(counts.at("[unknown kernel]"), 4);  // [k] 0xffffffffaea00a67
    EXPECT_EQ(counts.at("__GI__IO_un_link.part.1"), 3);
    EXPECT_EQ(counts.at("_dl_setup_hash"), 1);
    EXPECT_EQ(counts.count("__nanosleep"), 0U);
    EXPECT_EQ(counts.count(kOtherSymbol), 0U);
    EXPECT_EQ(t->profile->summary.samples, 15U);
    EXPECT_EQ(t->profile->summary.event, "cycles:u");
    EXPECT_EQ(t->profile->summary.lost, 0U);  // "# Total Lost Samples: 0"
}

TEST(PerfReportImport, TheSamplesColumnIsExactAndTheRestIsOther)
{
    ImportOptions options;
    options.event = "branch-misses";
    auto t = importReport("perf-report_n-samples_two-events_cache-branch-misses_oltean.txt", options);
    ASSERT_TRUE(t.ok()) << t.error().message;
    const auto counts = countsOf(*t);
    EXPECT_EQ(counts.at("pfifo_fast_dequeue"), 34836);
    EXPECT_EQ(counts.at("__kmalloc_track_caller"), 23325);
    EXPECT_EQ(t->profile->summary.samples, 326000U);  // "326K": at least, perf truncates
    int listed = 0;
    for (const auto& [name, n] : counts) {
        listed += name == kOtherSymbol ? 0 : n;
    }
    EXPECT_EQ(counts.at(kOtherSymbol), 326000 - listed);
    ASSERT_FALSE(t->notes.empty());
    EXPECT_NE(t->notes.back().find("truncates"), std::string::npos);
}

TEST(PerfReportImport, RefusesWhatIsNotAProfile)
{
    const auto* format = findImportFormat("perf-report");
    const auto parse = [&](const std::string& text) { return format->parse({"r.txt", text}, {}); };
    const std::string head = "# Samples: 100  of event 'cycles'\n# Overhead  Command  Shared Object  Symbol\n#\n";
    EXPECT_FALSE(parse("").ok());
    auto r = parse(head + "    60.00%  a  [kernel.kallsyms]  [k] f\n    50.00%  a  [kernel.kallsyms]  [k] g\n");
    ASSERT_FALSE(r.ok());
    EXPECT_NE(r.error().message.find("more than the whole"), std::string::npos) << r.error().message;
    r = parse(head + "    " + std::string(400, '9') + ".00%  a  [kernel.kallsyms]  [k] f\n");
    ASSERT_FALSE(r.ok());
    EXPECT_NE(r.error().message.find("r.txt:4:"), std::string::npos) << r.error().message;
    r = parse("# Samples: " + std::string(100000, 'x') + "\n");  // a long comment: no regex over it
    ASSERT_FALSE(r.ok());
    EXPECT_NE(r.error().message.find("r.txt:1:"), std::string::npos) << r.error().message;
    auto sorted = parse("# Samples: 100  of event 'cycles'\n# Overhead  Symbol\n#\n    60.00%  [k] add\n");
    ASSERT_TRUE(sorted.ok()) << sorted.error().message;  // --sort sym; "add" is a name, not an address
    EXPECT_EQ(countsOf(*sorted).at("add"), 60);
}

}  // namespace
}  // namespace nf::engine
