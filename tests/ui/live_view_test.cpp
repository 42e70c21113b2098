// The Live tab against a real short run: `noisefloor run spin` started by the main window, with
// alternating chunks, must bring the difference view points while it runs (several looks a
// second), count the time left down, and stop when asked.

#include <gtest/gtest.h>

#include <qcustomplot.h>
#include "tests/support/temp_dir.h"
#include "tests/ui/ui_test_support.h"

#include <QElapsedTimer>
#include <QFile>
#include <QLabel>
#include <QPushButton>
#include <QSignalSpy>
#include <QTest>

#include "ui/compare_panel.h"
#include "ui/difference_plot.h"
#include "ui/event_client.h"
#include "ui/experiment_editor.h"
#include "ui/live_panel.h"
#include "ui/main_window.h"

namespace nf::ui {
namespace {

using nf::test::TempDir;

class LiveViewTest : public ::testing::Test {
protected:
    void SetUp() override
    {
        test::application();
        qputenv("NOISEFLOOR_BIN", NF_CLI_PATH);  // this build's engine, not one on PATH
    }
    TempDir m_dir;
    QString m_db = QString::fromStdString(m_dir.file("runs.db"));
};

TEST_F(LiveViewTest, TheDifferenceFormsWhileARealRunGoesOn)
{
    MainWindow window(m_db);
    ExperimentEditor* editor = window.editor();
    ASSERT_TRUE(editor->selectWorkload("spin"));
    editor->setVariants({{"a", "work=100"}, {"b", "work=110"}});
    editor->setRepetitions(2);
    editor->setDuration(1.0);  // 2 reps x 2 variants x 1 s: about 4 s of measuring
    LivePanel* live = window.livePanel();
    QSignalSpy looks(window.eventClient(), &EventClient::lookArrived);
    QSignalSpy ended(window.eventClient(), &EventClient::processEnded);
    ASSERT_TRUE(window.startRun());
    EXPECT_TRUE(live->stopButton()->isEnabled());
    EXPECT_TRUE(live->statusText().contains("warms")) << live->statusText().toStdString();

    // Looks arrive inside the first repetition, at least 4 a second.
    QElapsedTimer clock;
    ASSERT_TRUE(looks.wait(60000)) << window.eventClient()->stderrText().toStdString() << "\n"
                                   << live->statusText().toStdString() << "\n"
                                   << live->logText().toStdString();
    clock.start();
    QTRY_VERIFY_WITH_TIMEOUT(looks.count() >= 5, 10000);
    const double seconds = static_cast<double>(clock.elapsed()) / 1000;
    EXPECT_LT(seconds, 4 / 4.0 + 0.5) << looks.count() << " looks in " << seconds << " s";
    EXPECT_FALSE(live->statusText().contains("warm")) << live->statusText().toStdString();
    EXPECT_TRUE(live->statusText().contains("measuring")) << live->statusText().toStdString();
    EXPECT_GT(live->sampleCount(), 0);

    ASSERT_TRUE(ended.wait(120000)) << window.eventClient()->stderrText().toStdString();
    EXPECT_FALSE(live->stopButton()->isEnabled());
    DifferencePlot* diff = live->differencePlot();
    EXPECT_GT(diff->pointCount(), 8) << live->verdictText().toStdString();
    EXPECT_GT(diff->intervalCount(), 8);
    EXPECT_EQ(live->lookCount(), looks.count());
    // Once stored and compared, the last line says what Compare says, not the last provisional look.
    QTRY_VERIFY_WITH_TIMEOUT(live->verdictText().startsWith("Final, as Compare shows it: "), 30000);
    const auto& primary = window.comparePanel()->view().metrics.front();
    // Compare's sentences, unwrapped to the line's width.
    EXPECT_TRUE(live->verdictText().simplified().endsWith(primary.verdicts.join(' ').simplified()))
        << live->verdictText().toStdString();
    EXPECT_EQ(primary.metric, "tsc_per_op");
    // Samples of the partial events and of the repetitions are not counted twice: chunks of 2 ms
    // (spin's default), 500 a variant in each 1 s repetition.
    EXPECT_EQ(live->sampleCount(), 2 * 2 * 500);
}

TEST_F(LiveViewTest, StopEndsTheRunAsAborted)
{
    MainWindow window(m_db);
    ExperimentEditor* editor = window.editor();
    ASSERT_TRUE(editor->selectWorkload("spin"));
    editor->setVariants({{"a", ""}, {"b", "work=200"}});
    editor->setRepetitions(20);
    editor->setDuration(1.0);
    QSignalSpy looks(window.eventClient(), &EventClient::lookArrived);
    QSignalSpy ended(window.eventClient(), &EventClient::processEnded);
    QSignalSpy runEnded(window.livePanel(), &LivePanel::runEnded);
    ASSERT_TRUE(window.startRun());
    ASSERT_TRUE(looks.wait(60000)) << window.eventClient()->stderrText().toStdString();
    window.livePanel()->stopButton()->click();
    ASSERT_TRUE(ended.wait(30000));
    ASSERT_GE(runEnded.count(), 1);
    EXPECT_EQ(runEnded.last().at(1).toString(), "aborted");
}

}  // namespace
}  // namespace nf::ui

namespace nf::ui {
namespace {

// The provisional line writes a bound that is not zero with the digits that show it (+0.0040%,
// never the "+0.00%" a reader takes for zero), as Compare does.
TEST(LiveViewLook, ATinyBoundIsNotWrittenAsZero)
{
    test::application();
    nf::test::TempDir dir;
    MainWindow window(QString::fromStdString(dir.file("runs.db")));
    window.eventClient()->feed(
        R"({"event":"look","provisional":true,"units":443,"elapsed":5,"estimate_pct":-0.3,"low_pct":-0.61,)"
        R"("high_pct":0.004,"margin_pct":1,"detectable_pct":0.17,"seconds_to_decision":null,"seconds_left":8,)"
        R"("decision":"equivalent"})"
        "\n");
    const QString text = window.livePanel()->verdictText();
    EXPECT_TRUE(text.contains("[-0.61%, +0.0040%]")) << text.toStdString();
    EXPECT_FALSE(text.contains("+0.00%")) << text.toStdString();
}

// A recorded run replayed (--replay) ends with its last look said as the past, not as a
// provisional verdict still forming; nothing stored is compared, so nothing says "Final".
TEST(LiveViewLook, AReplayedRunEndsWithItsLastLookNotAProvisionalVerdict)
{
    test::application();
    nf::test::TempDir dir;
    MainWindow window(QString::fromStdString(dir.file("runs.db")));
    QFile file(QStringLiteral(NF_UI_TEST_DATA "/spin_run.jsonl"));  // a real run's stream
    ASSERT_TRUE(file.open(QIODevice::ReadOnly));
    QByteArray stream = file.readAll();
    const auto end = stream.lastIndexOf("{\"event\":\"finished\"");
    ASSERT_GT(end, 0);
    // A look before its end (the recording's run was shorter than the sequential method's first look).
    stream.insert(end, R"({"event":"look","provisional":true,"run":1,"units":97,"elapsed":10.7,"estimate_pct":-1.10,)"
                       R"("low_pct":-2.44,"high_pct":0.26,"margin_pct":1,"detectable_pct":0.44,)"
                       R"("seconds_to_decision":5.2,"seconds_left":0,"decision":"inconclusive"})"
                       "\n");
    window.eventClient()->feed(stream);
    const QString text = window.livePanel()->verdictText();
    EXPECT_TRUE(text.startsWith("Last look, at the end of the run: ")) << text.toStdString();
    EXPECT_FALSE(text.contains("Provisional")) << text.toStdString();
    EXPECT_TRUE(text.endsWith("The verdict is Compare's, on the stored run.")) << text.toStdString();

    // Compare's verdict replaces it, its sentences whole; a margin other than the run's is named.
    window.livePanel()->settle(1, "b vs a: inconclusive: no difference shown, and\n  none excluded", 0.3);
    const QString settled = window.livePanel()->verdictText();
    EXPECT_TRUE(
        settled.startsWith("Final, as Compare shows it: b vs a: inconclusive: no difference shown, and none "
                           "excluded\n"))
        << settled.toStdString();
    EXPECT_TRUE(settled.endsWith("(Compare's margin is ±0.3%; the band above is the run's ±1%.)"))
        << settled.toStdString();
}

}  // namespace
}  // namespace nf::ui
