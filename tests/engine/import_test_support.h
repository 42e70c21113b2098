#pragma once
// What the importer tests share: the captured outputs under tests/data/import, a parse by format
// name, a metric's values per repetition as compare computes them, and a refusal's message.

#include <gtest/gtest.h>

#include <algorithm>
#include <fstream>
#include <sstream>
#include <string>
#include <vector>

#include "engine/import/import_format.h"
#include "engine/import/imported_run.h"

namespace nf::engine::import_test {

inline ImportSource sample(const std::string& name)
{
    std::ifstream in(std::string(NF_IMPORT_SAMPLES) + "/" + name, std::ios::binary);
    std::ostringstream text;
    text << in.rdbuf();
    EXPECT_FALSE(text.str().empty()) << name;
    return {name, text.str()};
}

inline Result<ImportTable> parse(const std::string& format, const ImportSource& src, const ImportOptions& options = {})
{
    return parseImportFiles(*findImportFormat(format), {src}, options);
}

// The metric's value per repetition, as compare computes it.
inline std::vector<double> values(const ImportTable& table, const std::string& metric)
{
    ImportRequest request{"x", {"f"}, "label"};
    auto run = importedRun(table, request);
    EXPECT_TRUE(run.ok());
    RunData data{{"default"}, table.layout, {}, {}};
    for (const auto& rep : run->repetitions) {
        data.samples.append(rep.samples);
    }
    for (const auto& m : table.layout.metrics) {
        if (m.name == metric) {
            return data.repetitionValues(0, m, {});
        }
    }
    ADD_FAILURE() << "no metric " << metric;
    return {};
}

// The message `r` is refused with; a failure, and "", where it was accepted.
template <typename T>
std::string refusal(const Result<T>& r)
{
    EXPECT_FALSE(r.ok()) << "accepted";
    return r.ok() ? std::string() : r.error().message;
}

// Seed 001 as the mail has it: the pre-patch block with its header ('CPU(s) 20'), the post-patch block
// without it.
inline const char* const kPreBlock = "real/perf-stat_C20_mail-wrapped_bjorn.txt";
inline const char* const kPostBlock = "real/perf-stat_C20_no-header_bjorn.txt";

inline std::vector<std::string> metricNames(const ImportTable& t)
{
    std::vector<std::string> names;
    for (const auto& m : t.layout.metrics) {
        names.push_back(m.name);
    }
    return names;
}

inline bool hasNote(const ImportTable& t, const std::string& part)
{
    return std::any_of(t.notes.begin(), t.notes.end(),
                       [&](const std::string& n) { return n.find(part) != std::string::npos; });
}

}  // namespace nf::engine::import_test
