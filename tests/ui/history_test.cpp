// The History tab: each run's sweep point in a column, a filter that never silently drops the
// compared runs, another database that starts with a clean selection, and a repetition plot that
// shows every selected run's ticked variants with a legend whose entries stay whole.

#include <gtest/gtest.h>

#include <set>

#include <QFontMetrics>
#include <QLabel>
#include <QListWidget>
#include <QTableView>
#include <QTest>

#include <qcustomplot.h>

#include "data/run_store.h"
#include "engine/analysis/chunk_cut.h"

#include "tests/support/temp_dir.h"
#include "tests/ui/ui_test_support.h"
#include "ui/compare_panel.h"
#include "ui/history_panel.h"
#include "ui/main_window.h"
#include "ui/repetition_plot.h"
#include "ui/run_list_model.h"

namespace nf::ui {
namespace {

class HistoryTest : public ::testing::Test {
protected:
    void SetUp() override
    {
        test::application();
        qputenv("NOISEFLOOR_BIN", NF_CLI_PATH);
        m_vanilla = test::storeRun(m_dbPath, "vanilla");
        m_patched = test::storeRun(m_dbPath, "patched");
        ASSERT_GT(m_vanilla, 0);
        ASSERT_GT(m_patched, 0);
    }

    nf::test::TempDir m_dir;
    std::string m_dbPath = m_dir.file("runs.db");
    QString m_db = QString::fromStdString(m_dbPath);
    std::int64_t m_vanilla = 0;
    std::int64_t m_patched = 0;
};

QString cell(const MainWindow& window, std::int64_t runId, int column)
{
    const RunListModel* model = window.runModel();
    return model->index(model->rowOf(runId), column).data().toString();
}

TEST_F(HistoryTest, ShowsTheSweepPointOfEachRun)
{
    const std::string id = "20261201T020000-5eed0001";
    std::vector<std::int64_t> points;
    for (int i = 0; i < 3; ++i) {
        points.push_back(
            test::storeRun(m_dbPath, "sweep", engine::SweepPoint{id, "work", std::to_string(100 << i), i, 3}));
        ASSERT_GT(points.back(), 0);
    }
    MainWindow window(m_db);
    EXPECT_EQ(window.runModel()->headerData(RunListModel::Sweep, Qt::Horizontal).toString(), "sweep point");
    EXPECT_EQ(cell(window, points[1], RunListModel::Sweep), "work = 200 (point 2 of 3)");
    EXPECT_EQ(cell(window, points[2], RunListModel::Sweep), "work = 400 (point 3 of 3)");
    EXPECT_EQ(cell(window, m_vanilla, RunListModel::Sweep), "");
    const RunListModel* model = window.runModel();
    EXPECT_TRUE(model->index(model->rowOf(points[0]), RunListModel::Sweep)
                    .data(Qt::ToolTipRole)
                    .toString()
                    .contains(QString::fromStdString(id)));
}

TEST_F(HistoryTest, AFilterKeepsTheComparedRunsAndSaysSo)
{
    MainWindow window(m_db);
    ASSERT_TRUE(window.compare({{m_vanilla, ""}, {m_patched, ""}}));
    window.waitForLoads();
    HistoryPanel* history = window.history();
    ASSERT_EQ(history->selectedRuns(), (std::vector<std::int64_t>{m_vanilla, m_patched}));

    // "patched" does not match: it stays listed, selected and compared, and the note names it.
    history->setFilters("vanilla", "", "", "");
    QCoreApplication::processEvents();
    window.waitForLoads();
    EXPECT_EQ(history->filterModel()->rowCount(), 2);
    EXPECT_EQ(history->selectedRuns(), (std::vector<std::int64_t>{m_vanilla, m_patched}));
    EXPECT_EQ(window.comparePanel()->view().runIds.size(), 2);
    EXPECT_TRUE(history->filterNote().contains(QString("run %1").arg(m_patched)))
        << history->filterNote().toStdString();
    const QModelIndex patchedRow = history->filterModel()->mapFromSource(
        window.runModel()->index(window.runModel()->rowOf(m_patched), RunListModel::Label));
    ASSERT_TRUE(patchedRow.isValid());
    EXPECT_TRUE(patchedRow.data(Qt::FontRole).value<QFont>().italic());

    // Selecting only the matching run lets the other one go from the list.
    ASSERT_TRUE(window.compare({{m_vanilla, ""}}));
    QTest::qWait(20);
    window.waitForLoads();
    EXPECT_EQ(history->filterModel()->rowCount(), 1);
    EXPECT_TRUE(history->filterNote().isEmpty()) << history->filterNote().toStdString();

    // A run not compared is filtered out as before.
    history->setFilters("nothing matches this", "", "", "");
    EXPECT_EQ(history->filterModel()->rowCount(), 1);  // vanilla: still compared
    history->setFilters("", "", "", "");
    EXPECT_EQ(history->filterModel()->rowCount(), 2);
}

TEST_F(HistoryTest, AnotherDatabaseClearsTheSelection)
{
    // A second database whose run ids are the same numbers as the first's.
    const std::string otherPath = m_dir.file("other.db");
    const std::int64_t otherFirst = test::storeRun(otherPath, "other one");
    const std::int64_t otherSecond = test::storeRun(otherPath, "other two");
    const std::int64_t otherThird = test::storeRun(otherPath, "other three");
    ASSERT_EQ(otherFirst, m_vanilla);
    ASSERT_EQ(otherSecond, m_patched);

    MainWindow window(m_db);
    ASSERT_TRUE(window.compare({{m_vanilla, "a"}, {m_patched, "a"}}));
    window.waitForLoads();
    ASSERT_EQ(window.history()->selectedRuns().size(), 2U);

    ASSERT_TRUE(window.openDatabase(QString::fromStdString(otherPath)));
    window.waitForLoads();
    // Not runs 1 and 2 of the new database (other runs that happen to have those ids): its newest.
    EXPECT_EQ(window.history()->selectedRuns(), (std::vector<std::int64_t>{otherThird}));
    EXPECT_EQ(window.comparePanel()->view().runIds, QStringList{QString::number(otherThird)});
    EXPECT_EQ(window.history()->tickedVariants().size(), 2U);  // both variants of the new run
}

// Clicks the row of `runId` in the History table, with `modifier` (Ctrl adds it to the selection).
void clickRun(MainWindow& window, std::int64_t runId, Qt::KeyboardModifiers modifier = Qt::NoModifier)
{
    HistoryPanel* history = window.history();
    const QModelIndex index =
        history->filterModel()->mapFromSource(window.runModel()->index(window.runModel()->rowOf(runId), 0));
    ASSERT_TRUE(index.isValid()) << runId;
    QTest::mouseClick(history->table()->viewport(), Qt::LeftButton, modifier,
                      history->table()->visualRect(index).center());
    QCoreApplication::processEvents();
    window.waitForLoads();
}

// The repetition plot's series whose legend entry starts with `name` ("run 2: a"), null if none.
QCPGraph* series(QCustomPlot* plot, const QString& name)
{
    for (int g = 0; g < plot->graphCount(); ++g) {
        if (plot->graph(g)->name().startsWith(name + ':') || plot->graph(g)->name().startsWith(name + " (")) {
            return plot->graph(g);
        }
    }
    return nullptr;
}

// Every legend entry of `plot` as drawn: its icon and whole text inside its cell (the cell clips
// what it draws), the cell inside the plot, and no two cells overlapping.
void expectLegendWhole(QCustomPlot* plot, const std::string& what)
{
    plot->replot();
    QCPLegend* legend = plot->legend;
    ASSERT_TRUE(legend->visible()) << what;
    ASSERT_GT(legend->itemCount(), 0) << what;
    int entries = 0;
    std::vector<QRect> cells;
    for (int i = 0; i < legend->elementCount(); ++i) {
        auto* item = qobject_cast<QCPPlottableLegendItem*>(legend->elementAt(i));
        if (item == nullptr) {
            continue;  // an empty cell of the grid
        }
        const QString text = item->plottable()->name();
        const QRect cell = item->rect();
        const int textRight = cell.left() + legend->iconSize().width() + legend->iconTextPadding() +
                              QFontMetrics(item->font()).horizontalAdvance(text);
        EXPECT_LE(textRight, cell.right() + 1) << what << ": '" << text.toStdString() << "' is cut";
        EXPECT_TRUE(plot->rect().contains(item->outerRect()))
            << what << ": '" << text.toStdString() << "' outside the plot";
        for (std::size_t j = 0; j < cells.size(); ++j) {
            EXPECT_FALSE(cells[j].intersects(cell)) << what << ": '" << text.toStdString() << "' overlaps entry " << j;
        }
        cells.push_back(cell);
        ++entries;
    }
    EXPECT_EQ(entries, plot->graphCount()) << what;
}

TEST_F(HistoryTest, PlotsEverySelectedRunsTickedVariants)
{
    MainWindow window(m_db);
    window.resize(1024, 700);
    window.show();
    ASSERT_TRUE(window.showTab("history"));
    QCoreApplication::processEvents();
    clickRun(window, m_vanilla);
    clickRun(window, m_patched, Qt::ControlModifier);
    ASSERT_EQ(window.history()->selectedRuns(), (std::vector<std::int64_t>{m_vanilla, m_patched}));

    auto db = data::openStore(m_dbPath);
    ASSERT_TRUE(db.ok()) << db.error().message;
    QCustomPlot* plot = window.plot()->customPlot();
    const auto expectRunPlotted = [&](std::int64_t id, const QStringList& shown) {
        auto run = data::loadRun(*db, id);
        ASSERT_TRUE(run.ok()) << run.error().message;
        const engine::RunData& data = run->data;
        const engine::MetricSpec& metric = data.layout.metrics.front();
        const std::vector<bool> leftOut = engine::chunkCut(data).leftOut;
        for (int v = 0; v < static_cast<int>(data.variantNames.size()); ++v) {
            const QString variant = QString::fromStdString(data.variantNames[static_cast<std::size_t>(v)]);
            const QString name = QString("run %1: %2").arg(id).arg(variant);
            QCPGraph* graph = series(plot, name);
            if (!shown.contains(variant)) {
                EXPECT_EQ(graph, nullptr) << name.toStdString() << " is not ticked";
                continue;
            }
            ASSERT_NE(graph, nullptr) << name.toStdString();
            const std::vector<double> values = data.repetitionValues(v, metric, leftOut);
            ASSERT_EQ(graph->dataCount(), static_cast<int>(values.size())) << name.toStdString();
            for (std::size_t r = 0; r < values.size(); ++r) {
                EXPECT_DOUBLE_EQ(graph->data()->at(static_cast<int>(r))->value, values[r]) << name.toStdString();
                EXPECT_NEAR(graph->data()->at(static_cast<int>(r))->key, static_cast<double>(r + 1), 0.3);
            }
        }
    };
    // Both runs, every variant (as the list ticks them): four series, four mean marks.
    ASSERT_EQ(plot->graphCount(), 4);
    EXPECT_EQ(plot->itemCount(), 4);
    expectRunPlotted(m_vanilla, {"a", "b"});
    expectRunPlotted(m_patched, {"a", "b"});
    EXPECT_TRUE(window.plot()->title().contains(QString("run %1 'vanilla'").arg(m_vanilla)))
        << window.plot()->title().toStdString();
    EXPECT_TRUE(window.plot()->title().contains(QString("run %1 'patched'").arg(m_patched)))
        << window.plot()->title().toStdString();
    // Each series its own colour.
    std::set<QRgb> colours;
    for (int g = 0; g < plot->graphCount(); ++g) {
        colours.insert(plot->graph(g)->scatterStyle().brush().color().rgb());
    }
    EXPECT_EQ(colours.size(), 4U);

    // Unticking a variant takes it off the plot.
    QListWidget* list = window.history()->variantList();
    const auto items = list->findItems(QString("run %1: a").arg(m_patched), Qt::MatchExactly);
    ASSERT_EQ(items.size(), 1);
    items.front()->setCheckState(Qt::Unchecked);
    QCoreApplication::processEvents();
    window.waitForLoads();
    ASSERT_EQ(plot->graphCount(), 3);
    expectRunPlotted(m_vanilla, {"a", "b"});
    expectRunPlotted(m_patched, {"b"});
}

TEST_F(HistoryTest, NamesTheRunsThatLackTheFirstRunsPrimaryMetric)
{
    // A run whose primary metric is another one: the call loop's metrics without the first.
    std::int64_t other = 0;
    std::string lacked;
    {
        auto db = data::openStore(m_dbPath);
        ASSERT_TRUE(db.ok()) << db.error().message;
        data::RunRecorder recorder(*db);
        auto start = test::makeRunStart();
        start.spec.label = "other metrics";
        lacked = start.layout.metrics.front().name;
        start.layout.metrics.erase(start.layout.metrics.begin());
        ASSERT_FALSE(start.layout.metrics.empty());
        ASSERT_TRUE(recorder.runStarted(start).ok());
        for (int r = 0; r < test::kReps; ++r) {
            ASSERT_TRUE(recorder.repetitionFinished(test::makeRepetition(r)).ok());
        }
        recorder.runFinished(engine::RunStatus::Complete, "");
        other = recorder.runId();
    }
    MainWindow window(m_db);
    QCustomPlot* plot = window.plot()->customPlot();
    ASSERT_TRUE(window.compare({{m_vanilla, ""}, {other, ""}}));
    window.waitForLoads();
    EXPECT_EQ(plot->graphCount(), 2);  // vanilla's a and b
    EXPECT_TRUE(plot->yAxis->label().startsWith(QString::fromStdString(lacked))) << plot->yAxis->label().toStdString();
    EXPECT_TRUE(window.plot()->note().contains(QString("run %1 stored no %2").arg(other).arg(lacked.c_str())))
        << window.plot()->note().toStdString();

    // The other way round: the first run's primary metric is one vanilla stored too.
    ASSERT_TRUE(window.compare({{other, ""}, {m_vanilla, ""}}));
    window.waitForLoads();
    EXPECT_EQ(plot->graphCount(), 4);
    EXPECT_TRUE(window.plot()->note().isEmpty()) << window.plot()->note().toStdString();
}

TEST_F(HistoryTest, LegendEntriesStayWhole)
{
    const std::int64_t three = test::storeRun(m_dbPath, "calls", std::nullopt, 3);
    const std::int64_t four = test::storeRun(m_dbPath, "four", std::nullopt, 4);
    ASSERT_GT(three, 0);
    ASSERT_GT(four, 0);
    for (const QSize size : {QSize(1024, 700), QSize(1600, 1000)}) {
        const std::string at = std::to_string(size.width()) + "x" + std::to_string(size.height());
        MainWindow window(m_db);
        window.resize(size);
        window.show();
        ASSERT_TRUE(window.showTab("history"));
        QCustomPlot* plot = window.plot()->customPlot();

        ASSERT_TRUE(window.compare({{three, ""}}));  // three variants
        window.waitForLoads();
        ASSERT_EQ(plot->graphCount(), 3);
        expectLegendWhole(plot, at + ", three variants");

        ASSERT_TRUE(window.compare({{m_vanilla, ""}, {m_patched, ""}, {three, ""}}));  // seven
        window.waitForLoads();
        ASSERT_EQ(plot->graphCount(), 7);
        expectLegendWhole(plot, at + ", three runs");
        EXPECT_GT(plot->axisRect()->height(), plot->height() / 3) << at;

        // Eight entries, after the window was smaller: the legend refits to the width it has.
        window.resize(800, 600);
        QCoreApplication::processEvents();
        window.resize(size);
        QCoreApplication::processEvents();
        ASSERT_TRUE(window.compare({{four, ""}, {three, ""}, {m_vanilla, "a"}}));
        window.waitForLoads();
        ASSERT_EQ(plot->graphCount(), 8);
        expectLegendWhole(plot, at + ", eight entries");
        if (const QByteArray shots = qgetenv("NF_UI_SHOTS"); !shots.isEmpty()) {  // to look at it
            window.saveScreenshot(
                QString("%1/history-legend-%2.png").arg(QString(shots)).arg(QString::fromStdString(at)));
        }
    }
}

}  // namespace
}  // namespace nf::ui
