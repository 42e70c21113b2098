// Every real tool output in tests/data/import/real (published by the tools' users, PROVENANCE.md)
// imported as `noisefloor import FILE` would: the tool detected from the content, every value of
// expected/NAME.json found among what the importer read (rows counts included), every number
// stored in the table equal to what the file printed, the kernel and host where the expected file
// names them, and the files marked "refuse" refused with one line naming the file and the line.

#include <gtest/gtest.h>

#include <cmath>
#include <filesystem>
#include <map>
#include <nlohmann/json.hpp>
#include <set>

#include "engine/import/import_format.h"
#include "engine/import/imported_run.h"
#include "tests/support/read_whole.h"

namespace nf::engine {
namespace {

const std::string kReal = std::string(NF_IMPORT_SAMPLES) + "/real";

// "event task-clock (old "task-clock (msec)" naming)" -> "event task-clock": remarks in parentheses
// (those with a space, '@' or a quote inside) and quotes are not part of a value's name.
std::string keyOf(const nlohmann::json& check)
{
    if (check.contains("key")) {
        return check["key"].get<std::string>();
    }
    const std::string what = check["what"].get<std::string>();
    std::string out;
    for (std::size_t i = 0; i < what.size(); ++i) {
        if (what[i] == '(') {
            int depth = 0;
            std::size_t j = i;
            for (; j < what.size(); ++j) {
                depth += what[j] == '(' ? 1 : what[j] == ')' ? -1 : 0;
                if (depth == 0) {
                    break;
                }
            }
            const auto inner = what.substr(i, j - i + 1);
            if (inner.find_first_of(" @\"") != std::string::npos) {
                i = j;
                continue;
            }
        }
        if (what[i] != '"') {
            out += what[i];
        }
    }
    std::string squeezed;
    for (char c : out) {
        if (c == ' ' && (squeezed.empty() || squeezed.back() == ' ')) {
            continue;
        }
        squeezed += c;
    }
    while (!squeezed.empty() && squeezed.back() == ' ') {
        squeezed.pop_back();
    }
    return squeezed;
}

struct RealFile {
    std::string name;  // without .txt
    nlohmann::json expected;
};

std::vector<RealFile> realFiles()
{
    std::vector<RealFile> out;
    for (const auto& e : std::filesystem::directory_iterator(kReal)) {
        if (e.path().extension() != ".txt") {
            continue;
        }
        const auto name = e.path().stem().string();
        out.push_back({name, nlohmann::json::parse(test::readWhole(kReal + "/expected/" + name + ".json"))});
    }
    std::sort(out.begin(), out.end(), [](const RealFile& a, const RealFile& b) { return a.name < b.name; });
    return out;
}

// sar needs the interface: the one the first check names.
ImportOptions optionsFor(const RealFile& f)
{
    ImportOptions o;
    if (f.expected["tool"] == "sar" && !f.expected["checks"].empty()) {
        std::string what = f.expected["checks"][0]["what"];
        if (what.rfind("statistics[", 0) == 0) {
            const auto at = what.find("net-dev ");
            what = what.substr(at + 8);
        }
        o.iface = what.substr(0, what.find(' '));
    }
    if (f.expected.contains("event")) {  // perf script of several events: the one to read
        o.event = f.expected["event"].get<std::string>();
    }
    return o;
}

TEST(RealImports, EveryFileImportsRightOrIsRefusedWithItsLine)
{
    const auto files = realFiles();
    ASSERT_GE(files.size(), 60U);
    std::map<std::string, std::pair<int, int>> byLayout;  // tool/layout -> right, all
    for (const auto& f : files) {
        SCOPED_TRACE(f.name);
        const std::string path = "real/" + f.name + ".txt";
        const ImportSource src{path, test::readWhole(kReal + "/" + f.name + ".txt")};
        const std::string tool = f.expected["tool"];
        const bool refuse = f.expected["expect"] == "refuse";
        auto& tally = byLayout[tool + " " + f.expected["layout"].get<std::string>()];
        ++tally.second;
        const int failuresBefore =
            ::testing::UnitTest::GetInstance()->current_test_info()->result()->total_part_count();
        [&] {
            auto format = detectImportFormat(src);
            ASSERT_TRUE(format.ok()) << format.error().message;
            EXPECT_EQ((*format)->name, tool);
            auto table = parseImportFiles(**format, {src}, optionsFor(f));
            if (refuse) {
                ASSERT_FALSE(table.ok()) << "imported a file that must be refused";
                const auto& msg = table.error().message;
                EXPECT_EQ(msg.find('\n'), std::string::npos) << msg;
                EXPECT_EQ(msg.rfind(path + ":", 0), 0U) << msg;
                EXPECT_TRUE(std::isdigit(static_cast<unsigned char>(msg[path.size() + 1])) != 0)
                    << "the error names no line: " << msg;
            } else {
                ASSERT_TRUE(table.ok()) << table.error().message;
                EXPECT_FALSE(table->detected.empty());
                std::map<std::string, double> read;
                for (const auto& r : table->readings) {
                    read.try_emplace(r.key, r.value);
                }
                for (const auto& check : f.expected["checks"]) {
                    const auto key = keyOf(check);
                    if (check.contains("printed") && !check["printed"].get<std::string>().empty()) {
                        EXPECT_NE(src.text.find(check["printed"].get<std::string>()), std::string::npos) << key;
                    }
                    const auto it = read.find(key);
                    if (it == read.end()) {
                        ADD_FAILURE() << "no reading '" << key << "'";
                        continue;
                    }
                    const double want = check["value"].get<double>();
                    EXPECT_NEAR(it->second, want, std::max(1e-12, std::fabs(want) * 1e-12)) << key;
                }
                // sar prints the kernel and host in its header: "Linux 4.4.0-51-generic (edgar-pc) ...".
                if (f.expected.contains("kernel")) {
                    EXPECT_EQ(table->kernel, f.expected["kernel"].get<std::string>());
                }
                if (f.expected.contains("host")) {
                    EXPECT_EQ(table->host, f.expected["host"].get<std::string>());
                }
                ImportRequest request{tool, {path}, "real"};
                EXPECT_TRUE(importedRun(*table, request).ok());
            }
        }();
        const int failuresAfter = ::testing::UnitTest::GetInstance()->current_test_info()->result()->total_part_count();
        tally.first += failuresAfter == failuresBefore ? 1 : 0;
    }
    for (const auto& [layout, n] : byLayout) {
        std::cout << "  " << layout << ": " << n.first << " of " << n.second << " right\n";
    }
}

}  // namespace
}  // namespace nf::engine
