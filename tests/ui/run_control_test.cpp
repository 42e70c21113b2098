// Input and run control in the window, against real `noisefloor run spin` runs, driven with real
// key events and clicks: Esc stops a run only when no editor, popup or dialog wants it, and a long
// run asks first; a finished run opens in Compare even where the History filter hides it; Stop
// stays available through every point of a sweep; the bar moves within a repetition and a run
// until decided says it stopped early and why; History stays where it was browsed when another
// process commits a run; the Experiment form's tab order, repetitions, command and number fields.

#include <gtest/gtest.h>

#include <qcustomplot.h>
#include "tests/support/temp_dir.h"
#include "tests/ui/ui_test_support.h"

#include <QAbstractItemView>
#include <QComboBox>
#include <QDoubleSpinBox>
#include <QElapsedTimer>
#include <QHeaderView>
#include <QLabel>
#include <QLineEdit>
#include <QMessageBox>
#include <QProcess>
#include <QProgressBar>
#include <QPushButton>
#include <QRegularExpression>
#include <QScrollArea>
#include <QScrollBar>
#include <QSignalSpy>
#include <QSpinBox>
#include <QTabWidget>
#include <QTableView>
#include <QTest>
#include <QTimer>

#include "ui/compare_panel.h"
#include "ui/event_client.h"
#include "ui/experiment_editor.h"
#include "ui/history_panel.h"
#include "ui/live_panel.h"
#include "ui/main_window.h"
#include "ui/run_controller.h"
#include "ui/run_list_model.h"

namespace nf::ui {
namespace {

using nf::test::TempDir;
using test::serve;

class RunControlTest : public ::testing::Test {
protected:
    void SetUp() override
    {
        test::application();
        qputenv("NOISEFLOOR_BIN", NF_CLI_PATH);  // this build's engine, not one on PATH
    }

    // The window shown and active at the tester's small size, so key events go where a user's go.
    void showWindow(MainWindow& window)
    {
        window.resize(1024, 700);
        window.show();
        window.activateWindow();
        ASSERT_TRUE(QTest::qWaitForWindowActive(&window));
    }

    // A run of `reps` repetitions of `seconds` per variant, started from the window.
    static void design(MainWindow& window, int reps, double seconds, const QString& label = QString())
    {
        ExperimentEditor* editor = window.editor();
        ASSERT_TRUE(editor->selectWorkload("spin"));
        editor->setVariants({{"a", "work=100"}, {"b", "work=110"}});
        editor->setRepetitions(reps);
        editor->setDuration(seconds);
        editor->setWarmup(0.01);
        editor->setLabel(label);
    }

    TempDir m_dir;
    QString m_db = QString::fromStdString(m_dir.file("runs.db"));
};

// Presses Esc on `widget` (which has the focus) and says whether the run is still going a little
// later: a stopped engine ends within a moment.
bool stillRunsAfterEscapeOn(MainWindow& window, QWidget* widget)
{
    widget->setFocus();
    QTest::keyClick(widget, Qt::Key_Escape);
    serve(400);
    return window.runController()->running();
}

TEST_F(RunControlTest, EscapeStopsOnlyWhenNoEditorOrPopupWantsIt)
{
    MainWindow window(m_db);
    showWindow(window);
    design(window, 30, 1.0);
    QSignalSpy ended(window.eventClient(), &EventClient::processEnded);
    QSignalSpy looks(window.eventClient(), &EventClient::lookArrived);
    ASSERT_TRUE(window.startRun());
    ASSERT_TRUE(looks.wait(60000)) << window.eventClient()->stderrText().toStdString();

    // Esc in the History filter clears the filter, and the run goes on.
    window.showTab("history");
    auto* filter = window.history()->findChildren<QLineEdit*>().front();
    filter->setFocus();
    QTest::keyClicks(filter, "nothing like it");
    EXPECT_TRUE(stillRunsAfterEscapeOn(window, filter));
    EXPECT_TRUE(filter->text().isEmpty()) << filter->text().toStdString();
    EXPECT_TRUE(stillRunsAfterEscapeOn(window, filter));  // an empty filter: still no Stop
    EXPECT_TRUE(stillRunsAfterEscapeOn(window, window.runTable()));

    // Esc closing an open drop-down closes it, and the run goes on.
    window.showTab("experiment");
    auto* combo = window.editor()->findChildren<QComboBox*>().front();
    combo->setFocus();
    combo->showPopup();
    QTRY_VERIFY(combo->view()->isVisible());
    QTest::keyClick(combo->view(), Qt::Key_Escape);
    serve(400);
    EXPECT_FALSE(combo->view()->isVisible());
    EXPECT_TRUE(window.runController()->running());
    EXPECT_TRUE(stillRunsAfterEscapeOn(window, combo));
    EXPECT_TRUE(stillRunsAfterEscapeOn(window, window.editor()->findChildren<QSpinBox*>().front()));

    // A run longer than the confirmation threshold asks; Esc in the question only closes it.
    window.showTab("live");
    window.setConfirmStopAfterMs(0);
    int asked = 0;
    bool stop = false;
    QTimer answerer;  // answers the question once it is asked (it blocks the key press)
    answerer.setSingleShot(true);
    answerer.setInterval(300);
    QObject::connect(&answerer, &QTimer::timeout, [&] {
        auto* box = qobject_cast<QMessageBox*>(QApplication::activeModalWidget());
        ASSERT_NE(box, nullptr);
        EXPECT_EQ(box->objectName(), "confirmStop");
        ++asked;
        if (stop) {
            box->button(QMessageBox::Yes)->click();
        } else {
            QTest::keyClick(box, Qt::Key_Escape);
        }
    });
    const auto answer = [&](bool yes) {
        stop = yes;
        answerer.start();
    };
    answer(false);
    EXPECT_TRUE(stillRunsAfterEscapeOn(window, window.livePanel()->stopButton()));
    EXPECT_EQ(asked, 1);
    answer(true);
    window.livePanel()->stopButton()->setFocus();
    QTest::keyClick(window.livePanel()->stopButton(), Qt::Key_Escape);
    EXPECT_EQ(asked, 2);
    ASSERT_TRUE(ended.count() > 0 || ended.wait(30000));
    EXPECT_FALSE(window.runController()->running());
}

TEST_F(RunControlTest, EscapeOnTheLiveTabStopsAShortRunWithoutAsking)
{
    MainWindow window(m_db);
    showWindow(window);
    design(window, 30, 1.0);
    QSignalSpy ended(window.eventClient(), &EventClient::processEnded);
    QSignalSpy runEnded(window.livePanel(), &LivePanel::runEnded);
    QSignalSpy looks(window.eventClient(), &EventClient::lookArrived);
    ASSERT_TRUE(window.startRun());
    ASSERT_TRUE(looks.wait(60000)) << window.eventClient()->stderrText().toStdString();
    window.livePanel()->stopButton()->setFocus();
    QTest::keyClick(window.livePanel()->stopButton(), Qt::Key_Escape);
    ASSERT_TRUE(ended.count() > 0 || ended.wait(30000));
    ASSERT_GE(runEnded.count(), 1);
    EXPECT_EQ(runEnded.last().at(1).toString(), "aborted");
    // Stopped inside its first repetition: what it measured is not stored, and the plot says so.
    EXPECT_GT(window.livePanel()->unstoredCount(), 0);
    EXPECT_TRUE(window.livePanel()->logText().contains("not stored")) << window.livePanel()->logText().toStdString();
    QCustomPlot* plot = window.livePanel()->customPlot();
    QCPGraph* cut = plot->graph(plot->graphCount() - 1);
    EXPECT_EQ(cut->name(), "not stored (repetition cut short)");
    int inView = 0;
    for (auto it = cut->data()->constBegin(); it != cut->data()->constEnd(); ++it) {
        inView += plot->yAxis->range().contains(it->value) && plot->xAxis->range().contains(it->key) ? 1 : 0;
    }
    EXPECT_GT(inView, cut->dataCount() / 2) << "the grey samples are off the axes";
}

TEST_F(RunControlTest, AFinishedRunOpensInCompareWhateverTheFilter)
{
    ASSERT_GT(test::storeRun(m_db.toStdString(), "old one"), 0);
    MainWindow window(m_db);
    showWindow(window);
    window.showTab("history");
    window.history()->setFilters("old", QString(), QString(), QString());
    ASSERT_EQ(window.history()->filterModel()->rowCount(), 1);
    window.runTable()->selectRow(0);
    design(window, 2, 0.05, "fresh");
    QSignalSpy ended(window.eventClient(), &EventClient::processEnded);
    ASSERT_TRUE(window.startRun());
    ASSERT_TRUE(ended.wait(120000)) << window.eventClient()->stderrText().toStdString();
    QTRY_VERIFY_WITH_TIMEOUT(!window.loader()->busy(), 30000);
    window.waitForLoads();
    serve(100);
    ASSERT_EQ(window.runModel()->rowCount(), 2);
    const std::int64_t fresh = window.runModel()->runAt(0)->id;
    EXPECT_EQ(window.tabs()->currentWidget(), window.comparePanel());
    EXPECT_TRUE(window.comparePanel()->titleText().contains("fresh"))
        << window.comparePanel()->titleText().toStdString();
    EXPECT_EQ(window.history()->selectedRuns(), std::vector<std::int64_t>{fresh});
    EXPECT_EQ(window.runTable()->selectionModel()->selectedRows().size(), 1);
    EXPECT_TRUE(window.history()->filterNote().contains(QString::number(fresh)))
        << window.history()->filterNote().toStdString();
}

TEST_F(RunControlTest, StopStaysAvailableThroughEveryPointOfASweep)
{
    MainWindow window(m_db);
    showWindow(window);
    design(window, 3, 0.3);
    window.editor()->setVariants({{"a", ""}, {"b", ""}});
    window.editor()->setSweep("work=100,200,300");
    QSignalSpy started(window.eventClient(), &EventClient::runStarted);
    QSignalSpy ended(window.eventClient(), &EventClient::processEnded);
    ASSERT_TRUE(window.startRun());
    QTRY_VERIFY_WITH_TIMEOUT(started.count() >= 2, 120000);
    EXPECT_TRUE(window.livePanel()->stopButton()->isEnabled());
    EXPECT_TRUE(window.editor()->stopButton()->isEnabled());
    window.livePanel()->stopButton()->click();
    ASSERT_TRUE(ended.count() > 0 || ended.wait(30000));
    EXPECT_LT(started.count(), 3) << "the sweep went on after Stop";
    EXPECT_FALSE(window.livePanel()->stopButton()->isEnabled());
}

TEST_F(RunControlTest, TheBarMovesWithinARepetition)
{
    MainWindow window(m_db);
    showWindow(window);
    design(window, 2, 1.5);
    QSignalSpy boundaries(window.eventClient(), &EventClient::repetitionDone);
    QSignalSpy samples(window.eventClient(), &EventClient::samplesArrived);
    QSignalSpy ended(window.eventClient(), &EventClient::processEnded);
    ASSERT_TRUE(window.startRun());
    QProgressBar* bar = window.livePanel()->progressBar();
    ASSERT_TRUE(samples.wait(60000)) << window.eventClient()->stderrText().toStdString();
    std::vector<int> values;
    QString text;
    while (boundaries.count() == 0 && ended.count() == 0) {
        values.push_back(bar->value());
        text = bar->text();
        serve(100);
    }
    ASSERT_FALSE(values.empty());
    EXPECT_GT(values.back(), values.front()) << "the bar stood still in the first repetition";
    EXPECT_LT(values.back(), bar->maximum() / 2 + 1);  // not past the first of two repetitions
    EXPECT_TRUE(text.contains("0 of 4")) << text.toStdString();
    ASSERT_TRUE(ended.count() > 0 || ended.wait(60000));
    EXPECT_EQ(bar->value(), bar->maximum());
    EXPECT_TRUE(bar->text().contains("4 of 4")) << bar->text().toStdString();
}

TEST_F(RunControlTest, ARunUntilDecidedSaysItStoppedEarlyAndWhy)
{
    MainWindow window(m_db);
    showWindow(window);
    design(window, 16, 0.2);
    window.editor()->setVariants({{"a", "work=100"}, {"b", "work=400"}});  // decided at once
    window.editor()->setUntilDecided(true, 60, 1);
    QSignalSpy ended(window.eventClient(), &EventClient::processEnded);
    QSignalSpy finished(window.eventClient(), &EventClient::finished);
    ASSERT_TRUE(window.startRun());
    ASSERT_TRUE(ended.wait(120000)) << window.eventClient()->stderrText().toStdString();
    ASSERT_EQ(finished.count(), 1);
    EXPECT_EQ(finished.front().at(0).toString(), "complete");
    const QString reason = finished.front().at(1).toString();
    const QString bar = window.livePanel()->progressBar()->text();
    const QString status = window.livePanel()->statusText();
    EXPECT_TRUE(bar.contains("stopped early")) << bar.toStdString();
    EXPECT_FALSE(bar.contains("32 of 32")) << bar.toStdString();
    // Decided after a repetition or two (a loaded machine may need the second) of the ones planned.
    EXPECT_TRUE(status.contains(QRegularExpression("stopped early after [12] of [0-9]+ planned repetitions")))
        << status.toStdString();
    EXPECT_FALSE(reason.isEmpty());
    EXPECT_TRUE(status.contains(reason)) << status.toStdString() << " / " << reason.toStdString();
}

TEST_F(RunControlTest, TheEditorTabsFromTheWorkloadToItsParameters)
{
    MainWindow window(m_db);
    showWindow(window);
    window.showTab("experiment");
    ExperimentEditor* editor = window.editor();
    ASSERT_TRUE(editor->selectWorkload("spin"));
    auto* workload = editor->findChildren<QComboBox*>().front();
    workload->setFocus();
    QTest::keyClick(workload, Qt::Key_Tab);
    QWidget* next = QApplication::focusWidget();
    ASSERT_NE(next, nullptr);
    EXPECT_EQ(next->parentWidget(), editor->paramField("work")->parentWidget())
        << "Tab went to " << next->metaObject()->className() << " " << next->objectName().toStdString();
}

TEST_F(RunControlTest, UntilDecidedTakesRepetitionsFromTheMaxTime)
{
    MainWindow window(m_db);
    ExperimentEditor* editor = window.editor();
    auto* reps = editor->findChildren<QSpinBox*>().front();
    EXPECT_TRUE(reps->isEnabled());
    editor->setUntilDecided(true, 60, 1);
    EXPECT_FALSE(reps->isEnabled());
    editor->setUntilDecided(false);
    EXPECT_TRUE(reps->isEnabled());
}

TEST_F(RunControlTest, TheCommandShownNamesTheDatabase)
{
    MainWindow window(m_db);
    ExperimentEditor* editor = window.editor();
    ASSERT_TRUE(editor->selectWorkload("spin"));
    QString command;
    for (auto* label : editor->messageArea()->findChildren<QLabel*>()) {
        if (label->text().startsWith("$ ")) {
            command = label->text();
        }
    }
    EXPECT_TRUE(command.contains("--db " + m_db)) << command.toStdString();
}

TEST_F(RunControlTest, TheFilterUnknownFindsRunsWithoutAKernel)
{
    ASSERT_GT(test::storeRun(m_db.toStdString(), "imported"), 0);  // its environment names no kernel
    MainWindow window(m_db);
    window.history()->setFilters(QString(), QString(), "unknown", QString());
    EXPECT_EQ(window.history()->filterModel()->rowCount(), 1);
    // Matched, not only kept because it is the selected run.
    EXPECT_TRUE(window.history()->filterModel()->pinnedOutsideFilter().empty())
        << window.history()->filterNote().toStdString();
    EXPECT_EQ(window.runModel()->data(window.runModel()->index(0, RunListModel::Kernel)).toString(), "unknown");
}

TEST_F(RunControlTest, ADurationItCannotTakeSaysWhyItReverts)
{
    MainWindow window(m_db);
    showWindow(window);
    window.showTab("experiment");
    ExperimentEditor* editor = window.editor();
    editor->setDuration(1.0);
    auto* duration = editor->findChildren<QDoubleSpinBox*>().front();  // the first: duration
    ASSERT_EQ(duration->value(), 1.0);
    duration->setFocus();
    duration->selectAll();
    QTest::keyClicks(duration, "0");
    const auto problems = [&] {
        QString text;
        for (auto* label : editor->messageArea()->findChildren<QLabel*>()) {
            text += label->isVisibleTo(editor) ? label->text() + "\n" : QString();
        }
        return text;
    };
    EXPECT_TRUE(problems().contains("Duration per variant: \"0\" is not taken (0.01 to 3600)"))
        << problems().toStdString();
    QTest::keyClick(duration, Qt::Key_Return);
    EXPECT_EQ(duration->value(), 1.0);
    EXPECT_TRUE(
        problems().contains("Duration per variant: that value was not taken (0.01 to 3600); it is 1.00 s again"))
        << problems().toStdString();
}

TEST_F(RunControlTest, ARefusedRunSaysWhyOnceInTheLogAndOnceInTheHeadline)
{
    LivePanel live;
    EventClient client;
    live.attach(&client);
    live.starting();
    QSignalSpy ended(&client, &EventClient::processEnded);
    // What the engine does with a spec it refuses: an error event, the same line on stderr, status 2.
    ASSERT_TRUE(client.start(QStringLiteral("/bin/sh"),
                             {"-c",
                              "echo '{\"event\":\"error\",\"message\":\"--cpu 99: not a CPU of this "
                              "machine\",\"exit_status\":2}'; echo 'noisefloor: --cpu 99: not a CPU of this "
                              "machine' >&2; exit 2"}));
    ASSERT_TRUE(ended.wait(10000));
    const QString all = live.logText() + "\n" + live.statusText();
    EXPECT_EQ(all.count("not a CPU of this machine"), 2) << all.toStdString();
    EXPECT_TRUE(live.statusText().contains("--cpu 99: not a CPU")) << live.statusText().toStdString();
}

// The run at the top of History's view.
std::int64_t topRun(MainWindow& window)
{
    QTableView* table = window.runTable();
    const QModelIndex top = table->indexAt(QPoint(0, 0));
    const engine::RunRow* run = window.runModel()->runAt(window.history()->filterModel()->mapToSource(top).row());
    return run != nullptr ? run->id : -1;
}

TEST_F(RunControlTest, HistoryStaysWhereItWasBrowsedWhenAnotherProcessCommits)
{
    for (int i = 0; i < 40; ++i) {
        ASSERT_GT(test::storeRun(m_db.toStdString(), QStringLiteral("run %1").arg(i).toStdString()), 0);
    }
    MainWindow window(m_db);
    showWindow(window);
    window.showTab("history");
    window.waitForLoads();
    QTableView* table = window.runTable();
    // The user clicks a row, then the row the view shows only in part at its bottom (aiming at it,
    // or the first click of a double click): the rows stay under the pointer.
    int partial = 0;
    while (table->visualRect(table->model()->index(partial, 0)).bottom() < table->viewport()->height()) {
        ++partial;
    }
    const QRect clicked = table->visualRect(table->model()->index(partial, 0));
    const QRect first = table->visualRect(table->model()->index(0, 0));
    const QRect second = table->visualRect(table->model()->index(1, 0));
    QTest::mouseClick(table->viewport(), Qt::LeftButton, {}, second.center());
    serve(QApplication::doubleClickInterval() + 400);
    QTest::mouseClick(table->viewport(), Qt::LeftButton, {}, QPoint(clicked.center().x(), clicked.top() + 2));
    serve(QApplication::doubleClickInterval() + 400);  // Qt scrolls a clicked row into view this much later
    EXPECT_EQ(window.history()->selectedRuns().size(), 1u);
    EXPECT_EQ(table->visualRect(table->model()->index(0, 0)), first) << "the rows moved under the pointer";
    EXPECT_EQ(table->verticalScrollBar()->value(), 0);
    // Then scrolls down to look at older ones.
    table->verticalScrollBar()->setValue(table->verticalScrollBar()->maximum());
    serve(100);
    const std::int64_t browsed = topRun(window);
    ASSERT_GT(browsed, 0);
    const std::vector<std::int64_t> selected = window.history()->selectedRuns();

    QProcess cli;  // another process commits a run
    cli.start(QStringLiteral(NF_CLI_PATH),
              {"run", "spin", "--db", m_db, "--reps", "1", "--duration", "0.05", "--warmup", "0.01", "--share-cpus",
               "--variant", "a:work=100", "--variant", "b:work=110"});
    ASSERT_TRUE(cli.waitForStarted());
    while (cli.state() != QProcess::NotRunning) {
        serve(20);
    }
    ASSERT_EQ(cli.exitCode(), 0) << cli.readAllStandardError().toStdString();
    QTRY_VERIFY_WITH_TIMEOUT(window.runModel()->rowCount() == 41, 5000);
    serve(500);
    EXPECT_EQ(topRun(window), browsed);
    EXPECT_EQ(window.history()->selectedRuns(), selected);
}

}  // namespace
}  // namespace nf::ui
