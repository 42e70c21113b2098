// Code size as scripts/bloat-o-meter counts and prints it: the rules of its default mode on
// symbols made up to hit each one, and the whole table against the script's own output for the
// ELF fixtures of tests/data/size (from `nm --size-sort`, as the script reads them).

#include <gtest/gtest.h>

#include <fstream>
#include <sstream>

#include "engine/model/code_size.h"
#include "engine/report/code_size_report.h"

namespace nf::engine {
namespace {

std::string fixture(const std::string& name)
{
    std::ifstream in(std::string(NF_SIZE_SAMPLES).append("/elf/").append(name));
    std::ostringstream text;
    text << in.rdbuf();
    return text.str();
}

// `nm --size-sort` output as the script splits it: size (hex), type, name.
std::vector<SizedSymbol> nmListing(const std::string& name)
{
    std::istringstream lines(fixture(name));
    std::vector<SizedSymbol> out;
    std::string size;
    char type = 0;
    std::string symbol;
    while (lines >> size >> type >> symbol) {
        out.push_back({symbol, type, std::stoull(size, nullptr, 16)});
    }
    return out;
}

TEST(CodeSize, NamesLoseEveryDotNumberAsTheScriptsRegexCutsThem)
{
    EXPECT_EQ(bloatName("page_order.isra.0"), "page_order.isra");
    EXPECT_EQ(bloatName("pool_refill.constprop.0"), "pool_refill.constprop");
    EXPECT_EQ(bloatName("counter.1"), "counter");
    EXPECT_EQ(bloatName("page_pool_alloc_pages.cold"), "page_pool_alloc_pages.cold");
    EXPECT_EQ(bloatName("f.constprop.0.isra.12"), "f.constprop.isra");
    EXPECT_EQ(bloatName("weird.5x"), "weirdx");
    EXPECT_EQ(bloatName("a..1"), "a.");
    EXPECT_EQ(bloatName("end."), "end.");
    EXPECT_EQ(bloatName("e843419@0b02_0000d7e7_408"), "e843419@0b02_0000d7e7_408");
}

TEST(CodeSize, CountsCodeAndDataButNotWeakOrGeneratedSymbols)
{
    const std::vector<SizedSymbol> symbols = {
        {"text", 't', 1},
        {"Text", 'T', 2},
        {"data", 'd', 4},
        {"Data", 'D', 8},
        {"bss", 'b', 16},
        {"Bss", 'B', 32},
        {"ro", 'r', 64},
        {"Ro", 'R', 128},
        {"weak", 'W', 1},
        {"weakobj", 'V', 1},
        {"ifunc", 'i', 1},
        {"unique", 'u', 1},
        {"common", 'C', 1},
        {"note", 'n', 1},
        {"__mod_table", 'R', 1},
        {"__se_sys_read", 'T', 1},
        {"__se_compat_sys_x", 'T', 1},
        {"__addressable_f", 'd', 1},
        {"linux_banner", 'R', 1},
        {"vermagic", 'R', 1},
        {"a:b", 'T', 1},
        {"", 'T', 1},
    };
    const auto sizes = bloatSizes(symbols);
    const SymbolSizes expected = {{"text", 1}, {"Text", 2}, {"data", 4}, {"Data", 8},
                                  {"bss", 16}, {"Bss", 32}, {"ro", 64},  {"Ro", 128}};
    EXPECT_EQ(sizes, expected);
}

TEST(CodeSize, GeneratedNamesAreCheckedBeforeTheNumbersAreCut)
{
    // The script tests `name == "linux_banner"` before re_NUMBER.sub: linux_banner.1 is counted, as
    // "linux_banner"; __mod_x.3 is left out by its prefix either way.
    const auto sizes = bloatSizes({{"linux_banner.1", 'r', 5}, {"__mod_x.3", 'r', 7}});
    EXPECT_EQ(sizes, (SymbolSizes{{"linux_banner", 5}}));
}

TEST(CodeSize, EqualNamesAreSummed)
{
    const auto sizes = bloatSizes(
        {{"counter.0", 'b', 4}, {"counter.1", 'b', 8}, {"f.isra.0", 't', 3}, {"f.isra.1", 't', 5}, {"f", 'T', 10}});
    EXPECT_EQ(sizes, (SymbolSizes{{"counter", 12}, {"f", 10}, {"f.isra", 8}}));
}

TEST(CodeSize, DiffCountsEveryNameAndSortsRowsAsTheScript)
{
    const SymbolSizes before = {{"same", 10}, {"grows", 10}, {"shrinks", 10}, {"gone", 7}, {"b", 1}, {"a", 1}};
    const SymbolSizes after = {{"same", 10}, {"grows", 13}, {"shrinks", 4}, {"new", 3}, {"b", 4}, {"a", 4}};
    const auto diff = bloatDiff(before, after);
    ASSERT_EQ(diff.sections.size(), 1u);
    const auto& s = diff.sections.front();
    EXPECT_EQ(s.title, "Function");
    EXPECT_EQ(s.added, 1);
    EXPECT_EQ(s.removed, 1);
    EXPECT_EQ(s.grown, 3);
    EXPECT_EQ(s.shrunk, 1);
    EXPECT_EQ(s.up, 3 + 3 + 3 + 3);
    EXPECT_EQ(s.down, 6 + 7);
    EXPECT_EQ(s.before, 39);
    EXPECT_EQ(s.after, 38);
    // Equal deltas by name, last first (sort(reverse=True) on (delta, name)); "same" has no row.
    std::vector<std::string> names;
    for (const auto& r : s.rows) {
        names.push_back(r.name);
    }
    EXPECT_EQ(names, (std::vector<std::string>{"new", "grows", "b", "a", "shrinks", "gone"}));
    EXPECT_EQ(bloatOMeterText(diff),
              "add/remove: 1/1 grow/shrink: 3/1 up/down: 12/-13 (-1)\n"
              "Function                                     old     new   delta\n"
              "new                                            -       3      +3\n"
              "grows                                         10      13      +3\n"
              "b                                              1       4      +3\n"
              "a                                              1       4      +3\n"
              "shrinks                                       10       4      -6\n"
              "gone                                           7       -      -7\n"
              "Total: Before=39, After=38, chg -2.56%\n");
}

TEST(CodeSize, EmptyFilesGiveTheScriptsZeroPercent)
{
    const auto text = bloatOMeterText(bloatDiff({}, {{"f", 5}}));
    EXPECT_EQ(text,
              "add/remove: 1/0 grow/shrink: 0/0 up/down: 5/0 (5)\n"
              "Function                                     old     new   delta\n"
              "f                                              -       5      +5\n"
              "Total: Before=0, After=5, chg +0.00%\n");
}

TEST(CodeSize, LongAndNonAsciiNamesArePaddedByCharacters)
{
    const std::string longName(45, 'x');
    const auto text = bloatOMeterText(
        bloatDiff({{longName, 1}, {"\xc3\xa9t\xc3\xa9", 1}}, {{longName, 2}, {"\xc3\xa9t\xc3\xa9", 2}}));
    EXPECT_NE(text.find(longName + "       1       2      +1\n"), std::string::npos) << text;
    // "été" is 3 characters (5 bytes): 37 spaces after it, as Python's %-40s gives.
    EXPECT_NE(text.find("\xc3\xa9t\xc3\xa9" + std::string(37, ' ') + "       1       2      +1\n"), std::string::npos)
        << text;
}

TEST(CodeSize, FunctionsKeepTheirRowsAndTheirClonesButTheTotalsStay)
{
    const auto diff = bloatDiff({{"page_order.isra", 3}, {"page_order_x", 1}, {"other", 5}},
                                {{"page_order.isra", 15}, {"page_order_x", 2}, {"other", 1}});
    EXPECT_EQ(bloatOMeterText(diff, {"page_order"}),
              "add/remove: 0/0 grow/shrink: 2/1 up/down: 13/-4 (9)\n"
              "Function                                     old     new   delta\n"
              "page_order.isra                                3      15     +12\n"
              "Total: Before=9, After=18, chg +100.00%\n");
    EXPECT_TRUE(namedBy("page_order.isra", {"page_order"}));
    EXPECT_TRUE(namedBy("page_order.isra", {"page_order.isra"}));
    EXPECT_FALSE(namedBy("page_order_x", {"page_order"}));
    EXPECT_FALSE(namedBy("page_order", {"page_order.isra"}));
}

// The script's own output for the fixtures, from the same nm listings it read.
TEST(CodeSize, TheFixturesTablesAreTheScriptsByteForByte)
{
    const std::vector<std::tuple<std::string, std::string, std::string>> pairs = {
        {"pool-old.o.nm", "pool-new.o.nm", "pool.o.bloat-o-meter"},
        {"pool-old-32.o.nm", "pool-new-32.o.nm", "pool-32.o.bloat-o-meter"},
        {"vmlinux-old.nm", "vmlinux-new.nm", "vmlinux.bloat-o-meter"},
        {"vmlinux-new.nm", "vmlinux-old.nm", "vmlinux-reversed.bloat-o-meter"},
    };
    for (const auto& [oldNm, newNm, expected] : pairs) {
        const auto diff = bloatDiff(bloatSizes(nmListing(oldNm)), bloatSizes(nmListing(newNm)));
        EXPECT_EQ(bloatOMeterText(diff), fixture(expected)) << expected;
    }
}

TEST(CodeSize, SummaryLineNamesTheLargestChange)
{
    CodeSizeRecord record;
    record.label = "patched";
    record.oldFile = "/boot/vmlinux.vanilla";
    record.newFile = "build/vmlinux.patched";
    record.diff = bloatDiff(bloatSizes(nmListing("vmlinux-old.nm")), bloatSizes(nmListing("vmlinux-new.nm")));
    EXPECT_EQ(codeSizeLine(record, record.label),
              "code size (patched, vmlinux.patched against vmlinux.vanilla): add/remove 1/1 grow/shrink 8/1 up/down "
              "+201/-63 (+138 bytes); largest: page_pool_release +86");
    record.imported = "mail/bloat.txt";
    EXPECT_EQ(codeSizeOrigin(record), "bloat-o-meter output bloat.txt");
    EXPECT_EQ(codeSizeSummary(bloatDiff({{"f", 1}}, {{"f", 1}})),
              "add/remove 0/0 grow/shrink 0/0 up/down +0/-0 (+0 bytes)");
    // Equal sizes of change: the first in the script's order (the growth).
    EXPECT_EQ(codeSizeSummary(bloatDiff({{"a", 10}, {"b", 10}}, {{"a", 5}, {"b", 15}})),
              "add/remove 0/0 grow/shrink 1/1 up/down +5/-5 (+0 bytes); largest: b +5");
}

TEST(CodeSize, SectionsOfTheCategorisedOutputAreSummed)
{
    CodeSizeDiff diff;
    diff.sections = bloatDiff({{"f", 10}}, {{"f", 12}}).sections;
    auto data = bloatDiff({{"table", 100}}, {{"table", 40}, {"extra", 8}}).sections.front();
    data.title = "RO Data";
    diff.sections.push_back(data);
    const auto all = combined(diff);
    EXPECT_EQ(all.added, 1);
    EXPECT_EQ(all.grown, 1);
    EXPECT_EQ(all.shrunk, 1);
    EXPECT_EQ(all.up, 10);
    EXPECT_EQ(all.down, 60);
    EXPECT_EQ(all.before, 110);
    EXPECT_EQ(all.after, 60);
    ASSERT_EQ(all.rows.size(), 3u);
    EXPECT_EQ(all.rows.back().name, "table");
    diff.sections.back().before.reset();
    EXPECT_FALSE(combined(diff).before.has_value());

    CodeSizeRecord record{"b", "2026-01-01T00:00:00Z", "a.ko", "b.ko", "", diff};
    const auto j = codeSizeJson(record);
    EXPECT_EQ(j["label"], "b");
    EXPECT_EQ(j["net"], -50);
    EXPECT_EQ(j["before"], nullptr);
    ASSERT_EQ(j["sections"].size(), 2u);
    EXPECT_EQ(j["sections"][1]["title"], "RO Data");
    EXPECT_EQ(j["sections"][1]["rows"][0]["name"], "extra");
    EXPECT_EQ(j["sections"][1]["rows"][0]["old"], nullptr);
    EXPECT_EQ(j["sections"][1]["rows"][0]["new"], 8);
    EXPECT_EQ(j["sections"][0]["change_pct"], 20.0);
}

// A name that is not UTF-8 (an ELF symbol is any bytes; the fuzz target found one in pasted output)
// is written to JSON with U+FFFD in place of the bad byte, not an error; UTF-8 names stay as they are.
TEST(CodeSize, JsonWritesNamesThatAreNotUtf8)
{
    CodeSizeDiff diff;
    diff.sections =
        bloatDiff({{"ok_\xc3\xa9", 4}, {"bad\xb5name", 10}}, {{"ok_\xc3\xa9", 6}, {"bad\xb5name", 12}}).sections;
    const CodeSizeRecord record{"b", "", "a\xff.ko", "b.ko", "", diff};
    const auto j = codeSizeJson(record);
    std::string text;
    ASSERT_NO_THROW(text = j.dump());
    EXPECT_NE(text.find("bad\xef\xbf\xbdname"), std::string::npos) << text;
    EXPECT_NE(text.find("ok_\xc3\xa9"), std::string::npos) << text;
    EXPECT_NE(text.find("a\xef\xbf\xbd.ko"), std::string::npos) << text;
}

TEST(CodeSize, ComparisonHeaderHasALineUnderTheKernelsLine)
{
    ComparisonReport report;
    auto& ctx = report.context;
    ctx.header = {"user-space model of x", "kernels: 6.12 build aaa (run 1 'a') vs 6.12 build bbb (run 2 'b')",
                  "run 1 'a': $ noisefloor run", "run 2 'b': $ noisefloor run"};
    ctx.briefHeader = {"user-space model of x", "run 1 'a': $ noisefloor run", "run 2 'b': $ noisefloor run"};
    CodeSizeRecord record{"b", "", "vmlinux.a", "vmlinux.b", "", bloatDiff({{"f", 1}}, {{"f", 7}})};
    addCodeSizes(report, {record});
    const std::string line =
        "code size (b, vmlinux.b against vmlinux.a): add/remove 0/0 grow/shrink 1/0 up/down +6/-0 (+6 bytes); "
        "largest: f +6";
    ASSERT_EQ(ctx.header.size(), 5u);
    EXPECT_EQ(ctx.header[2], line);
    ASSERT_EQ(ctx.briefHeader.size(), 4u);
    EXPECT_EQ(ctx.briefHeader[1], line);  // where the kernels line would be
    ASSERT_EQ(report.codeSizes.size(), 1u);
    EXPECT_EQ(report.codeSizes.front().label, "b");
}

}  // namespace
}  // namespace nf::engine
