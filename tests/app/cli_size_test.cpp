// noisefloor size end to end: the kernel's scripts/bloat-o-meter table for the ELF fixtures of
// tests/data/size, byte for byte (the script's own output is committed beside them), bad files in
// one line each, and a code size stored per label (size --label, import bloat-o-meter) printed
// beside that label in compare and series.

#include <gtest/gtest.h>

#include <algorithm>
#include <fstream>
#include <nlohmann/json.hpp>
#include <sstream>

#include "tests/app/cli_process.h"

namespace nf::test {
namespace {

class CliSize : public CliTest {
protected:
    static std::string elf(const std::string& name)
    {
        return std::string(NF_SIZE_SAMPLES).append("/elf/").append(name);
    }
    static std::string real(const std::string& name)
    {
        return std::string(NF_SIZE_SAMPLES).append("/real/").append(name);
    }

    // page_frag_test logs of one build, imported under `label`.
    void importBuild(const std::string& label, int us)
    {
        std::ostringstream log;
        for (int i = 0; i < 6; ++i) {
            log << "[ " << 100 + i
                << ".000000] 2000000 of iterations for non-aligned testing took: " << us + (i % 3 - 1) * 900 << "us\n";
        }
        const auto path = m_dir.file(label + ".txt");
        std::ofstream(path) << log.str();
        ASSERT_EQ(run({"import", "page-frag-test", path, "--label", label, "--kernel", "6.12-" + label}).status, 0);
    }
};

TEST_F(CliSize, PrintsTheScriptsTableByteForByte)
{
    const std::vector<std::tuple<std::string, std::string, std::string>> pairs = {
        {"pool-old.o", "pool-new.o", "pool.o.bloat-o-meter"},
        {"pool-old-32.o", "pool-new-32.o", "pool-32.o.bloat-o-meter"},
        {"vmlinux-old", "vmlinux-new", "vmlinux.bloat-o-meter"},
        {"vmlinux-new", "vmlinux-old", "vmlinux-reversed.bloat-o-meter"},
    };
    for (const auto& [oldFile, newFile, expected] : pairs) {
        const auto r = run({"size", elf(oldFile), elf(newFile)});
        ASSERT_EQ(r.status, 0) << r.err;
        EXPECT_EQ(r.out, readFile(elf(expected))) << expected;
        EXPECT_EQ(r.err, "");
    }
}

TEST_F(CliSize, FunctionKeepsItsRowsAndTheTotals)
{
    const auto r = run({"size", elf("vmlinux-old"), elf("vmlinux-new"), "--function", "page_order", "--function",
                        "counter", "--function", "pool_debug", "--function", "nothing_here"});
    ASSERT_EQ(r.status, 0) << r.err;
    // The script's table with only those rows.
    std::istringstream lines(readFile(elf("vmlinux.bloat-o-meter")));
    std::string expected;
    std::string line;
    while (std::getline(lines, line)) {
        const auto name = line.substr(0, line.find(' '));
        if (line.rfind("add/remove:", 0) == 0 || line.rfind("Function ", 0) == 0 || line.rfind("Total:", 0) == 0 ||
            name == "page_order.isra" || name == "counter") {
            expected += line + "\n";
        }
    }
    EXPECT_EQ(r.out, expected);
    EXPECT_EQ(r.err,
              "noisefloor: note: --function pool_debug: the same size in both files\n"
              "noisefloor: note: --function nothing_here: in neither file\n");
}

TEST_F(CliSize, JsonHasTheFiguresAndRows)
{
    const auto r = run({"size", elf("pool-old.o"), elf("pool-new.o"), "--format", "json"});
    ASSERT_EQ(r.status, 0) << r.err;
    const auto j = nlohmann::json::parse(r.out);
    EXPECT_EQ(j["add"], 1);
    EXPECT_EQ(j["remove"], 1);
    EXPECT_EQ(j["grow"], 8);
    EXPECT_EQ(j["shrink"], 1);
    EXPECT_EQ(j["up"], 201);
    EXPECT_EQ(j["down"], 63);
    EXPECT_EQ(j["net"], 138);
    EXPECT_EQ(j["before"], 535);
    EXPECT_EQ(j["after"], 673);
    EXPECT_EQ(j["new_file"], elf("pool-new.o"));
    ASSERT_EQ(j["sections"].size(), 1u);
    EXPECT_EQ(j["sections"][0]["rows"].size(), 11u);
    EXPECT_EQ(j["sections"][0]["rows"][0]["name"], "page_pool_release");
    EXPECT_EQ(j["sections"][0]["rows"][0]["old"], nullptr);
}

TEST_F(CliSize, BadFilesAreOneLineEach)
{
    const std::string c = std::string(NF_SIZE_SAMPLES).append("/pool.c");
    const std::vector<std::tuple<std::vector<std::string>, int, std::string>> cases = {
        {{m_dir.file("missing"), elf("vmlinux-new")},
         1,
         "cannot read " + m_dir.file("missing") + ": No such file or directory"},
        {{elf("vmlinux-old"), m_dir.path()}, 1, m_dir.path() + ": a directory, not a file"},
        {{c, elf("vmlinux-new")}, 2, c + ": not an ELF file (give vmlinux or a .ko)"},
        {{elf("vmlinux-old"), elf("vmlinux-stripped")},
         2,
         elf("vmlinux-stripped") + ": no symbol table (stripped); give the build's unstripped vmlinux or .ko"},
        {{elf("vmlinux-old")}, 2, "new is required"},
    };
    for (const auto& [files, status, message] : cases) {
        std::vector<std::string> args = {"size"};
        args.insert(args.end(), files.begin(), files.end());
        args.insert(args.end(), {"--label", "x"});
        const auto r = run(args);
        EXPECT_EQ(r.status, status) << message << ": " << r.err;
        EXPECT_EQ(r.err.rfind("noisefloor: " + message, 0), 0u) << r.err;
        EXPECT_EQ(std::count(r.err.begin(), r.err.end(), '\n'), 1) << r.err;
        EXPECT_EQ(r.out, "");
    }
}

TEST_F(CliSize, CompareSaysTheCandidatesCodeSize)
{
    importBuild("vanilla", 400000);
    importBuild("patched", 380000);
    const auto stored = run({"size", elf("vmlinux-old"), elf("vmlinux-new"), "--label", "patched"});
    ASSERT_EQ(stored.status, 0) << stored.err;
    auto text = run({"compare", "--label", "vanilla", "--label", "patched"});
    ASSERT_EQ(text.status, 0) << text.err;
    EXPECT_NE(text.out.find("kernels: 6.12-vanilla (run 1 'vanilla') vs 6.12-patched (run 2\n"
                            "  'patched')\n"
                            "code size (patched, vmlinux-new against vmlinux-old): add/remove 1/1\n"
                            "  grow/shrink 8/1 up/down +201/-63 (+138 bytes); largest:\n"
                            "  page_pool_release +86\n"),
              std::string::npos)
        << text.out;
    auto json = run({"compare", "--label", "vanilla", "--label", "patched", "--format", "json"});
    ASSERT_EQ(json.status, 0) << json.err;
    const auto j = nlohmann::json::parse(json.out);
    ASSERT_TRUE(j.contains("code_size")) << json.out;
    EXPECT_EQ(j["code_size"]["patched"]["net"], 138);
    EXPECT_EQ(j["code_size"]["patched"]["old_file"], elf("vmlinux-old"));
    EXPECT_FALSE(j["code_size"].contains("vanilla"));

    // An imported output replaces it.
    const auto imported =
        run({"import", "bloat-o-meter", real("default_x86-clwb_pfx-removed_ubizjak.txt"), "--label", "patched"});
    ASSERT_EQ(imported.status, 0) << imported.err;
    EXPECT_EQ(
        imported.out.rfind("imported bloat-o-meter output as the code size of 'patched' (replacing the one of ", 0), 0u)
        << imported.out;
    EXPECT_NE(imported.out.find("): add/remove 0/2 grow/shrink 3/0 up/down +190/-59 (+131 bytes); largest: "
                                "__copy_user_flushcache +81\n"),
              std::string::npos)
        << imported.out;
    text = run({"compare", "--label", "vanilla", "--label", "patched", "--verbose"});
    ASSERT_EQ(text.status, 0) << text.err;
    EXPECT_NE(text.out.find("code size (patched, bloat-o-meter output"), std::string::npos) << text.out;
}

TEST_F(CliSize, ImportTakesOnlyTheScriptsOutput)
{
    // Detected without the tool's name.
    const auto detected = run({"import", real("c_ice-switch_rows-cut_lobakin.txt"), "--label", "ice"});
    ASSERT_EQ(detected.status, 0) << detected.err;
    EXPECT_EQ(detected.out,
              "imported bloat-o-meter output as the code size of 'ice': add/remove 53/53 grow/shrink 1/1 up/down "
              "+4662/-5033 (-371 bytes); largest: ice_add_adv_rule -844\n"
              "  note: the 'RO Data' table lists 1 of its 105 changed symbols (cut in the source): its summary "
              "line's figures are kept\n");
    const auto netperf = std::string(NF_IMPORT_SAMPLES).append("/real/netperf_tcp-stream_confidence_kep4963.txt");
    const auto quoted = real("refuse_quoted_compaction-sysctl_yexingchen.txt");
    const auto good = real("default_no-change_hsincheng.txt");
    const std::vector<std::pair<std::vector<std::string>, std::string>> cases = {
        {{"bloat-o-meter", netperf}, netperf + ": not bloat-o-meter output"},
        {{"bloat-o-meter", quoted}, quoted + ":2: bloat-o-meter output quoted with '>'"},
        {{"bloat-o-meter", good, good}, "bloat-o-meter: one FILE"},
        {{"bloat-o-meter", good, "--host", "lab"}, good + ": bloat-o-meter output is a code size, not a run"},
    };
    for (const auto& [args, message] : cases) {
        std::vector<std::string> full = {"import"};
        full.insert(full.end(), args.begin(), args.end());
        full.insert(full.end(), {"--label", "x"});
        const auto r = run(full);
        EXPECT_EQ(r.status, 2) << message << ": " << r.err;
        EXPECT_EQ(r.err.rfind("noisefloor: " + message, 0), 0u) << r.err;
        EXPECT_EQ(std::count(r.err.begin(), r.err.end(), '\n'), 1) << r.err;
    }
    const auto list = run({"list", "--format", "json"});
    EXPECT_TRUE(list.out == "[]\n" || nlohmann::json::parse(list.out).empty()) << list.out;
}

TEST_F(CliSize, SeriesPrintsEachStepsCodeSize)
{
    importBuild("step1", 400000);
    importBuild("step2", 400300);  // not the same content: an import of it again would be refused
    importBuild("step3", 420000);
    ASSERT_EQ(run({"size", elf("pool-old.o"), elf("pool-new.o"), "--label", "step3"}).status, 0);
    const auto text = run({"series", "--label", "step1", "--label", "step2", "--label", "step3"});
    ASSERT_EQ(text.status, 0) << text.err;
    EXPECT_NE(text.out.find("code size (step3, pool-new.o against pool-old.o): add/remove 1/1\n"
                            "    grow/shrink 8/1 up/down +201/-63 (+138 bytes); largest:\n"
                            "    page_pool_release +86\n"),
              std::string::npos)
        << text.out;
    EXPECT_EQ(text.out.find("code size (step1"), std::string::npos) << text.out;
    const auto csv = run({"series", "--label", "step1", "--label", "step2", "--label", "step3", "--format", "csv"});
    ASSERT_EQ(csv.status, 0) << csv.err;
    EXPECT_NE(csv.out.find(",stands_apart,code_size_delta_bytes\n"), std::string::npos) << csv.out;
    std::istringstream rows(csv.out);
    std::string line;
    std::vector<std::string> all;
    while (std::getline(rows, line)) {
        all.push_back(line);
    }
    ASSERT_EQ(all.size(), 4u);
    EXPECT_EQ(all[1].back(), ',');  // step1: none stored
    EXPECT_EQ(all[3].substr(all[3].rfind(',') + 1), "138");
}

}  // namespace
}  // namespace nf::test
