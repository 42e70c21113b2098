// bloat-o-meter output as people pasted it into patches and mails (tests/data/size/real, sources in
// tests/data/size/PROVENANCE.md), read back into code size diffs: the figures below are what each
// file shows, read off by hand. Outputs of today's script print back byte for byte.

#include <gtest/gtest.h>

#include <fstream>
#include <sstream>

#include "engine/import/bloat_o_meter.h"
#include "engine/report/code_size_report.h"

namespace nf::engine {
namespace {

ImportSource real(const std::string& name)
{
    std::string path = NF_SIZE_SAMPLES;  // appended, not added: GCC 12 warns wrongly on + here
    path.append("/real/").append(name);
    std::ifstream in(path);
    std::ostringstream text;
    text << in.rdbuf();
    return {path, text.str()};
}

// The file from its first summary line on: what the script printed.
std::string output(const ImportSource& src)
{
    const auto at = src.text.find("add/remove:");
    return at == std::string::npos ? "" : src.text.substr(at);
}

struct Expected {
    std::string file;
    std::vector<std::string> titles;
    int added, removed, grown, shrunk;  // summed over the tables
    std::int64_t up, down;
    std::optional<std::int64_t> before, after;
    std::size_t rows;
    std::string largest;  // codeSizeSummary's tail
    bool cut;             // a note that the rows were cut
};

TEST(BloatOMeterImport, RealOutputsReadAsTheyShow)
{
    const std::vector<Expected> files = {
        {"default_x86-clwb_pfx-removed_ubizjak.txt",
         {"Function"},
         0,
         2,
         3,
         0,
         190,
         59,
         22807167,
         22807298,
         5,
         "largest: __copy_user_flushcache +81",
         false},
        {"c_i915-dpll-mgr_three-tables_ville.txt",
         {"Function", "Data", "RO Data"},
         2,
         0,
         0,
         4,
         28,
         215,
         28029 + 17 + 3600,
         27943 + 17 + 3499,
         6,
         "largest: even_dividers -108",
         false},
        {"c_ice-switch_rows-cut_lobakin.txt",
         {"Function", "RO Data"},
         53,
         53,
         1,
         1,
         4662,
         5033,
         std::nullopt,
         std::nullopt,
         4,
         "largest: ice_add_adv_rule -844",
         true},
        {"default_compaction-sysctl_data-symbol_yexingchen.txt",
         {"Function"},
         1,
         0,
         1,
         1,
         350,
         256,
         21104198,
         21104292,
         3,
         "largest: vm_compaction +320",
         false},
        {"default_2016_lowercase-function_meminfo_mhocko.txt",
         {"function"},
         0,
         0,
         2,
         1,
         1081,
         24,
         91716,
         92773,
         3,
         "largest: meminfo_proc_show +611",
         false},
        {"default_2012_static-prefix_no-total_khlebnikov.txt",
         {"function"},
         0,
         0,
         3,
         4,
         35,
         67,
         std::nullopt,
         std::nullopt,
         7,
         "largest: __mem_cgroup_commit_charge -36",
         false},
        {"default_2015_indented_no-total_brouer.txt",
         {"function"},
         0,
         0,
         0,
         2,
         0,
         15,
         std::nullopt,
         std::nullopt,
         2,
         "largest: kmem_cache_alloc_bulk -10",
         false},
        {"default_aarch64_e843419-veneers-isra_nysal.txt",
         {"Function"},
         0,
         2,
         1,
         1,
         4,
         60,
         31013792,
         31013736,
         4,
         "largest: finish_task_switch.isra -44",
         false},
        {"default_no-change_hsincheng.txt", {"Function"}, 0, 0, 0, 0, 0, 0, 22590709, 22590709, 0, "", false},
    };
    for (const auto& e : files) {
        SCOPED_TRACE(e.file);
        const auto parsed = parseBloatOMeter(real(e.file));
        ASSERT_TRUE(parsed.ok()) << parsed.error().message;
        std::vector<std::string> titles;
        for (const auto& s : parsed->diff.sections) {
            titles.push_back(s.title);
        }
        EXPECT_EQ(titles, e.titles);
        const auto all = combined(parsed->diff);
        EXPECT_EQ(all.added, e.added);
        EXPECT_EQ(all.removed, e.removed);
        EXPECT_EQ(all.grown, e.grown);
        EXPECT_EQ(all.shrunk, e.shrunk);
        EXPECT_EQ(all.up, e.up);
        EXPECT_EQ(all.down, e.down);
        EXPECT_EQ(all.before, e.before);
        EXPECT_EQ(all.after, e.after);
        EXPECT_EQ(all.rows.size(), e.rows);
        const auto summary = codeSizeSummary(parsed->diff);
        EXPECT_EQ(summary.size() >= e.largest.size() &&
                      summary.compare(summary.size() - e.largest.size(), e.largest.size(), e.largest) == 0,
                  true)
            << summary;
        EXPECT_EQ(!parsed->notes.empty(), e.cut);
        EXPECT_TRUE(looksLikeBloatOMeter(real(e.file).text));
    }
}

TEST(BloatOMeterImport, TodaysOutputsPrintBackByteForByte)
{
    for (const auto* name :
         {"default_x86-clwb_pfx-removed_ubizjak.txt", "c_i915-dpll-mgr_three-tables_ville.txt",
          "default_compaction-sysctl_data-symbol_yexingchen.txt", "default_aarch64_e843419-veneers-isra_nysal.txt",
          "default_no-change_hsincheng.txt", "default_2016_lowercase-function_meminfo_mhocko.txt"}) {
        const auto src = real(name);
        const auto parsed = parseBloatOMeter(src);
        ASSERT_TRUE(parsed.ok()) << parsed.error().message;
        EXPECT_EQ(bloatOMeterText(parsed->diff), output(src)) << name;
    }
}

TEST(BloatOMeterImport, RowsCutInAMailAreSaidAndTheSummaryKept)
{
    const auto parsed = parseBloatOMeter(real("c_ice-switch_rows-cut_lobakin.txt"));
    ASSERT_TRUE(parsed.ok()) << parsed.error().message;
    ASSERT_EQ(parsed->notes.size(), 1u);
    EXPECT_EQ(parsed->notes.front(),
              "the 'RO Data' table lists 1 of its 105 changed symbols (cut in the source): its summary line's figures "
              "are kept");
    const auto& ro = parsed->diff.sections.at(1);
    EXPECT_EQ(ro.added, 53);
    EXPECT_EQ(ro.removed, 52);
    EXPECT_FALSE(ro.before.has_value());
    ASSERT_EQ(ro.rows.size(), 1u);
    EXPECT_EQ(ro.rows[0].name, "ice_dummy_pkt_profiles");
    EXPECT_FALSE(ro.rows[0].oldBytes.has_value());
    EXPECT_EQ(ro.rows[0].newBytes, 672);

    const ImportSource elided{"elided.txt",
                              "add/remove: 0/0 grow/shrink: 2/0 up/down: 5/0 (5)\n"
                              "Function                                     old     new   delta\n"
                              "...\n"
                              "f                                             10      13      +3\n"
                              "Total: Before=100, After=105, chg +5.00%\n"};
    const auto cut = parseBloatOMeter(elided);
    ASSERT_TRUE(cut.ok()) << cut.error().message;
    EXPECT_EQ(cut->notes.size(), 1u);
}

TEST(BloatOMeterImport, WhatIsNotTheScriptsOutputIsRefusedNamingTheLine)
{
    const auto quoted = parseBloatOMeter(real("refuse_quoted_compaction-sysctl_yexingchen.txt"));
    ASSERT_FALSE(quoted.ok());
    EXPECT_EQ(
        quoted.error().message,
        real("refuse_quoted_compaction-sysctl_yexingchen.txt").path +
            ":2: bloat-o-meter output quoted with '>' (a mail's quoting): remove the quoting and import it again");
    const std::string header = "Function                                     old     new   delta\n";
    const std::vector<std::pair<std::string, std::string>> cases = {
        {"hello\nworld\n",
         "x.txt: not bloat-o-meter output (no 'add/remove: A/R grow/shrink: G/S up/down: U/-D (T)' line)"},
        {"add/remove: 0/0 grow/shrink: 1/0 up/down: 3/0 (3)\n" + header +
             "f                                             10      12      +3\n",
         "x.txt:3: the delta +3 is not new - old (2): 'f "},
        {"add/remove: 0/0 grow/shrink: 1/0 up/down: 3/0 (4)\n",
         "x.txt:1: the summary's (4) is not up - down = 3: not bloat-o-meter's line"},
        {"add/remove: 0/0 grow/shrink: 1/0 up/down: 3/5 (-2)\n", "x.txt:1: a figure out of range in "},
        {"add/remove: 1/0 grow/shrink: 0/0\n", "x.txt:1: a summary line that does not parse: "},
        {"add/remove: 0/0 grow/shrink: 0/0 up/down: 0/0 (0)\n",
         "x.txt:1: the summary line is not followed by the table's header (NAME old new delta)"},
        {"add/remove: 0/0 grow/shrink: 0/0 up/down: 0/0 (0)\nfoo bar\n",
         "x.txt:2: the summary line 1 is not followed by the table's header (NAME old new delta): 'foo bar'"},
        {"add/remove: 0/0 grow/shrink: 0/0 up/down: 0/0 (0)\n" + header + "f 1 2\n",
         "x.txt:3: not a row of bloat-o-meter's table (NAME OLD NEW DELTA): 'f 1 2'"},
        {"add/remove: 0/0 grow/shrink: 0/0 up/down: 0/0 (0)\n" + header + "Total: Before=5, After=6, chg +20.00%\n",
         "x.txt:3: After - Before is not the summary's up - down (0): not bloat-o-meter's total"},
        {"add/remove: 0/0 grow/shrink: 0/0 up/down: 0/0 (0)\n" + header +
             "Total: Before=5, After=5, chg +0.00%\nmore\n",
         "x.txt:4: after the total, only another table's summary line: 'more'"},
        {"add/remove: 0/0 grow/shrink: 0/0 up/down: 0/0 (0)\n" + header +
             "add/remove: 0/0 grow/shrink: 0/0 up/down: 0/0 (0)\n" + header,
         "x.txt:4: a second 'Function' table: two outputs of bloat-o-meter in one file; import each on its own"},
        {"add/remove: 0/0 grow/shrink: 0/0 up/down: 0/0 (0)\nadd/remove: 0/0 grow/shrink: 0/0 up/down: 0/0 (0)\n",
         "x.txt:2: a summary line where the table's header (NAME old new delta) of line 1's table belongs"},
    };
    for (const auto& [text, message] : cases) {
        const auto r = parseBloatOMeter({"x.txt", text});
        ASSERT_FALSE(r.ok()) << text;
        EXPECT_EQ(r.error().message.rfind(message, 0), 0u) << r.error().message;
    }
}

TEST(BloatOMeterImport, RunImportersRealOutputsAreNotTakenForIt)
{
    for (const auto* name : {"netperf_tcp-stream_confidence_kep4963.txt", "perf-stat_C20_mail-wrapped_bjorn.txt"}) {
        std::ifstream in(std::string(NF_IMPORT_SAMPLES).append("/real/").append(name));
        std::ostringstream text;
        text << in.rdbuf();
        EXPECT_FALSE(looksLikeBloatOMeter(text.str())) << name;
        EXPECT_FALSE(parseBloatOMeter({name, text.str()}).ok()) << name;
    }
}

}  // namespace
}  // namespace nf::engine
