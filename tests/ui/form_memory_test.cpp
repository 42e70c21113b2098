// The Experiment form takes a design from elsewhere: History's "Run this again" loads a stored run's
// design, ready to run as it ran; the app's window starts with the design of the last run started.

#include <gtest/gtest.h>

#include <QAction>
#include <QProcess>
#include <QPushButton>
#include <QSettings>
#include <QSignalSpy>
#include <QTabWidget>
#include <QTest>

#include "base/system_facts.h"
#include "data/run_store.h"
#include "tests/support/temp_dir.h"
#include "tests/ui/ui_test_support.h"
#include "ui/event_client.h"
#include "ui/experiment_editor.h"
#include "ui/history_panel.h"
#include "ui/main_window.h"

namespace nf::ui {
namespace {

class HistoryRerun : public ::testing::Test {
protected:
    void SetUp() override
    {
        test::application();
        qputenv("NOISEFLOOR_BIN", NF_CLI_PATH);
    }

    nf::test::TempDir m_dir;
    std::string m_dbPath = m_dir.file("runs.db");
    QString m_db = QString::fromStdString(m_dbPath);
};

// A run made by the engine from the form's own command: "Run this again" gives the same command.
TEST_F(HistoryRerun, TheFormGivesTheStoredRunsCommandAgain)
{
    const auto facts = base::readCpuFacts();
    ASSERT_FALSE(facts.allowedCpus.empty());
    QStringList args;
    {
        ExperimentEditor design;
        ASSERT_TRUE(design.selectWorkload("spin"));
        ASSERT_TRUE(design.setParam("work", "300"));
        design.setVariants({{"base", ""}, {"more", "work=330"}});
        design.setRepetitions(2);
        design.setDuration(0.05);
        design.setWarmup(0.01);
        design.setOrder("random");
        design.setLabel("again and again");
        ASSERT_TRUE(design.setCpuSelection({facts.allowedCpus.back()}));
        design.setShareCpus(true);  // not to wait for other runs' CPUs
        ASSERT_TRUE(design.problems().isEmpty()) << design.problems().join('\n').toStdString();
        args = design.arguments(m_db);
    }
    QProcess cli;
    cli.start(QStringLiteral(NF_CLI_PATH), args);
    ASSERT_TRUE(cli.waitForFinished(120000));
    ASSERT_EQ(cli.exitCode(), 0) << cli.readAllStandardError().toStdString();

    std::int64_t runId = 0;
    QString stored;
    {
        auto db = data::openStore(m_dbPath);
        ASSERT_TRUE(db);
        auto runs = data::listRuns(*db);
        ASSERT_TRUE(runs && runs->size() == 1);
        runId = runs->front().id;
        auto run = data::loadRun(*db, runId);
        ASSERT_TRUE(run);
        stored = QString::fromStdString(run->environment.commandLine);
    }
    ASSERT_TRUE(stored.endsWith(" --share-cpus")) << stored.toStdString();

    MainWindow window(m_db);
    window.show();
    ASSERT_TRUE(QTest::qWaitForWindowExposed(&window));
    window.showTab("history");
    ASSERT_TRUE(window.selectRun(runId));
    window.waitForLoads();
    ExperimentEditor* editor = window.editor();
    ASSERT_NE(editor->commandLine(m_db), stored);  // the form starts with another design
    QPushButton* again = window.history()->rerunButton();
    ASSERT_TRUE(again->isEnabled());
    QTest::mouseClick(again, Qt::LeftButton);

    EXPECT_EQ(window.tabs()->currentWidget(), editor);
    EXPECT_TRUE(editor->problems().isEmpty()) << editor->problems().join('\n').toStdString();
    EXPECT_EQ(editor->commandLine(m_db), stored);
    EXPECT_TRUE(editor->runButton()->isEnabled());
}

// The action needs exactly one run, and loads that one's variants, repetitions and label.
TEST_F(HistoryRerun, OffersOneSelectedRun)
{
    const auto first = test::storeRun(m_dbPath, "first");
    const auto second = test::storeRun(m_dbPath, "second");
    ASSERT_GT(first, 0);
    ASSERT_GT(second, 0);
    MainWindow window(m_db);
    HistoryPanel* history = window.history();
    ASSERT_TRUE(window.compare({{first, ""}, {second, ""}}));
    EXPECT_FALSE(history->rerunAction()->isEnabled());
    EXPECT_FALSE(history->rerunButton()->isEnabled());
    ASSERT_TRUE(history->selectRuns({second}));
    ASSERT_TRUE(history->rerunAction()->isEnabled());
    history->rerunAction()->trigger();
    const QString command = window.editor()->commandLine(QString());
    EXPECT_TRUE(command.startsWith("noisefloor run spin --variant a --variant b:work=200 --reps 3 "))
        << command.toStdString();
    EXPECT_TRUE(command.contains("--label second")) << command.toStdString();
    history->clearSelection();
    EXPECT_FALSE(history->rerunAction()->isEnabled());
}

// Every field the form has is set from the spec; what it has no field for is named.
TEST(ExperimentDesign, SetsEveryFieldAndNamesWhatItCannot)
{
    test::application();
    engine::ExperimentSpec spec;
    spec.workload = "spin";
    spec.params = {{"work", "500"}};
    spec.variants = {{"old", {}}, {"new", {{"work", "450"}}}};
    spec.repetitions = 40;  // until decided: the engine's plan, not the form's
    spec.duration = 0.25;
    spec.warmup = 0.5;
    spec.order = engine::Order::Interleaved;
    spec.pmu.simulated = true;
    spec.until = engine::UntilDecided{.maxTime = 30, .marginPct = 2, .alpha = 0.05};
    spec.label = "round trip";
    spec.chunk = 0.01;
    spec.shareCpus = true;
    ExperimentEditor editor;
    editor.setRepetitions(7);
    editor.setSweep("work=1,2");
    const QStringList lost = editor.setDesign(spec);
    EXPECT_EQ(editor.commandLine(QString()),
              "noisefloor run spin -p work=500 --variant old --variant new:work=450 --reps 7 --duration 0.25 "
              "--warmup 0.5 --order interleaved --until decided --max-time 30 --margin 2 --pmu simulated "
              "--label 'round trip' --share-cpus");
    ASSERT_EQ(lost.size(), 1) << lost.join('\n').toStdString();
    EXPECT_TRUE(lost[0].startsWith("--chunk 0.01")) << lost[0].toStdString();

    spec.workload = "no-such-workload";
    EXPECT_EQ(editor.setDesign(spec).size(), 1);
    EXPECT_TRUE(editor.commandLine(QString()).startsWith("noisefloor run spin "));
}

// The design of a run started is there when the next window opens, where the window is asked to
// remember it; a window not asked (tests, --screenshot) neither writes nor reads the settings.
TEST(FormMemory, TheNextWindowStartsWithTheLastDesignRun)
{
    test::application();
    qputenv("NOISEFLOOR_BIN", NF_CLI_PATH);
    nf::test::TempDir dir;
    const QString db = QString::fromStdString(dir.file("runs.db"));
    QSettings::setPath(QSettings::IniFormat, QSettings::UserScope, QString::fromStdString(dir.file("settings")));
    const auto remembered = [] {
        return QSettings(QSettings::IniFormat, QSettings::UserScope, "noisefloor", "noisefloor-gui")
            .contains("experiment/spec");
    };
    QString defaults;
    {
        MainWindow plain(db);
        defaults = plain.editor()->commandLine(db);
    }
    ASSERT_FALSE(remembered());

    QString designed;
    {
        MainWindow window(db);
        window.setRememberDesign(true);
        EXPECT_EQ(window.editor()->commandLine(db), defaults);  // nothing remembered yet
        ExperimentEditor* editor = window.editor();
        ASSERT_TRUE(editor->selectWorkload("spin"));
        ASSERT_TRUE(editor->setParam("work", "200"));
        editor->setVariants({{"slow", "work=220"}, {"fast", ""}});
        editor->setRepetitions(1);
        editor->setDuration(0.05);
        editor->setWarmup(0.01);
        editor->setLabel("remember me");
        ASSERT_TRUE(editor->problems().isEmpty()) << editor->problems().join('\n').toStdString();
        designed = editor->commandLine(db);
        QSignalSpy ended(window.eventClient(), &EventClient::processEnded);
        ASSERT_TRUE(window.startRun());
        EXPECT_TRUE(remembered());
        editor->setLabel("changed after the start");  // not what started
        ASSERT_TRUE(ended.wait(120000)) << window.eventClient()->stderrText().toStdString();
    }
    ASSERT_NE(designed, defaults);
    {
        MainWindow plain(db);  // not asked to remember: the form's defaults
        EXPECT_EQ(plain.editor()->commandLine(db), defaults);
    }
    MainWindow next(db);
    next.setRememberDesign(true);
    EXPECT_EQ(next.editor()->commandLine(db), designed);
}

}  // namespace
}  // namespace nf::ui
