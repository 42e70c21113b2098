#include "data/export.h"

#include <gtest/gtest.h>

#include <sstream>

#include "data/schema.h"
#include "tests/data/data_test_support.h"

namespace nf::data {
namespace {

using test::TempDir;

std::vector<std::string> splitLines(const std::string& text)
{
    std::vector<std::string> lines;
    std::istringstream in(text);
    for (std::string line; std::getline(in, line);)
        lines.push_back(line);
    return lines;
}

std::vector<std::string> splitFields(const std::string& line)  // no quoted fields expected
{
    std::vector<std::string> fields;
    std::string field;
    std::istringstream in(line);
    while (std::getline(in, field, ','))
        fields.push_back(field);
    if (!line.empty() && line.back() == ',')
        fields.emplace_back();
    return fields;
}

class ExportTest : public ::testing::Test {
protected:
    void SetUp() override
    {
        auto db = openStore(m_dir.file("runs.db"));
        ASSERT_TRUE(db.ok()) << db.error().message;
        RunRecorder recorder(*db);
        ASSERT_TRUE(recorder.runStarted(test::makeRunStart("export")).ok());
        m_reps = {test::makeRepetition(0, 3, 0.0), test::makeRepetition(1, 3, 1.0)};
        for (const auto& rep : m_reps)
            ASSERT_TRUE(recorder.repetitionFinished(rep).ok());
        recorder.runFinished(engine::RunStatus::Complete, "");
        auto run = loadRun(*db, recorder.runId());
        ASSERT_TRUE(run.ok()) << run.error().message;
        m_run = std::move(*run);
    }

    TempDir m_dir;
    std::vector<engine::RepetitionResult> m_reps;
    engine::RunRecord m_run;
};

TEST_F(ExportTest, CsvHeaderAndRows)
{
    std::ostringstream out;
    ASSERT_TRUE(writeCsv(m_run, out).ok());
    ASSERT_TRUE(out.good());
    auto lines = splitLines(out.str());
    ASSERT_EQ(lines.size(), 1 + m_run.data.samples.size());
    EXPECT_EQ(m_run.data.samples.size(), 12u);
    EXPECT_EQ(lines[0],
              "run,variant,repetition,sample,pair,layout,start_s,duration_s,tsc_per_op,ns_per_op,ops_per_sec,"
              "ops,tsc_ticks,elapsed_ns");
    for (std::size_t i = 1; i < lines.size(); ++i)
        EXPECT_EQ(splitFields(lines[i]).size(), 14u) << lines[i];
}

TEST_F(ExportTest, CsvMetricMatchesHandComputation)
{
    std::ostringstream out;
    ASSERT_TRUE(writeCsv(m_run, out).ok());
    auto lines = splitLines(out.str());
    // The first sample of the run: repetition 0, variant 0, sample 0 (see makeRepetition).
    auto fields = splitFields(lines[1]);
    ASSERT_EQ(fields.size(), 14u);
    EXPECT_EQ(fields[0], std::to_string(m_run.row.id));
    EXPECT_EQ(fields[1], "a");
    EXPECT_EQ(fields[2], "0");
    EXPECT_EQ(fields[3], "0");
    EXPECT_EQ(fields[4], "0");
    EXPECT_EQ(fields[5], "");  // layout: none recorded (one placement)
    EXPECT_EQ(std::stod(fields[6]), 0.0);
    EXPECT_EQ(std::stod(fields[7]), 0.01);
    double ops = 1000.0;
    double ticks = ops * 30.5;
    double ns = ops * 10.25 + 0.5;
    EXPECT_DOUBLE_EQ(std::stod(fields[8]), ticks / ops);      // tsc_per_op
    EXPECT_DOUBLE_EQ(std::stod(fields[9]), ns / ops);         // ns_per_op
    EXPECT_DOUBLE_EQ(std::stod(fields[10]), 1e9 * ops / ns);  // ops_per_sec
    EXPECT_EQ(fields[11], "1000");
    EXPECT_EQ(fields[12], "30500");
    EXPECT_EQ(fields[13], "10250.5");
}

TEST_F(ExportTest, CsvEmptyCellsAndQuoting)
{
    m_run.data.variantNames[0] = "with, comma \"quoted\"";
    auto samples = m_run.data.samples.toSamples();
    samples[0].pair = -1;
    samples[0].values[0] = 0;  // ops = 0: per-op metrics undefined
    m_run.data.samples = engine::RunTable(m_run.data.layout.quantities.size(), samples);
    std::ostringstream out;
    ASSERT_TRUE(writeCsv(m_run, out).ok());
    auto lines = splitLines(out.str());
    // No alternation round and no placement: two empty cells.
    std::string prefix = std::to_string(m_run.row.id) + ",\"with, comma \"\"quoted\"\"\",0,0,,,0,";
    EXPECT_EQ(lines[1].substr(0, prefix.size()), prefix) << lines[1];
    EXPECT_NE(lines[1].find(",,"), std::string::npos);
    EXPECT_NE(lines[1].find(",0,30500,10250.5"), std::string::npos) << lines[1];
}

TEST_F(ExportTest, EverySampleCarriesItsRepetitionsPlacement)
{
    m_run.data.layouts[{0, 0}] = 3;
    m_run.data.layouts[{1, 0}] = 6;
    std::ostringstream csv;
    ASSERT_TRUE(writeCsv(m_run, csv).ok());
    const auto lines = splitLines(csv.str());
    for (std::size_t i = 1; i < lines.size(); ++i) {
        const auto fields = splitFields(lines[i]);
        const std::string want = fields[2] != "0" ? "" : fields[1] == "a" ? "3" : "6";
        EXPECT_EQ(fields[5], want) << lines[i];
    }
    std::ostringstream json;
    ASSERT_TRUE(writeJson(m_run, json).ok());
    const auto parsed = nlohmann::json::parse(json.str());
    ASSERT_FALSE(parsed.at("samples").empty());
    const auto& first = parsed.at("samples").front();
    EXPECT_EQ(first.at("layout"), first.at("variant_name") == "a" ? 3 : 6);
}

TEST_F(ExportTest, JsonParsesBack)
{
    std::ostringstream out;
    ASSERT_TRUE(writeJson(m_run, out).ok());
    ASSERT_TRUE(out.good());
    auto doc = nlohmann::json::parse(out.str(), nullptr, false);
    ASSERT_FALSE(doc.is_discarded());
    EXPECT_EQ(doc["run"]["id"], m_run.row.id);
    EXPECT_EQ(doc["run"]["label"], "export");
    EXPECT_EQ(doc["run"]["status"], "complete");
    EXPECT_EQ(doc["spec"], engine::toJson(m_run.spec));
    EXPECT_EQ(doc["environment"], m_run.environment.json);
    ASSERT_EQ(doc["variants"].size(), 2u);
    EXPECT_EQ(doc["variants"][1]["name"], "b");
    EXPECT_EQ(doc["variants"][1]["params"], m_run.variantParams[1]);
    EXPECT_EQ(doc["layout"]["quantities"].size(), 3u);
    EXPECT_EQ(doc["layout"]["metrics"][0]["name"], "tsc_per_op");
    ASSERT_EQ(doc["samples"].size(), m_run.data.samples.size());
    const auto& first = doc["samples"][0];
    EXPECT_EQ(first["variant"], 0);
    EXPECT_EQ(first["quantities"]["ops"], 1000.0);
    EXPECT_DOUBLE_EQ(first["metrics"]["tsc_per_op"].get<double>(), 30.5);
    EXPECT_NE(out.str().find("\n  \"environment\""), std::string::npos);  // indent 2
}

TEST_F(ExportTest, JsonUndefinedValuesAreNull)
{
    auto samples = m_run.data.samples.toSamples();
    samples[0].values[0] = 0;
    samples[0].values[1] = std::nan("");
    m_run.data.samples = engine::RunTable(m_run.data.layout.quantities.size(), samples);
    std::ostringstream out;
    ASSERT_TRUE(writeJson(m_run, out).ok());
    auto doc = nlohmann::json::parse(out.str(), nullptr, false);
    ASSERT_FALSE(doc.is_discarded());
    EXPECT_TRUE(doc["samples"][0]["quantities"]["tsc_ticks"].is_null());
    EXPECT_TRUE(doc["samples"][0]["metrics"]["tsc_per_op"].is_null());
}

// A stream that fails (a full disk, a closed pipe) gives an Error, not an exception or a success.
TEST_F(ExportTest, AFailedStreamIsAnError)
{
    for (const bool json : {false, true}) {
        std::ostringstream out;
        out.setstate(std::ios::badbit);
        const auto written = json ? writeJson(m_run, out) : writeCsv(m_run, out);
        ASSERT_FALSE(written.ok()) << json;
        EXPECT_EQ(written.error().message, "the export could not be written");
    }
}

}  // namespace
}  // namespace nf::data
