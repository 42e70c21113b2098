// An answer the Experiment tab owes a user before a run: how long the design takes (beside Run, in
// the words of `noisefloor run --dry-run`, following the form as it is typed in, the maximum for a
// run until decided, the total over a sweep's points, the reason when there is none). Against
// this build's engine.

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
#include "ui/run_controller.h"

namespace nf::ui {
namespace {

using nf::test::TempDir;

void serve(int ms)
{
    QElapsedTimer clock;
    clock.start();
    while (clock.elapsed() < ms) {
        QCoreApplication::processEvents(QEventLoop::AllEvents, 10);
        QTest::qWait(5);
    }
}

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

}  // namespace
}  // namespace nf::ui
