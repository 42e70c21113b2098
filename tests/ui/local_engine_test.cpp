// A window that may not start the engine on this machine (what a -DNF_MEASURE=OFF build gives it):
// the Experiment tab says why in its message area and keeps Run disabled, the Environment tab
// starts no `noisefloor check` and says the same, and with --host runs are possible again. Made
// from a full build by handing the window LocalEngine::NotBuilt, as main() does in a desktop build.

#include <gtest/gtest.h>

#include <QImage>
#include <QLabel>
#include <QProcess>
#include <QPushButton>
#include <QScrollArea>
#include <QTableWidget>

#include "tests/support/temp_dir.h"
#include "tests/ui/ui_test_support.h"
#include "ui/environment_panel.h"
#include "ui/event_client.h"
#include "ui/experiment_editor.h"
#include "ui/main_window.h"

namespace nf::ui {
namespace {

QLabel* refusalLine(ExperimentEditor* editor)
{
    return editor->messageArea()->findChild<QLabel*>(QStringLiteral("refusal"));
}

TEST(LocalEngine, WithoutMeasurementTheExperimentTabSaysWhyAndRunStaysDisabled)
{
    test::application();
    nf::test::TempDir dir;
    MainWindow window(QString::fromStdString(dir.file("runs.db")), LocalEngine::NotBuilt);
    window.resize(1200, 820);
    ExperimentEditor* editor = window.editor();
    ASSERT_TRUE(editor->selectWorkload("spin"));
    editor->setVariants({{"a", ""}, {"b", "work=200"}});
    EXPECT_TRUE(editor->problems().isEmpty()) << editor->problems().join('\n').toStdString();
    EXPECT_FALSE(editor->runEnabled());
    EXPECT_FALSE(editor->runButton()->isEnabled());
    EXPECT_EQ(editor->runRefusal(), notBuiltToMeasure());
    EXPECT_TRUE(editor->runRefusal().contains("NF_MEASURE=OFF"));
    EXPECT_TRUE(editor->runRefusal().contains("noisefloor-gui --host DEST"));
    ASSERT_NE(refusalLine(editor), nullptr);
    EXPECT_EQ(refusalLine(editor)->text(), notBuiltToMeasure());
    EXPECT_FALSE(editor->arguments(QString()).isEmpty());  // the command is still shown, for the host

    EXPECT_FALSE(window.startRun());
    EXPECT_FALSE(window.eventClient()->running());
    ASSERT_TRUE(window.showTab("experiment"));
    const QString shot = QString::fromStdString(dir.file("experiment.png"));
    ASSERT_TRUE(window.saveScreenshot(shot));
    EXPECT_TRUE(refusalLine(editor)->isVisible());
    const QImage image(shot);
    ASSERT_FALSE(image.isNull());
    EXPECT_GT(test::drawnPixels(image), image.width() * image.height() / 4 / 20);
}

TEST(LocalEngine, WithoutMeasurementTheEnvironmentTabStartsNoCheck)
{
    test::application();
    nf::test::TempDir dir;
    MainWindow window(QString::fromStdString(dir.file("runs.db")), LocalEngine::NotBuilt);
    ASSERT_TRUE(window.showTab("environment"));
    EnvironmentPanel* environment = window.environmentPanel();
    EXPECT_TRUE(environment->loaded());
    environment->refresh();
    EXPECT_EQ(environment->findChild<QProcess*>(), nullptr);
    EXPECT_EQ(environment->table()->rowCount(), 0);
    EXPECT_EQ(environment->summaryText(), notBuiltToMeasure());
    ASSERT_TRUE(window.saveScreenshot(QString::fromStdString(dir.file("environment.png"))));
    EXPECT_EQ(environment->findChild<QProcess*>(), nullptr);
}

TEST(LocalEngine, WithAHostTheExperimentTabRunsAgain)
{
    test::application();
    nf::test::TempDir dir;
    MainWindow window(QString::fromStdString(dir.file("runs.db")), LocalEngine::NotBuilt);
    ExperimentEditor* editor = window.editor();
    ASSERT_TRUE(editor->selectWorkload("spin"));
    EXPECT_FALSE(editor->runEnabled());
    window.setRemoteHost({QStringLiteral("dut"), QString()});
    EXPECT_TRUE(editor->runRefusal().isEmpty());
    EXPECT_TRUE(editor->runEnabled()) << editor->problems().join('\n').toStdString();
    EXPECT_TRUE(editor->runButton()->isEnabled());
    EXPECT_TRUE(refusalLine(editor)->isHidden());
    // The machine check runs on the host, over ssh (nothing is checked on this machine).
    EXPECT_TRUE(window.environmentPanel()->summaryText().contains("host dut (over ssh)"))
        << window.environmentPanel()->summaryText().toStdString();
}

TEST(LocalEngine, AMeasuringBuildRefusesNothing)
{
    test::application();
    nf::test::TempDir dir;
    MainWindow window(QString::fromStdString(dir.file("runs.db")));  // kLocalEngine: this build measures
    static_assert(kLocalEngine == LocalEngine::Measures, "the ui tests run in a build that measures");
    ExperimentEditor* editor = window.editor();
    ASSERT_TRUE(editor->selectWorkload("spin"));
    EXPECT_TRUE(editor->runRefusal().isEmpty());
    EXPECT_TRUE(editor->runEnabled());
    EXPECT_TRUE(refusalLine(editor)->isHidden());
    EXPECT_NE(window.environmentPanel()->summaryText(), notBuiltToMeasure());
}

}  // namespace
}  // namespace nf::ui
