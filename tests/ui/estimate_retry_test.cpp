// Two answers the Experiment and Live tabs owe a user before a run: how long the design takes
// (beside Run, in the words of `noisefloor run --dry-run`, following the form as it is typed in,
// the maximum for a run until decided, the total over a sweep's points, the reason when there is
// none), and, for a run refused because another run measures on its CPUs, "Retry when free": it
// waits, saying for which run, can be cancelled, never starts while the CPUs are held, and then
// starts the same design. Against this build's engine and a real run holding the CPU.

#include <gtest/gtest.h>

#include <algorithm>

#include "tests/support/temp_dir.h"
#include "tests/ui/ui_test_support.h"

#include <QCheckBox>
#include <QDoubleSpinBox>
#include <QElapsedTimer>
#include <QJsonArray>
#include <QJsonDocument>
#include <QJsonObject>
#include <QJsonValue>
#include <QLabel>
#include <QLineEdit>
#include <QProcess>
#include <QPushButton>
#include <QSignalSpy>
#include <QSpinBox>
#include <QTest>

#include "ui/event_client.h"
#include "ui/experiment_editor.h"
#include "ui/live_panel.h"
#include "ui/main_window.h"
#include "ui/retry_when_free.h"
#include "ui/run_controller.h"

namespace nf::ui {
namespace {

using nf::test::TempDir;
using test::serve;

// Where the test leaves its screenshots, when asked (NF_UI_SHOTS=DIR).
void shoot(QWidget& window, const char* name)
{
    const QString dir = qEnvironmentVariable("NF_UI_SHOTS");
    if (!dir.isEmpty()) {
        window.grab().save(dir + "/" + name);
    }
}

class EstimateRetryTest : public ::testing::Test {
protected:
    void SetUp() override
    {
        test::application();
        qputenv("NOISEFLOOR_BIN", NF_CLI_PATH);
    }

    void showWindow(MainWindow& window)
    {
        window.resize(1024, 700);
        window.show();
        window.activateWindow();
        ASSERT_TRUE(QTest::qWaitForWindowActive(&window));
    }

    // `noisefloor ARGS` of this build: its stdout, or "" when it failed.
    static QString engine(const QStringList& args)
    {
        QProcess p;
        p.start(NF_CLI_PATH, args);
        if (!p.waitForFinished(30000) || p.exitCode() != 0) {
            return {};
        }
        return QString::fromUtf8(p.readAllStandardOutput());
    }

    // Types `text` into `field` in place of what it holds, and leaves it with Return.
    static void retype(QWidget* field, const QString& text)
    {
        field->setFocus();
        QTest::keyClick(field, Qt::Key_A, Qt::ControlModifier);
        QTest::keyClick(field, Qt::Key_Delete);
        QTest::keyClicks(field, text);
        QTest::keyClick(field, Qt::Key_Return);
    }

    TempDir m_dir;
    QString m_db = QString::fromStdString(m_dir.file("runs.db"));
};

TEST_F(EstimateRetryTest, TheDesignSaysHowLongItTakesAsTheCliDoes)
{
    MainWindow window(m_db);
    showWindow(window);
    window.showTab("experiment");
    ExperimentEditor* editor = window.editor();
    ASSERT_TRUE(editor->selectWorkload("spin"));
    editor->setVariants({{"a", ""}, {"b", ""}});
    editor->setWarmup(0.2);
    editor->setDuration(10);
    editor->setRepetitions(5);
    QLabel* estimate = editor->estimateLabel();
    const auto settled = [&] {
        serve(ExperimentEditor::kEstimateSettleMs + 100);
        return estimate->text();
    };
    EXPECT_EQ(settled().toStdString(),
              "Takes about 1 min 40 s (10 variant-repetitions of 10 s, plus 0.2 s of warmup per variant)");

    // Typed into Repetitions: it follows once the typing settles, as `run --dry-run` says it.
    auto* reps = editor->findChild<QSpinBox*>();
    ASSERT_NE(reps, nullptr);
    retype(reps, "8");
    ASSERT_EQ(reps->value(), 8);
    EXPECT_TRUE(estimate->text().contains("1 min 40 s")) << "settles after the last change";
    EXPECT_EQ(settled().toStdString(),
              "Takes about 2 min 40 s (16 variant-repetitions of 10 s, plus 0.2 s of warmup per variant)");
    const QString plan = engine(editor->arguments(QString()) << "--dry-run");
    EXPECT_TRUE(plan.contains("  time " + estimate->text().mid(QStringLiteral("Takes ").size()) + "\n"))
        << plan.toStdString();

    // A sweep: the total over its points.
    QLineEdit* sweep = nullptr;
    for (auto* field : editor->findChildren<QLineEdit*>()) {
        sweep = field->placeholderText().startsWith("PARAM=") ? field : sweep;
    }
    ASSERT_NE(sweep, nullptr);
    retype(sweep, "work=100,200,300");
    EXPECT_EQ(settled().toStdString(),
              "Takes about 8 min 1 s over 3 sweep points (each 16 variant-repetitions of "
              "10 s, plus 0.2 s of warmup per variant)");

    // Invalid: no estimate, the reason instead.
    retype(sweep, "work=");
    EXPECT_FALSE(settled().contains("Takes")) << estimate->text().toStdString();
    EXPECT_TRUE(estimate->text().startsWith("No time estimate: ")) << estimate->text().toStdString();
    EXPECT_TRUE(estimate->text().contains(editor->problems().front())) << estimate->text().toStdString();
    retype(sweep, "");

    // Until decided: the most it may take.
    QCheckBox* until = nullptr;
    for (auto* box : editor->findChildren<QCheckBox*>()) {
        until = box->text() == "decided" ? box : until;
    }
    ASSERT_NE(until, nullptr);
    QTest::mouseClick(until, Qt::LeftButton);
    ASSERT_TRUE(until->isChecked());
    EXPECT_EQ(settled().toStdString(),
              "Takes at most 10 min (until decided: at most 10 min of measuring, plus 0.2 s of warmup per variant)");
    const QString decided = engine(editor->arguments(QString()) << "--dry-run"
                                                                << "--format"
                                                                << "json");
    const QJsonObject time = QJsonDocument::fromJson(decided.toUtf8()).object().value("time").toObject();
    EXPECT_TRUE(time.value("at_most").toBool()) << decided.toStdString();
    EXPECT_EQ(("Takes " + time.value("text").toString()).toStdString(), estimate->text().toStdString());
    window.showTab("experiment");
    shoot(window, "estimate.png");
}

// The CPUs a design of `args` would measure on, and the runs measuring on them now.
QJsonObject plan(const QStringList& args)
{
    QProcess p;
    p.start(NF_CLI_PATH, QStringList(args) << "--dry-run"
                                           << "--format"
                                           << "json");
    p.waitForFinished(30000);
    return QJsonDocument::fromJson(p.readAllStandardOutput()).object();
}

TEST_F(EstimateRetryTest, ARunRefusedForItsCpusIsRetriedWhenTheyAreFree)
{
    MainWindow window(m_db);
    showWindow(window);
    ExperimentEditor* editor = window.editor();
    ASSERT_TRUE(editor->selectWorkload("spin"));
    editor->setVariants({{"a", "work=100"}, {"b", "work=110"}});
    editor->setWarmup(0.01);
    editor->setDuration(1);
    editor->setRepetitions(100);

    // Another run measures on the CPU this design needs (CPU 0: the other suites' runs default to
    // the last CPU). Started again while another test's run holds it.
    ASSERT_TRUE(editor->setCpuSelection({0}));
    const QStringList design = editor->arguments(QString());
    QProcess blocker;
    const auto holds = [&] {
        const QString pidText = "pid " + QString::number(blocker.processId()) + " ";
        const auto inUse = plan(design).value("cpus_in_use").toArray();
        return std::any_of(inUse.begin(), inUse.end(),
                           [&](const QJsonValue& line) { return line.toString().contains(pidText); });
    };
    QElapsedTimer clock;
    clock.start();
    while (!(blocker.state() == QProcess::Running && holds()) && clock.elapsed() < 60000) {
        if (blocker.state() == QProcess::NotRunning) {
            blocker.start(NF_CLI_PATH, editor->arguments(QString::fromStdString(m_dir.file("other.db"))));
            ASSERT_TRUE(blocker.waitForStarted());
        }
        serve(100);
    }
    ASSERT_TRUE(holds()) << QString::fromUtf8(blocker.readAllStandardError()).toStdString();
    const QString pid = QString::number(blocker.processId());

    // A short run of the same design is refused; the Live tab offers to retry.
    editor->setRepetitions(1);
    editor->setDuration(0.3);
    QSignalSpy ended(window.eventClient(), &EventClient::processEnded);
    QSignalSpy started(window.runController(), &RunController::started);
    QSignalSpy stored(window.runController(), &RunController::runStored);
    window.showTab("experiment");
    QTest::mouseClick(editor->runButton(), Qt::LeftButton);
    ASSERT_TRUE(ended.wait(30000));
    ASSERT_EQ(started.size(), 1);
    LivePanel* live = window.livePanel();
    RetryWhenFree* retry = live->retryRow();
    EXPECT_TRUE(live->statusText().contains("is measured by another run")) << live->statusText().toStdString();
    ASSERT_TRUE(retry->isVisible());
    ASSERT_TRUE(retry->retryButton()->isVisible());
    EXPECT_FALSE(retry->waiting());

    // Pressed, it waits, naming the run it waits for, and starts nothing while the CPU is held.
    QTest::mouseClick(retry->retryButton(), Qt::LeftButton);
    EXPECT_TRUE(retry->waiting());
    EXPECT_TRUE(retry->cancelButton()->isVisible());
    serve(3 * RetryWhenFree::kLookEveryMs + 500);
    EXPECT_TRUE(retry->waiting());
    EXPECT_TRUE(retry->text().startsWith("Waiting for CPU ")) << retry->text().toStdString();
    EXPECT_TRUE(retry->text().contains("pid " + pid)) << retry->text().toStdString();
    EXPECT_EQ(started.size(), 1) << "started while the CPU is held";
    EXPECT_FALSE(window.runController()->running());
    shoot(window, "retry.png");

    // Cancel stops waiting; pressed again, it waits again.
    QTest::mouseClick(retry->cancelButton(), Qt::LeftButton);
    EXPECT_FALSE(retry->waiting());
    EXPECT_TRUE(retry->retryButton()->isVisible());
    EXPECT_TRUE(retry->text().startsWith("Stopped waiting")) << retry->text().toStdString();
    QTest::mouseClick(retry->retryButton(), Qt::LeftButton);
    EXPECT_TRUE(retry->waiting());

    // The other run ends: the same design starts, and is stored.
    blocker.terminate();
    ASSERT_TRUE(blocker.waitForFinished(30000));
    clock.restart();
    while (started.size() < 2 && clock.elapsed() < 10000) {
        serve(50);
    }
    ASSERT_EQ(started.size(), 2) << retry->text().toStdString();
    EXPECT_FALSE(retry->isVisible());
    // Stored as complete; should yet another run take the CPU in between, it is refused and waits again.
    const auto complete = [&] {
        return std::any_of(stored.begin(), stored.end(),
                           [](const QList<QVariant>& s) { return s.at(1).toString() == "complete"; });
    };
    clock.restart();
    while (!complete() && clock.elapsed() < 60000) {
        serve(50);
    }
    EXPECT_TRUE(complete()) << live->statusText().toStdString() << "\n" << live->logText().toStdString();
}

}  // namespace
}  // namespace nf::ui
