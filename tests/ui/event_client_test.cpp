// The JSON-lines client: against a recorded `noisefloor run --events jsonl` stream fed in odd
// pieces, against a real (short) engine run, and against an engine that dies mid-run.

#include <gtest/gtest.h>

#include <QFile>
#include <QSignalSpy>
#include <QTest>

#include <qcustomplot.h>

#include "data/run_store.h"
#include "data/schema.h"
#include "tests/support/temp_dir.h"
#include "tests/ui/ui_test_support.h"
#include "ui/event_client.h"
#include "ui/live_panel.h"

namespace nf::ui {
namespace {

QByteArray recordedStream()
{
    QFile f(QStringLiteral(NF_UI_TEST_DATA "/spin_run.jsonl"));
    return f.open(QIODevice::ReadOnly) ? f.readAll() : QByteArray();
}

TEST(EventClient, ParsesARecordedStreamFedInPieces)
{
    test::application();
    const QByteArray stream = recordedStream();
    ASSERT_FALSE(stream.isEmpty());
    EventClient client;
    QSignalSpy started(&client, &EventClient::runStarted);
    QSignalSpy samples(&client, &EventClient::samplesArrived);
    QSignalSpy reps(&client, &EventClient::repetitionDone);
    QSignalSpy progress(&client, &EventClient::progress);
    QSignalSpy finished(&client, &EventClient::finished);
    QSignalSpy warnings(&client, &EventClient::warning);
    // Seven bytes at a time: lines arrive split anywhere, as pipes deliver them.
    for (qsizetype at = 0; at < stream.size(); at += 7) {
        client.feed(stream.mid(at, 7));
    }
    ASSERT_EQ(started.count(), 1);
    const auto info = started.at(0).at(0).value<LiveRunInfo>();
    EXPECT_GT(info.runId, 0);
    EXPECT_EQ(info.workload, "spin");
    EXPECT_EQ(info.variants, (QStringList{"a", "b"}));
    EXPECT_EQ(info.primaryMetric, "tsc_per_op");
    EXPECT_EQ(info.repetitions, 2);
    EXPECT_EQ(reps.count(), 2);
    EXPECT_EQ(samples.count(), 2);
    EXPECT_EQ(progress.count(), 2);
    int total = 0;
    for (const auto& call : samples) {
        const auto batch = call.at(0).value<std::vector<LiveSample>>();
        for (const auto& s : batch) {
            EXPECT_TRUE(s.variant == 0 || s.variant == 1);
            EXPECT_GT(s.primary, 0);
            EXPECT_GE(s.start, 0);
        }
        total += static_cast<int>(batch.size());
    }
    EXPECT_GT(total, 10);
    ASSERT_EQ(finished.count(), 1);
    EXPECT_EQ(finished.at(0).at(0).toString(), "complete");
    EXPECT_EQ(warnings.count(), 0);
}

TEST(EventClient, ReportsAnUnreadableLineAndGoesOn)
{
    test::application();
    EventClient client;
    QSignalSpy warnings(&client, &EventClient::warning);
    QSignalSpy finished(&client, &EventClient::finished);
    client.feed("{not json\n{\"event\":\"finished\",\"status\":\"aborted\",\"reason\":\"SIGTERM\"}\n");
    ASSERT_EQ(warnings.count(), 1);
    EXPECT_TRUE(warnings.at(0).at(0).toString().contains("line 1"));
    ASSERT_EQ(finished.count(), 1);
    EXPECT_EQ(finished.at(0).at(1).toString(), "SIGTERM");
}

TEST(EventClient, FollowsARealEngineRun)
{
    test::application();
    nf::test::TempDir dir;
    const QString db = QString::fromStdString(dir.file("runs.db"));
    EventClient client;
    LivePanel live;
    live.attach(&client);
    QSignalSpy finished(&client, &EventClient::finished);
    QSignalSpy ended(&client, &EventClient::processEnded);
    QSignalSpy failed(&client, &EventClient::engineFailed);
    ASSERT_TRUE(client.start(QStringLiteral(NF_CLI_PATH),
                             {"--db", db, "run", "spin", "--variant", "a", "--variant", "b:work=200", "--reps", "2",
                              "--duration", "0.05", "--warmup", "0.01", "--label", "live test"}));
    ASSERT_TRUE(ended.wait(120000)) << client.stderrText().toStdString();
    EXPECT_EQ(failed.count(), 0) << client.stderrText().toStdString();
    ASSERT_EQ(finished.count(), 1);
    EXPECT_EQ(finished.at(0).at(0).toString(), "complete");
    EXPECT_EQ(ended.at(0).at(0).toInt(), 0);
    EXPECT_GT(live.sampleCount(), 0);
    EXPECT_EQ(live.customPlot()->graphCount(), 2 * 3);  // per variant: its samples, outliers above, below
    EXPECT_TRUE(live.statusText().contains("complete")) << live.statusText().toStdString();
    // The run the stream announced is the one stored.
    auto store = data::openStore(db.toStdString(), data::Database::Mode::ReadOnly);
    ASSERT_TRUE(store.ok());
    auto runs = data::listRuns(*store);
    ASSERT_TRUE(runs.ok());
    ASSERT_EQ(runs->size(), 1U);
    EXPECT_EQ(runs->front().label, "live test");
    EXPECT_EQ(runs->front().status, engine::RunStatus::Complete);
}

TEST(EventClient, SurvivesTheEngineDyingAndShowsItsStderr)
{
    test::application();
    EventClient client;
    LivePanel live;
    live.attach(&client);
    QSignalSpy failed(&client, &EventClient::engineFailed);
    QSignalSpy ended(&client, &EventClient::processEnded);
    // A stand-in engine: starts a run, says something on stderr, then is killed by a signal.
    const QString script = QStringLiteral(
        "echo '{\"event\":\"run_started\",\"run\":7,\"spec\":{\"workload\":\"spin\",\"repetitions\":3},"
        "\"variants\":[{\"name\":\"a\"}],\"metrics\":[{\"name\":\"tsc_per_op\",\"unit\":\"ticks/op\"}]}'; "
        "echo 'worker lost its CPU' >&2; kill -SEGV $$");
    ASSERT_TRUE(client.start(QStringLiteral("/bin/sh"), {"-c", script, "sh"}));
    ASSERT_TRUE(ended.wait(30000));
    ASSERT_EQ(failed.count(), 1);
    EXPECT_TRUE(failed.at(0).at(0).toString().contains("crashed")) << failed.at(0).at(0).toString().toStdString();
    EXPECT_TRUE(failed.at(0).at(1).toString().contains("worker lost its CPU"));
    EXPECT_TRUE(live.logText().contains("worker lost its CPU")) << live.logText().toStdString();
    EXPECT_TRUE(live.statusText().contains("run 7 failed")) << live.statusText().toStdString();
    EXPECT_FALSE(client.running());
}

TEST(LivePanel, CoalescesReplots)
{
    test::application();
    const QByteArray stream = recordedStream();
    ASSERT_FALSE(stream.isEmpty());
    EventClient client;
    LivePanel live;
    live.attach(&client);
    const QList<QByteArray> lines = stream.split('\n');
    // The samples lines, repeated: 200 batches arrive faster than 25 replots a second.
    QByteArray header;
    QByteArray samples;
    for (const auto& line : lines) {
        if (line.contains("\"run_started\"")) {
            header = line + '\n';
        } else if (line.contains("\"samples\"")) {
            samples = line + '\n';
        }
    }
    client.feed(header);
    QElapsedTimer timer;
    timer.start();
    for (int i = 0; i < 200; ++i) {
        client.feed(samples);
        QCoreApplication::processEvents();
    }
    QTest::qWait(2 * LivePanel::kMinReplotMs);
    const double seconds = static_cast<double>(timer.elapsed()) / 1000.0;
    EXPECT_GT(live.sampleCount(), 200);
    EXPECT_GE(live.replotCount(), 1);
    // At most one replot per 40 ms window, plus the one that flushed the last batch.
    EXPECT_LE(live.replotCount(), static_cast<int>(seconds * 1000 / LivePanel::kMinReplotMs) + 2);
}

}  // namespace
}  // namespace nf::ui
