// The GUI against a real (temporary) database: the run list model, the main window's selection and
// plot, and a missing database. Runs on the offscreen platform, no display needed.

#include <gtest/gtest.h>

#include <qcustomplot.h>
#include <stdlib.h>
#include "tests/support/temp_dir.h"
#include "tests/ui/ui_test_support.h"

#include <QApplication>
#include <QLabel>
#include <QProcess>
#include <QStatusBar>
#include <QTableView>
#include <cstdlib>
#include <filesystem>
#include <string>

#include "data/run_store.h"
#include "data/schema.h"
#include "engine/import/import_format.h"
#include "engine/model/metric.h"
#include "ui/compare_panel.h"
#include "ui/main_window.h"
#include "ui/repetition_plot.h"
#include "ui/run_list_model.h"

namespace nf::ui {
namespace {

using nf::test::TempDir;
using test::application;
using test::kReps;
using test::makeRepetition;
using test::makeRunStart;

class MainWindowTest : public ::testing::Test {
protected:
    void SetUp() override
    {
        application();
        auto db = data::openStore(m_dbPath);
        ASSERT_TRUE(db.ok()) << db.error().message;
        data::RunRecorder recorder(*db);
        ASSERT_TRUE(recorder.runStarted(makeRunStart()).ok());
        for (int r = 0; r < kReps; ++r)
            ASSERT_TRUE(recorder.repetitionFinished(makeRepetition(r)).ok());
        recorder.runFinished(engine::RunStatus::Complete, "");
        ASSERT_FALSE(recorder.finishError().has_value());
        m_runId = recorder.runId();
    }

    TempDir m_dir;
    std::string m_dbPath = m_dir.file("runs.db");
    std::int64_t m_runId = 0;
};

QString cell(const RunListModel& model, int row, int column)
{
    return model.data(model.index(row, column)).toString();
}

TEST_F(MainWindowTest, RunListModelShowsTheStoredRun)
{
    auto db = data::openStore(m_dbPath, data::Database::Mode::ReadOnly);
    ASSERT_TRUE(db.ok()) << db.error().message;
    RunListModel model;
    ASSERT_TRUE(model.load(*db).ok());
    ASSERT_EQ(model.rowCount(), 1);
    EXPECT_EQ(model.columnCount(), 9);
    EXPECT_EQ(model.headerData(RunListModel::Reps, Qt::Horizontal).toString(), "reps");
    EXPECT_EQ(cell(model, 0, RunListModel::Id), QString::number(m_runId));
    EXPECT_FALSE(cell(model, 0, RunListModel::Started).isEmpty());
    EXPECT_EQ(cell(model, 0, RunListModel::Status), "complete");
    EXPECT_EQ(cell(model, 0, RunListModel::Workload), "spin");
    EXPECT_EQ(cell(model, 0, RunListModel::Label), "gui test");
    EXPECT_EQ(cell(model, 0, RunListModel::Variants), "2");
    EXPECT_EQ(cell(model, 0, RunListModel::Reps), QString::number(kReps));
    EXPECT_FALSE(model.data(model.index(1, 0)).isValid());
    EXPECT_EQ(model.rowOf(m_runId), 0);
}

TEST_F(MainWindowTest, SelectsTheRunAndPlotsEachVariant)
{
    MainWindow window(QString::fromStdString(m_dbPath));
    EXPECT_EQ(window.runModel()->rowCount(), 1);
    EXPECT_TRUE(window.statusText().contains("1 run")) << window.statusText().toStdString();
    EXPECT_TRUE(window.statusText().contains(QString::fromStdString(m_dbPath)));

    ASSERT_TRUE(window.selectRun(m_runId));
    window.waitForLoads();
    EXPECT_EQ(window.runTable()->currentIndex().row(), 0);
    QCustomPlot* plot = window.plot()->customPlot();
    ASSERT_EQ(plot->graphCount(), 2);
    EXPECT_EQ(plot->graph(0)->name().left(2), "a:");
    EXPECT_EQ(plot->graph(1)->name().left(2), "b:");
    for (int v = 0; v < 2; ++v) {
        const QCPGraph* graph = plot->graph(v);
        ASSERT_EQ(graph->dataCount(), kReps) << v;
        for (int r = 0; r < kReps; ++r) {
            // Points sit near their repetition number, values near the variant's ticks/op.
            EXPECT_NEAR(graph->data()->at(r)->key, r + 1, 0.3) << v << "/" << r;
            EXPECT_NEAR(graph->data()->at(r)->value, 30.0 * (v + 1) + r, 1.0) << v << "/" << r;
        }
    }
    EXPECT_EQ(plot->itemCount(), 2);  // one mean line per variant
    EXPECT_TRUE(window.plot()->message().isEmpty());
    EXPECT_TRUE(plot->yAxis->label().startsWith("tsc_per_op (ticks/op)")) << plot->yAxis->label().toStdString();
    EXPECT_TRUE(plot->legend->visible());

    const QString shot = QString::fromStdString(m_dir.file("shot.png"));
    EXPECT_TRUE(window.saveScreenshot(shot));
    EXPECT_TRUE(std::filesystem::file_size(shot.toStdString()) > 0);
}

TEST_F(MainWindowTest, RunWithoutSamplesSaysSo)
{
    std::int64_t emptyRun = 0;
    {
        auto db = data::openStore(m_dbPath);
        ASSERT_TRUE(db.ok()) << db.error().message;
        data::RunRecorder recorder(*db);
        ASSERT_TRUE(recorder.runStarted(makeRunStart()).ok());
        recorder.runFinished(engine::RunStatus::Aborted, "stopped");
        emptyRun = recorder.runId();
    }
    MainWindow window(QString::fromStdString(m_dbPath));
    EXPECT_EQ(window.runModel()->rowCount(), 2);
    ASSERT_TRUE(window.selectRun(emptyRun));
    window.waitForLoads();
    EXPECT_EQ(window.plot()->message(), "no samples in this run");
    // Clicking a row (changing the table's current row) plots that run.
    window.runTable()->selectRow(window.runModel()->rowOf(m_runId));
    window.waitForLoads();
    EXPECT_TRUE(window.plot()->message().isEmpty());
    EXPECT_EQ(window.plot()->customPlot()->graphCount(), 2);
}

// File > Open of a file that is no noisefloor database keeps the open one in use: its runs, the
// comparison shown, what Export CSV writes and where new runs go.
TEST_F(MainWindowTest, OpeningANonDatabaseKeepsTheOpenOne)
{
    MainWindow window(QString::fromStdString(m_dbPath));
    ASSERT_TRUE(window.selectRun(m_runId));
    window.waitForLoads();
    const QString title = window.windowTitle();
    const QString report = window.comparePanel()->reportText();
    ASSERT_FALSE(report.isEmpty());
    const std::string junk = m_dir.file("junk.db");
    {
        std::FILE* f = std::fopen(junk.c_str(), "w");
        ASSERT_NE(f, nullptr);
        std::fputs("a text file a user picked by mistake, long enough to have a header\n", f);
        std::fclose(f);
    }
    EXPECT_FALSE(window.openDatabase(QString::fromStdString(junk)));
    EXPECT_TRUE(window.statusText().endsWith(" - still showing " + QString::fromStdString(m_dbPath)))
        << window.statusText().toStdString();
    EXPECT_EQ(window.windowTitle(), title);
    EXPECT_EQ(window.runModel()->rowCount(), 1);
    EXPECT_EQ(window.comparePanel()->reportText(), report);
    EXPECT_EQ(window.databasePath(), QString::fromStdString(m_dbPath));
}

TEST_F(MainWindowTest, ReloadShowsNewRunsAndKeepsTheSelection)
{
    MainWindow window(QString::fromStdString(m_dbPath));
    ASSERT_EQ(window.runModel()->rowCount(), 1);
    {
        auto db = data::openStore(m_dbPath);
        ASSERT_TRUE(db.ok()) << db.error().message;
        data::RunRecorder recorder(*db);
        ASSERT_TRUE(recorder.runStarted(makeRunStart()).ok());
        ASSERT_TRUE(recorder.repetitionFinished(makeRepetition(0)).ok());
        recorder.runFinished(engine::RunStatus::Complete, "");
    }
    window.reload();
    window.waitForLoads();
    EXPECT_EQ(window.runModel()->rowCount(), 2);
    EXPECT_TRUE(window.statusText().startsWith("2 runs in ")) << window.statusText().toStdString();
    const engine::RunRow* selected = window.runModel()->runAt(window.runTable()->currentIndex().row());
    ASSERT_NE(selected, nullptr);
    EXPECT_EQ(selected->id, m_runId);
    EXPECT_EQ(window.plot()->customPlot()->graph(0)->dataCount(), kReps);
}

TEST(MainWindowMissingDatabase, SaysSoInTheStatusBar)
{
    application();
    TempDir dir;
    const QString path = QString::fromStdString(dir.file("does-not-exist.db"));
    MainWindow window(path);
    EXPECT_EQ(window.runModel()->rowCount(), 0);
    EXPECT_TRUE(window.statusText().startsWith("No database at " + path)) << window.statusText().toStdString();
    EXPECT_FALSE(std::filesystem::exists(path.toStdString()));  // a read-only open must not create it
    window.reload();
    EXPECT_EQ(window.runModel()->rowCount(), 0);
}

// The start page names the tools `noisefloor import` reads, from the importers themselves: every
// importer's tools, so a new importer shows up without an edit here.
TEST(MainWindowMissingDatabase, TheStartPageNamesEveryImporter)
{
    application();
    TempDir dir;
    MainWindow window(QString::fromStdString(dir.file("does-not-exist.db")));
    QString text;
    for (const auto* label : window.findChildren<QLabel*>()) {
        text += label->text();
    }
    ASSERT_TRUE(text.contains("noisefloor import FILE")) << text.toStdString();
    for (const auto& format : engine::importFormats()) {
        for (const auto& tool : format.tools) {
            EXPECT_TRUE(text.contains(QString::fromStdString(tool))) << tool;
        }
    }
}

TEST(MainWindowMissingDatabase, NotADatabaseSaysSo)
{
    application();
    TempDir dir;
    const std::string path = dir.file("garbage.db");
    {
        std::FILE* f = std::fopen(path.c_str(), "w");
        ASSERT_NE(f, nullptr);
        std::fputs("this is not an SQLite database, just some text long enough to have a header\n", f);
        std::fclose(f);
    }
    MainWindow window(QString::fromStdString(path));
    EXPECT_EQ(window.runModel()->rowCount(), 0);
    EXPECT_TRUE(window.statusText().startsWith("Cannot open")) << window.statusText().toStdString();
}

}  // namespace
}  // namespace nf::ui

namespace nf::ui {
namespace {

// The Compare tab shows the report `noisefloor compare` prints for the same run, warnings included:
// both come from engine/report. The runs are the 0.1.0 fixture's: a spin run measured in a VM and a
// perf stat -r import whose values were rebuilt from its summaries.
TEST(CompareTab, ShowsTheCliReportAndItsWarnings)
{
    application();
    nf::test::TempDir dir;
    const std::string db = dir.file("fixture.db");
    std::filesystem::copy_file(NF_UI_FIXTURE_DB, db);
    MainWindow window(QString::fromStdString(db));
    for (const std::int64_t run : {1, 3}) {
        ASSERT_TRUE(window.selectRun(run));
        window.waitForLoads();
        QProcess cli;
        cli.start(QStringLiteral(NF_CLI_PATH),
                  {"--db", QString::fromStdString(db), "compare", QString::number(run), "--format", "text"});
        ASSERT_TRUE(cli.waitForFinished(30000));
        ASSERT_EQ(cli.exitCode(), 0) << cli.readAllStandardError().toStdString();
        const QString printed = QString::fromUtf8(cli.readAllStandardOutput());
        EXPECT_EQ(window.comparePanel()->reportText().toStdString(), printed.toStdString());
        const QStringList warnings = window.comparePanel()->warningLines();
        ASSERT_FALSE(warnings.isEmpty()) << "run " << run;
        for (const auto& w : warnings) {
            // The compact header says a virtual machine with the "(VM)" of its machine line.
            const bool vm = w.startsWith("measured in a virtual machine") && printed.contains("(VM)");
            EXPECT_TRUE(printed.contains(w.left(40)) || vm) << w.toStdString();
        }
    }
    EXPECT_TRUE(window.comparePanel()->warningLines().join('\n').contains("rebuilt from perf stat -r summaries"));
}

}  // namespace
}  // namespace nf::ui
