// The panels: models under QAbstractItemModelTester, the editor's validation, the Compare panels
// from the engine's analysis, a screenshot of every tab checked for content, and the whole
// design-run-watch-compare path against the real engine.

#include <gtest/gtest.h>

#include <QAbstractItemModelTester>
#include <QLineEdit>
#include <QListWidget>
#include <QSignalSpy>
#include <QTabWidget>
#include <QTableWidget>
#include <QTest>

#include <qcustomplot.h>

#include "tests/support/temp_dir.h"
#include "tests/ui/ui_test_support.h"
#include "ui/compare_panel.h"
#include "ui/compare_plot.h"
#include "ui/comparison.h"
#include "ui/environment_panel.h"
#include "ui/event_client.h"
#include "ui/experiment_editor.h"
#include "ui/explore_panel.h"
#include "ui/history_panel.h"
#include "ui/live_panel.h"
#include "ui/main_window.h"
#include "ui/run_list_model.h"
#include "ui/store.h"

namespace nf::ui {
namespace {

class PanelsTest : public ::testing::Test {
protected:
    void SetUp() override
    {
        test::application();
        qputenv("NOISEFLOOR_BIN", NF_CLI_PATH);
        m_first = test::storeRun(m_dbPath, "vanilla");
        m_second = test::storeRun(m_dbPath, "patched");
        ASSERT_GT(m_first, 0);
        ASSERT_GT(m_second, 0);
    }

    nf::test::TempDir m_dir;
    std::string m_dbPath = m_dir.file("runs.db");
    QString m_db = QString::fromStdString(m_dbPath);
    std::int64_t m_first = 0;
    std::int64_t m_second = 0;
};

TEST_F(PanelsTest, ModelsPassTheModelTester)
{
    auto db = data::openStore(m_dbPath, data::Database::Mode::ReadOnly);
    ASSERT_TRUE(db.ok());
    RunListModel model;
    QAbstractItemModelTester tester(&model, QAbstractItemModelTester::FailureReportingMode::Fatal);
    RunFilterModel filter;
    filter.setSourceModel(&model);
    QAbstractItemModelTester filterTester(&filter, QAbstractItemModelTester::FailureReportingMode::Fatal);
    ASSERT_TRUE(model.load(*db).ok());
    EXPECT_EQ(filter.rowCount(), 2);
    filter.setFilters("patch", "", "", "");
    ASSERT_EQ(filter.rowCount(), 1);
    EXPECT_EQ(filter.index(0, RunListModel::Label).data().toString(), "patched");
    filter.setFilters("", "spin", "", QDate::currentDate().toString("yyyy"));
    EXPECT_EQ(filter.rowCount(), 2);
    filter.setFilters("", "udp-rx", "", "");
    EXPECT_EQ(filter.rowCount(), 0);
    model.clear();
    EXPECT_EQ(filter.rowCount(), 0);
}

TEST_F(PanelsTest, EditorMarksInvalidInputAndBuildsTheCommand)
{
    ExperimentEditor editor;
    ASSERT_TRUE(editor.selectWorkload("spin"));
    EXPECT_TRUE(editor.problems().isEmpty()) << editor.problems().join('\n').toStdString();
    EXPECT_TRUE(editor.runEnabled());

    QLineEdit* work = editor.paramField("work");
    ASSERT_NE(work, nullptr);
    work->setText("0");
    EXPECT_FALSE(editor.runEnabled());
    EXPECT_TRUE(work->property("invalid").toBool());
    ASSERT_EQ(editor.problems().size(), 1);
    EXPECT_TRUE(editor.problems().front().contains("out of range")) << editor.problems().front().toStdString();
    work->setText("abc");
    EXPECT_TRUE(editor.problems().front().contains("not an integer"));
    work->setText("500");
    EXPECT_TRUE(editor.runEnabled());
    EXPECT_FALSE(work->property("invalid").toBool());

    editor.setVariants({{"a", ""}, {"a", "nosuch=1"}});
    EXPECT_FALSE(editor.runEnabled());
    EXPECT_EQ(editor.problems().size(), 2) << editor.problems().join('\n').toStdString();
    EXPECT_FALSE(editor.variantsTable()->item(1, 0)->toolTip().isEmpty());
    editor.setVariants({{"a", ""}, {"b", "work=1000"}});
    EXPECT_TRUE(editor.runEnabled()) << editor.problems().join('\n').toStdString();
    editor.setRepetitions(3);
    editor.setLabel("try");
    const QStringList args = editor.arguments("/tmp/x.db");
    EXPECT_EQ(args.mid(0, 4), (QStringList{"--db", "/tmp/x.db", "run", "spin"}));
    EXPECT_TRUE(args.join(' ').contains("-p work=500")) << args.join(' ').toStdString();
    EXPECT_TRUE(args.join(' ').contains("--variant a --variant b:work=1000"));
    EXPECT_TRUE(args.join(' ').contains("--reps 3"));
    EXPECT_TRUE(args.join(' ').contains("--label try"));
}

TEST_F(PanelsTest, CompareSaysWhyAMetricIsMissing)
{
    auto db = data::openStore(m_dbPath, data::Database::Mode::ReadOnly);
    ASSERT_TRUE(db.ok());
    auto run = data::loadRun(*db, m_first);
    ASSERT_TRUE(run.ok());
    auto env = run->environment.json;
    env["counters"]["unsupported"] = {{{"name", "cycles"}, {"reason", "no PMU: hardware counters unavailable"}},
                                      {{"name", "instructions"}, {"reason", "no PMU: hardware counters unavailable"}}};
    run->environment = engine::RunEnvironment::fromJson(env);
    const ComparisonView view = compareRun(*run);
    ASSERT_TRUE(view.error.isEmpty()) << view.error.toStdString();
    // PPS and TSC ticks per op were measured; IPC and branch misses were not.
    EXPECT_EQ(view.panels[0].metric, "ops_per_sec");
    EXPECT_EQ(view.panels[3].metric, "tsc_per_op");
    EXPECT_TRUE(view.panels[1].notMeasured.contains("no PMU: hardware counters unavailable"))
        << view.panels[1].notMeasured.toStdString();
    ASSERT_EQ(view.panels[3].variants.size(), 2U);
    const auto& a = view.panels[3].variants[0];
    EXPECT_EQ(a.repetitions.size(), static_cast<std::size_t>(test::kReps));
    EXPECT_LE(a.ciLow, a.mean);
    EXPECT_GE(a.ciHigh, a.mean);
    EXPECT_NEAR(a.mean, 31.4, 1.0);
    ASSERT_FALSE(view.panels[3].verdicts.isEmpty());
    EXPECT_TRUE(view.panels[3].verdicts.join(' ').contains("slower"))
        << view.panels[3].verdicts.join(' ').toStdString();

    ComparePanel panel;
    panel.showComparison(view);
    EXPECT_TRUE(panel.panel(1)->message().contains("no PMU"));
    EXPECT_EQ(panel.panel(1)->customPlot()->graphCount(), 0);
    EXPECT_EQ(panel.panel(3)->customPlot()->graphCount(),
              6);  // dots and mean per variant, the differences, the candidate
    EXPECT_FALSE(panel.panel(3)->verdictText().isEmpty());
}

TEST_F(PanelsTest, ComparesVariantsAcrossRuns)
{
    MainWindow window(m_db);
    ASSERT_TRUE(window.compare({{m_first, "a"}, {m_second, "a"}}));
    window.waitForLoads();
    EXPECT_TRUE(window.comparePanel()->titleText().contains(QString("run %1:a vs run %2:a").arg(m_first).arg(m_second)))
        << window.comparePanel()->titleText().toStdString();
    EXPECT_EQ(window.comparePanel()->panel(3)->customPlot()->graphCount(), 6);  // + the differences and the candidate
    // The History tab offers every variant of both runs, with the compared ones ticked.
    const auto ticked = window.history()->tickedVariants();
    ASSERT_EQ(ticked.size(), 2U);
    EXPECT_EQ(window.history()->variantList()->count(), 4);
}

TEST_F(PanelsTest, ExplorePlotsASweepWithBands)
{
    const std::string id = "20261130T040000-0badcafe";
    const std::vector<std::string> values = {"100", "200", "400"};
    for (std::size_t i = 0; i < values.size(); ++i) {
        ASSERT_GT(test::storeRun(m_dbPath, "sweep", engine::SweepPoint{id, "work", values[i], static_cast<int>(i), 3}),
                  0);
    }
    MainWindow window(m_db);
    ASSERT_TRUE(window.showSweep(QString::fromStdString(id)));
    window.waitForLoads();
    EXPECT_EQ(window.tabs()->currentWidget(), window.explorePanel());
    QCustomPlot* plot = window.explorePanel()->customPlot();
    // Per variant: CI low, CI high (filled), mean; below, the candidate's differences.
    ASSERT_EQ(plot->axisRect(0)->graphs().size(), 6);
    ASSERT_EQ(plot->axisRect(1)->graphs().size(), 1);
    EXPECT_EQ(plot->graph(2)->dataCount(), 3);
    EXPECT_EQ(plot->graph(2)->name().left(1), "a");
    EXPECT_NEAR(plot->graph(2)->data()->at(0)->value, 31.4, 1.0);
    EXPECT_LE(plot->graph(0)->data()->at(0)->value, plot->graph(2)->data()->at(0)->value);
    EXPECT_GE(plot->graph(1)->data()->at(0)->value, plot->graph(2)->data()->at(0)->value);
    EXPECT_EQ(plot->graph(1)->channelFillGraph(), plot->graph(0));
    EXPECT_TRUE(window.explorePanel()->message().isEmpty());
    EXPECT_FALSE(window.showSweep("nosuch"));
}

TEST_F(PanelsTest, EditorChecksASweep)
{
    ExperimentEditor editor;
    ASSERT_TRUE(editor.selectWorkload("spin"));
    editor.setSweep("work=100,200,400");
    EXPECT_TRUE(editor.runEnabled()) << editor.problems().join('\n').toStdString();
    EXPECT_TRUE(editor.isSweep());
    EXPECT_TRUE(editor.arguments({}).join(' ').contains("--sweep work=100,200,400"));
    for (const char* bad : {"work=0,100", "nosuch=1,2", "work=100,100", "work"}) {
        editor.setSweep(bad);
        EXPECT_FALSE(editor.runEnabled()) << bad;
        EXPECT_EQ(editor.problems().size(), 1) << bad;
    }
    editor.setSweep("work=100,200");
    editor.setVariants({{"a", ""}, {"b", "work=300"}});
    EXPECT_FALSE(editor.runEnabled());  // a variant may not set the swept parameter
    editor.setSweep("");
    EXPECT_TRUE(editor.runEnabled());
}

TEST_F(PanelsTest, StaleLoadsAreDropped)
{
    RunLoader loader;
    QSignalSpy loaded(&loader, &RunLoader::loaded);
    auto store = Store::open(m_db);
    ASSERT_TRUE(store.ok()) << store.error().message;
    loader.request(*store, {m_first});
    const auto last = loader.request(*store, {m_second});
    loader.waitForIdle();
    ASSERT_EQ(loaded.count(), 1);
    EXPECT_EQ(loaded.at(0).at(0).value<std::uint64_t>(), last);
    EXPECT_EQ(loader.dropped(), 1);
}

TEST_F(PanelsTest, EveryTabRendersContent)
{
    MainWindow window(m_db);
    window.selectRun(m_first);
    for (const auto& tab : MainWindow::tabNames()) {
        ASSERT_TRUE(window.showTab(tab));
        const QString file = QString::fromStdString(m_dir.file(tab.toStdString() + ".png"));
        ASSERT_TRUE(window.saveScreenshot(file)) << tab.toStdString();
        const QImage image(file);
        ASSERT_FALSE(image.isNull());
        // Widgets, text and plots cover a good part of the window, not a blank page.
        EXPECT_GT(test::drawnPixels(image), image.width() * image.height() / 4 / 20) << tab.toStdString();
    }
    EXPECT_EQ(window.comparePanel()->panel(0)->customPlot()->graphCount(), 6);  // + the differences and the candidate
    EXPECT_GT(window.environmentPanel()->table()->rowCount(), 3);
    EXPECT_FALSE(window.showTab("nosuch"));
}

TEST_F(PanelsTest, DesignRunWatchCompare)
{
    MainWindow window(m_db);
    ExperimentEditor* editor = window.editor();
    ASSERT_TRUE(editor->selectWorkload("spin"));
    editor->setVariants({{"a", ""}, {"b", "work=200"}});
    editor->setRepetitions(2);
    editor->setDuration(0.05);
    editor->setLabel("from the gui");
    QSignalSpy ended(window.eventClient(), &EventClient::processEnded);
    ASSERT_TRUE(window.startRun());
    EXPECT_EQ(window.tabs()->currentWidget(), window.livePanel());
    EXPECT_FALSE(window.startRun());  // one run at a time
    ASSERT_TRUE(ended.wait(120000)) << window.eventClient()->stderrText().toStdString();
    QTRY_VERIFY_WITH_TIMEOUT(!window.loader()->busy(), 30000);
    window.waitForLoads();
    EXPECT_GT(window.livePanel()->sampleCount(), 0) << window.livePanel()->statusText().toStdString() << "\n"
                                                    << window.livePanel()->logText().toStdString();
    EXPECT_EQ(window.runModel()->rowCount(), 3);
    EXPECT_EQ(window.runModel()->runAt(0)->label, "from the gui");
    EXPECT_EQ(window.tabs()->currentWidget(), window.comparePanel());
    EXPECT_TRUE(window.comparePanel()->titleText().contains("from the gui"))
        << window.comparePanel()->titleText().toStdString();
}

}  // namespace
}  // namespace nf::ui

namespace nf::ui {
namespace {

TEST_F(PanelsTest, SweepFromTheEditorOpensInExplore)
{
    MainWindow window(m_db);
    ExperimentEditor* editor = window.editor();
    ASSERT_TRUE(editor->selectWorkload("spin"));
    editor->setVariants({{"a", ""}, {"b", ""}});
    editor->setSweep("work=100,300");
    editor->setRepetitions(2);
    editor->setDuration(0.05);
    QSignalSpy ended(window.eventClient(), &EventClient::processEnded);
    ASSERT_TRUE(window.startRun());
    ASSERT_TRUE(ended.wait(180000)) << window.eventClient()->stderrText().toStdString();
    window.waitForLoads();
    EXPECT_EQ(window.runModel()->rowCount(), 4);  // two stored runs plus one per point
    EXPECT_EQ(window.tabs()->currentWidget(), window.explorePanel());
    ASSERT_EQ(window.explorePanel()->customPlot()->graphCount(), 6 + 1)
        << window.explorePanel()->message().toStdString();
    EXPECT_EQ(window.explorePanel()->customPlot()->graph(2)->dataCount(), 2);
}

}  // namespace
}  // namespace nf::ui
