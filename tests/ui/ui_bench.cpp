// Benchmark, not a test (not registered with ctest): how the GUI holds up under load.
//
//   ui_bench ENGINE [DATABASE RUN]
//
// 1. Event-loop latency (a 5 ms timer records how late the event loop serves it) while the Live
//    panel takes samples: replayed from a real run at 10,000 samples a second, then streamed by
//    ENGINE (the noisefloor binary) running spin alternating in 1 ms chunks (1,000 samples per
//    second of measurement).
// 2. With DATABASE and RUN (e.g. made by `data_store_bench 1000000 big.db`): time to open the run
//    (load and analysis off the GUI thread, then the GUI-thread part that fills the plots), and
//    the longest event-loop stall meanwhile.
// 3. Replot time of a QCustomPlot with 1,000,000 points (two graphs of 500,000), 1200x800.

#include <QApplication>
#include <QElapsedTimer>
#include <QJsonDocument>
#include <QProcess>
#include <QTimer>

#include <qcustomplot.h>

#include <algorithm>
#include <cstdio>
#include <filesystem>
#include <random>
#include <vector>

#include "ui/compare_panel.h"
#include "ui/event_client.h"
#include "ui/live_panel.h"
#include "ui/repetition_plot.h"
#include "ui/run_loader.h"
#include "ui/store.h"

namespace {

using nf::ui::EventClient;
using nf::ui::LivePanel;

// Records the gaps between the ticks of a 5 ms timer: the event loop's lateness.
class LatencyProbe {
public:
    static constexpr int kTickMs = 5;
    LatencyProbe()
    {
        m_timer.setTimerType(Qt::PreciseTimer);
        QObject::connect(&m_timer, &QTimer::timeout, [this] {
            const double now = static_cast<double>(m_clock.nsecsElapsed()) / 1e6;
            if (m_last > 0) {
                m_late.push_back(std::max(0.0, now - m_last - kTickMs));
            }
            m_last = now;
        });
        m_clock.start();
        m_timer.start(kTickMs);
    }
    double percentile(double p)
    {
        if (m_late.empty()) {
            return 0;
        }
        std::sort(m_late.begin(), m_late.end());
        return m_late[static_cast<std::size_t>(p * static_cast<double>(m_late.size() - 1))];
    }
    double max() { return m_late.empty() ? 0 : *std::max_element(m_late.begin(), m_late.end()); }
    std::size_t ticks() const { return m_late.size(); }

private:
    QTimer m_timer;
    QElapsedTimer m_clock;
    double m_last = 0;
    std::vector<double> m_late;
};

const QStringList kRunArgs = {"run",        "spin", "--variant", "a",   "--variant", "b:work=200",
                              "--duration", "1",    "--warmup",  "0.1", "--chunk",   "0.001"};

// The real engine streaming a spin run in 1 ms chunks into the Live panel.
void streamLatency(const QString& engine, const QString& db)
{
    LivePanel live;
    live.resize(1200, 800);
    live.setAttribute(Qt::WA_DontShowOnScreen);
    live.show();
    EventClient client;
    live.attach(&client);
    QEventLoop loop;
    QObject::connect(&client, &EventClient::processEnded, &loop, &QEventLoop::quit);
    QElapsedTimer wall;
    double first = -1;
    double last = 0;
    int batches = 0;
    // Stream to pixel: from a batch's arrival (parsed) to the end of the replot that draws it.
    std::vector<double> pixelMs;
    double pendingMs = -1;
    int looks = 0;
    double firstLook = -1;
    double lastLook = 0;
    QObject::connect(&client, &EventClient::samplesArrived, [&](const std::vector<nf::ui::LiveSample>&) {
        ++batches;
        last = static_cast<double>(wall.elapsed()) / 1000.0;
        first = first < 0 ? last : first;
        if (pendingMs < 0) {
            pendingMs = static_cast<double>(wall.nsecsElapsed()) / 1e6;
        }
    });
    QObject::connect(&client, &EventClient::lookArrived, [&](const nf::ui::LiveLook&) {
        ++looks;
        lastLook = static_cast<double>(wall.elapsed()) / 1000.0;
        firstLook = firstLook < 0 ? lastLook : firstLook;
    });
    QObject::connect(live.customPlot(), &QCustomPlot::afterReplot, [&] {
        if (pendingMs >= 0) {
            pixelMs.push_back(static_cast<double>(wall.nsecsElapsed()) / 1e6 - pendingMs);
            pendingMs = -1;
        }
    });
    wall.start();
    client.start(engine, QStringList{"--db", db} + kRunArgs + QStringList{"--reps", "10"});
    LatencyProbe probe;
    loop.exec();
    std::printf(
        "engine stream: %d samples in %d batches; %.0f samples/s while the engine measured (%.1f s wall, %.1f s "
        "from first to last batch); %d replots\n",
        live.sampleCount(), client.linesRead() - 3 - 2 * 10, live.sampleCount() / 20.0,
        static_cast<double>(wall.elapsed()) / 1000.0, last - first, live.replotCount());
    std::printf("event-loop lateness while the engine streams: p50 %.2f ms, p99 %.2f ms, max %.2f ms over %zu ticks\n",
                probe.percentile(0.5), probe.percentile(0.99), probe.max(), probe.ticks());
    std::sort(pixelMs.begin(), pixelMs.end());
    if (!pixelMs.empty()) {
        std::printf(
            "stream to pixel (a batch parsed -> its replot done): p50 %.1f ms, p99 %.1f ms, max %.1f ms over %zu "
            "replots\n",
            pixelMs[pixelMs.size() / 2], pixelMs[(pixelMs.size() - 1) * 99 / 100], pixelMs.back(), pixelMs.size());
    }
    std::printf("looks at the difference: %d, %.1f a second from the first to the last\n", looks,
                lastLook > firstLook ? (looks - 1) / (lastLook - firstLook) : 0.0);
}

// The samples lines of a short real run, replayed into the Live panel ten times faster than the
// engine sends them: one ~2,000-sample batch every 200 ms, 10,000 samples a second.
void replayLatency(const QString& engine, const QString& db)
{
    QProcess process;
    process.start(engine, QStringList{"--db", db} + kRunArgs + QStringList{"--reps", "3", "--events", "jsonl"});
    process.waitForFinished(300000);
    QByteArray header;
    QList<QByteArray> batches;
    for (const auto& line : process.readAllStandardOutput().split('\n')) {
        if (line.contains("\"run_started\"")) {
            header = line + '\n';
        } else if (line.contains("\"event\":\"samples\"")) {  // not partial_samples: whole repetitions
            batches << line + '\n';
        }
    }
    if (batches.isEmpty()) {
        std::printf("replay: the engine produced no samples\n");
        return;
    }
    QElapsedTimer parse;
    parse.start();
    for (const auto& batch : batches) {
        (void)QJsonDocument::fromJson(batch);
    }
    std::printf("replay: %lld batches of about %lld kB; JSON parse alone %.1f ms per batch\n",
                static_cast<long long>(batches.size()), static_cast<long long>(batches.front().size() / 1024),
                static_cast<double>(parse.nsecsElapsed()) / 1e6 / static_cast<double>(batches.size()));
    LivePanel live;
    live.resize(1200, 800);
    live.setAttribute(Qt::WA_DontShowOnScreen);
    live.show();
    EventClient client;
    live.attach(&client);
    client.feed(header);
    std::vector<double> feedMs;
    int fed = 0;
    QTimer feeder;
    QEventLoop loop;
    QObject::connect(&feeder, &QTimer::timeout, [&] {
        QElapsedTimer t;
        t.start();
        client.feed(batches[fed % batches.size()]);
        feedMs.push_back(static_cast<double>(t.nsecsElapsed()) / 1e6);
        if (++fed == 50) {
            loop.quit();
        }
    });
    LatencyProbe probe;
    feeder.start(200);
    loop.exec();
    QElapsedTimer t;
    t.start();
    live.customPlot()->replot(QCustomPlot::rpImmediateRefresh);
    const double replotMs = static_cast<double>(t.nsecsElapsed()) / 1e6;
    std::sort(feedMs.begin(), feedMs.end());
    std::printf(
        "replay at 10,000 samples/s: %d samples; parse + add per batch median %.1f ms, max %.1f ms; live "
        "replot at the end %.1f ms\n",
        live.sampleCount(), feedMs[feedMs.size() / 2], feedMs.back(), replotMs);
    std::printf("event-loop lateness during the replay: p50 %.2f ms, p99 %.2f ms, max %.2f ms over %zu ticks\n",
                probe.percentile(0.5), probe.percentile(0.99), probe.max(), probe.ticks());
}

void openRun(const QString& db, qint64 runId)
{
    nf::ui::RunLoader loader;
    nf::ui::ComparePanel compare;
    nf::ui::RepetitionPlot plot;
    compare.resize(1200, 800);
    double guiMs = 0;
    double workerSeconds = 0;
    QString error;
    QEventLoop loop;
    QObject::connect(&loader, &nf::ui::RunLoader::loaded, [&](std::uint64_t, const nf::ui::LoadedRuns& result) {
        QElapsedTimer gui;
        gui.start();
        error = result.error;
        if (error.isEmpty()) {
            compare.showComparison(result.comparison);
            plot.showRun(QStringLiteral("run"), result.runs.front()->data);
        }
        guiMs = static_cast<double>(gui.nsecsElapsed()) / 1e6;
        workerSeconds = result.seconds;
        loop.quit();
    });
    QElapsedTimer total;
    total.start();
    LatencyProbe probe;
    auto store = nf::ui::Store::open(db);
    if (!store) {
        std::printf("open: %s\n", store.error().message.c_str());
        return;
    }
    loader.request(*store, {runId});
    loop.exec();
    if (!error.isEmpty()) {
        std::printf("open: %s\n", qPrintable(error));
        return;
    }
    std::printf(
        "open run %lld: %.2f s until shown (load + analysis off the GUI thread %.2f s, GUI thread %.1f ms); "
        "longest event-loop stall meanwhile %.1f ms\n",
        static_cast<long long>(runId), static_cast<double>(total.elapsed()) / 1000.0, workerSeconds, guiMs,
        probe.max());
}

void replot()
{
    QCustomPlot plot;
    plot.resize(1200, 800);
    std::mt19937 rng(1);
    std::normal_distribution<double> noise(0, 1);
    for (int g = 0; g < 2; ++g) {
        QVector<double> x(500000);
        QVector<double> y(500000);
        for (int i = 0; i < x.size(); ++i) {
            x[i] = i * 0.002;
            y[i] = 100 + 10 * g + noise(rng);
        }
        QCPGraph* graph = plot.addGraph();
        graph->setData(x, y, true);
        graph->setLineStyle(QCPGraph::lsNone);
        graph->setScatterStyle(QCPScatterStyle(QCPScatterStyle::ssDisc, 3));
    }
    plot.rescaleAxes();
    QElapsedTimer t;
    t.start();
    plot.replot(QCustomPlot::rpImmediateRefresh);
    const double first = static_cast<double>(t.nsecsElapsed()) / 1e6;
    constexpr int kRounds = 10;
    t.restart();
    for (int i = 0; i < kRounds; ++i) {
        plot.xAxis->moveRange(0.5);
        plot.replot(QCustomPlot::rpImmediateRefresh);
    }
    std::printf(
        "replot 1,000,000 points (2 graphs, scatter, adaptive sampling, 1200x800): first %.1f ms, then %.1f ms "
        "each\n",
        first, static_cast<double>(t.nsecsElapsed()) / 1e6 / kRounds);
}

}  // namespace

int main(int argc, char* argv[])
{
    if (qEnvironmentVariableIsEmpty("QT_QPA_PLATFORM")) {
        qputenv("QT_QPA_PLATFORM", "offscreen");
    }
    QApplication app(argc, argv);
    if (argc < 2) {
        std::fprintf(stderr, "usage: ui_bench ENGINE [DATABASE RUN]\n");
        return 2;
    }
    const std::string db = (std::filesystem::temp_directory_path() / "noisefloor_ui_bench.db").string();
    std::filesystem::remove(db);
    const QString engine = QString::fromLocal8Bit(argv[1]);
    replayLatency(engine, QString::fromStdString(db));
    if (qEnvironmentVariableIsSet("UI_BENCH_REPLAY_ONLY")) {
        return 0;
    }
    streamLatency(engine, QString::fromStdString(db));
    std::filesystem::remove(db);
    std::filesystem::remove(db + "-wal");
    std::filesystem::remove(db + "-shm");
    if (argc >= 4) {
        openRun(QString::fromLocal8Bit(argv[2]), QString::fromLocal8Bit(argv[3]).toLongLong());
    }
    replot();
    return 0;
}
