// The History tab: each run's sweep point in a column, a filter that never silently drops the
// compared runs, and another database that starts with a clean selection.

#include <gtest/gtest.h>

#include <QLabel>
#include <QTableView>
#include <QTest>

#include "tests/support/temp_dir.h"
#include "tests/ui/ui_test_support.h"
#include "ui/compare_panel.h"
#include "ui/history_panel.h"
#include "ui/main_window.h"
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

}  // namespace
}  // namespace nf::ui
