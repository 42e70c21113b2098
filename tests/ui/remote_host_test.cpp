// noisefloor-gui --host: the app drives the engine on another host through the real ssh client
// (an sshd of the test's own on loopback, its own keys and ssh config), shows the run live, and
// finds it in its own database when it ends; Stop ends the remote run as aborted, and that run
// arrives too.

#include <gtest/gtest.h>

#include <QElapsedTimer>
#include <QListWidget>
#include <QPushButton>
#include <QSignalSpy>
#include <QTableWidget>
#include <QTest>

#include <cstdio>
#include <filesystem>

#include "base/system_facts.h"
#include "data/run_store.h"
#include "data/schema.h"
#include "tests/support/ssh_lab.h"
#include "tests/ui/ui_test_support.h"
#include "ui/environment_panel.h"
#include "ui/event_client.h"
#include "ui/experiment_editor.h"
#include "ui/live_panel.h"
#include "ui/main_window.h"

namespace nf::ui {
namespace {

using nf::test::SshLab;
using nf::test::TempDir;

class RemoteHostTest : public ::testing::Test {
protected:
    void SetUp() override
    {
        test::application();
        qputenv("NOISEFLOOR_BIN", NF_CLI_PATH);  // the local `noisefloor merge`
        if (const auto why = SshLab::unavailable(); !why.empty()) {
            GTEST_SKIP() << why;
        }
        m_lab = std::make_unique<SshLab>(
            m_dir, nf::test::SshLabOptions{.listen = "127.0.0.1",
                                           .port = 2200 + static_cast<int>(::getpid() % 700),
                                           .bin = std::filesystem::path(NF_CLI_PATH).parent_path().string(),
                                           .env = {{"NOISEFLOOR_DB", m_dir.file("dut.db")}},
                                           .alias = "dut"});
        ASSERT_EQ(m_lab->prepare(), "");
        ASSERT_EQ(m_lab->start("", m_lab->ssh() + " true"), "");
    }

    // The window on this host's database, its runs going to "dut".
    std::unique_ptr<MainWindow> window(int reps, double duration)
    {
        auto w = std::make_unique<MainWindow>(m_here);
        w->setRemoteHost({QStringLiteral("dut"), QString::fromStdString(m_lab->config())});
        ExperimentEditor* editor = w->editor();
        EXPECT_TRUE(editor->selectWorkload("spin"));
        editor->setVariants({{"a", "work=100"}, {"b", "work=200"}});
        editor->setRepetitions(reps);
        editor->setDuration(duration);
        return w;
    }

    TempDir m_dir;
    QString m_here = QString::fromStdString(m_dir.file("here.db"));
    std::unique_ptr<SshLab> m_lab;
};

TEST_F(RemoteHostTest, ARunOnTheHostIsWatchedLiveAndArrivesHere)
{
    auto w = window(2, 0.5);
    QSignalSpy partial(w->eventClient(), &EventClient::samplesArrived);
    QSignalSpy fetched(w->remoteEngine(), &RemoteEngine::fetched);
    QSignalSpy failed(w->remoteEngine(), &RemoteEngine::fetchFailed);
    ASSERT_TRUE(w->startRun());
    ASSERT_TRUE(partial.wait(60000)) << w->eventClient()->stderrText().toStdString();
    EXPECT_TRUE(w->eventClient()->running());  // samples come while the remote run goes on
    EXPECT_GT(w->livePanel()->sampleCount(), 0);
    QSignalSpy ended(w->eventClient(), &EventClient::processEnded);
    ASSERT_TRUE(ended.wait(120000)) << w->eventClient()->stderrText().toStdString();
    QElapsedTimer sinceEnd;
    sinceEnd.start();
    ASSERT_TRUE(fetched.count() > 0 || fetched.wait(120000))
        << w->statusText().toStdString() << "\n"
        << (failed.isEmpty() ? "" : failed.first().at(1).toString().toStdString())
        << w->eventClient()->stderrText().toStdString();
    std::printf("run copied here %.2f s after the remote engine ended\n",
                static_cast<double>(sinceEnd.elapsed()) / 1000);
    const qint64 local = fetched.first().at(1).toLongLong();
    ASSERT_EQ(local, 1);
    EXPECT_TRUE(w->statusText().contains("copied here as run 1")) << w->statusText().toStdString();
    EXPECT_EQ(w->databasePath(), m_here);
    if (const QByteArray shots = qgetenv("NF_UI_SHOTS"); !shots.isEmpty()) {  // to look at it
        w->waitForLoads();
        w->saveScreenshot(QString::fromUtf8(shots) + "/remote-copied.png");
    }

    // Both databases hold the run: the host's own, and this one, sample for sample.
    auto here = data::openStore(m_dir.file("here.db"), data::Database::Mode::ReadOnly);
    auto dut = data::openStore(m_dir.file("dut.db"), data::Database::Mode::ReadOnly);
    ASSERT_TRUE(here && dut);
    auto copy = data::loadRun(*here, 1);
    auto original = data::loadRun(*dut, fetched.first().at(0).toLongLong());
    ASSERT_TRUE(copy && original);
    EXPECT_EQ(copy->row.status, engine::RunStatus::Complete);
    EXPECT_EQ(copy->data.samples.size(), original->data.samples.size());
    EXPECT_EQ(copy->environment.json["copied_from"]["origin"].get<std::string>().rfind("dut:", 0), 0u);
    EXPECT_TRUE(failed.isEmpty());
}

// The Experiment tab offers the host's CPUs (`check --cpus` over ssh), named as the host's.
TEST_F(RemoteHostTest, TheExperimentTabOffersTheHostsCpus)
{
    auto w = window(2, 0.5);
    ExperimentEditor* editor = w->editor();
    EXPECT_EQ(editor->cpusLabel(), "Worker CPUs of host dut");
    const auto facts = base::readCpuFacts();
    QTRY_COMPARE_WITH_TIMEOUT(editor->findChild<QListWidget*>()->count(), static_cast<int>(facts.cpus.size()), 60000);
    EXPECT_TRUE(editor->setCpuSelection({facts.allowedCpus.back()}));
    EXPECT_TRUE(editor->runEnabled()) << editor->problems().join('\n').toStdString();
}

// The Environment tab checks the host the runs go to, over ssh, and says so.
TEST_F(RemoteHostTest, TheEnvironmentTabChecksTheHostTheRunsGoTo)
{
    auto w = window(2, 0.5);
    EnvironmentPanel* environment = w->environmentPanel();
    EXPECT_TRUE(environment->summaryText().contains("host dut (over ssh)")) << environment->summaryText().toStdString();
    environment->refresh();
    EXPECT_TRUE(environment->summaryText().startsWith("checking host dut (over ssh)"))
        << environment->summaryText().toStdString();
    environment->waitForCheck(60000);
    QTRY_VERIFY_WITH_TIMEOUT(environment->loaded(), 60000);
    EXPECT_TRUE(environment->summaryText().startsWith("Host dut (over ssh): "))
        << environment->summaryText().toStdString();
    EXPECT_GT(environment->table()->rowCount(), 3);
}

TEST_F(RemoteHostTest, StopEndsTheRemoteRunAsAbortedAndNothingIsLeftRunning)
{
    auto w = window(50, 1.0);
    QSignalSpy partial(w->eventClient(), &EventClient::samplesArrived);
    QSignalSpy ended(w->eventClient(), &EventClient::processEnded);
    QSignalSpy fetched(w->remoteEngine(), &RemoteEngine::fetched);
    ASSERT_TRUE(w->startRun());
    ASSERT_TRUE(partial.wait(60000)) << w->eventClient()->stderrText().toStdString();
    w->livePanel()->stopButton()->click();
    ASSERT_TRUE(ended.wait(30000));
    // The remote engine notices its reader is gone at its next line and stops.
    const std::string dut = m_dir.file("dut.db");
    bool gone = false;
    for (int i = 0; i < 100 && !gone; ++i) {
        QTest::qWait(100);
        gone = std::system(("pgrep -f -- '[n]oisefloor --expect-version' >/dev/null")) != 0;
    }
    EXPECT_TRUE(gone) << "a remote noisefloor run is still going";
    auto db = data::openStore(dut, data::Database::Mode::ReadOnly);
    ASSERT_TRUE(db);
    auto runs = data::listRuns(*db);
    ASSERT_TRUE(runs);
    ASSERT_EQ(runs->size(), 1u);
    EXPECT_EQ(runs->front().status, engine::RunStatus::Aborted);
    EXPECT_NE(runs->front().statusReason.find("SIGHUP"), std::string::npos) << runs->front().statusReason;
    // It ended as a run does, so its finished event came back and the aborted run is here too.
    ASSERT_TRUE(fetched.count() > 0 || fetched.wait(60000)) << w->statusText().toStdString();
    auto here = data::openStore(m_dir.file("here.db"), data::Database::Mode::ReadOnly);
    ASSERT_TRUE(here);
    auto copied = data::listRuns(*here);
    ASSERT_TRUE(copied);
    ASSERT_EQ(copied->size(), 1u);
    EXPECT_EQ(copied->front().status, engine::RunStatus::Aborted);
}

}  // namespace
}  // namespace nf::ui
