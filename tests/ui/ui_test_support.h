#pragma once
// Shared by the GUI suites: the one QApplication (offscreen) and a small stored run.

#include <gtest/gtest.h>

#include <QApplication>
#include <QElapsedTimer>
#include <QImage>
#include <QProcess>
#include <QStringList>
#include <QTest>
#include <algorithm>
#include <cstdint>
#include <map>
#include <optional>
#include <string>

#include "data/run_store.h"
#include "data/schema.h"
#include "engine/model/metric.h"
#include "engine/model/run_data.h"

namespace nf::ui::test {

// One QApplication for the whole binary, created on first use (gtest_main owns main()). It is
// deliberately never destroyed: tearing Qt down during static destruction is not worth the risk.
inline QApplication& application()
{
    static int argc = 1;
    static char name[] = "ui_test";
    static char* argv[] = {name, nullptr};
    static QApplication* app = [] {
        qputenv("QT_QPA_PLATFORM", "offscreen");
        return new QApplication(argc, argv);
    }();
    return *app;
}

constexpr int kReps = 3;
constexpr int kSamplesPerRep = 4;

// `variants` variants: a, b, c, ... (b on: work=200, c: work=300, ...).
inline engine::RunStart makeRunStart(int variants = 2)
{
    engine::RunStart start;
    start.spec.workload = "spin";
    start.spec.label = "gui test";
    start.spec.variants = {{"a", {}}};
    start.variantParams = {{{"work", 100}}};
    for (int v = 1; v < variants; ++v) {
        const std::string work = std::to_string(100 * (v + 1));
        start.spec.variants.push_back({std::string(1, static_cast<char>('a' + v)), {{"work", work}}});
        start.variantParams.push_back(nlohmann::json{{"work", 100 * (v + 1)}});
    }
    start.spec.repetitions = kReps;
    start.spec.seed = 7;
    start.layout.quantities = {engine::quantity::kOps, engine::quantity::kTscTicks, engine::quantity::kElapsedNs};
    start.layout.metrics = engine::callLoopMetrics(start.layout.quantities);
    start.environment = {{"system", {{"hostname", "testhost"}, {"cpu_model", "Test CPU"}}}};
    return start;
}

// Variant a costs about 30 ticks/op, b about 60, ..., with a little spread per repetition.
inline engine::RepetitionResult makeRepetition(int index, int variants = 2)
{
    engine::RepetitionResult rep;
    rep.index = index;
    for (int v = 0; v < variants; ++v) {
        rep.variants.push_back(v);
    }
    double t = index * 1.0;
    rep.start = t;
    for (int i = 0; i < kSamplesPerRep; ++i) {
        for (int variant : rep.variants) {
            engine::Sample s;
            s.variant = variant;
            s.repetition = index;
            s.index = i;
            s.pair = i;
            s.start = t;
            s.duration = 0.01;
            const double ops = 1000.0 + 10.0 * i;
            const double ticksPerOp = 30.0 * (variant + 1) + index + 0.25 * i;
            s.values = {ops, ops * ticksPerOp, ops * ticksPerOp / 3.0};
            rep.samples.push_back(s);
            t += s.duration;
        }
    }
    rep.end = t;
    return rep;
}

// Stores a complete run of makeRunStart() with kReps repetitions in `dbPath`; returns its id.
inline std::int64_t storeRun(const std::string& dbPath, const std::string& label = "gui test",
                             const std::optional<engine::SweepPoint>& sweep = std::nullopt, int variants = 2)
{
    auto db = data::openStore(dbPath);
    if (!db) {
        return 0;
    }
    data::RunRecorder recorder(*db);
    auto start = makeRunStart(variants);
    start.spec.label = label;
    start.spec.sweep = sweep;
    if (!recorder.runStarted(start)) {
        return 0;
    }
    for (int r = 0; r < kReps; ++r) {
        if (!recorder.repetitionFinished(makeRepetition(r, variants))) {
            return 0;
        }
    }
    recorder.runFinished(engine::RunStatus::Complete, "");
    return recorder.runId();
}

// Pixels of `image` that differ from its most common colour: how much is drawn.
inline int drawnPixels(const QImage& image)
{
    std::map<QRgb, int> counts;
    for (int y = 0; y < image.height(); y += 2) {
        for (int x = 0; x < image.width(); x += 2) {
            ++counts[image.pixel(x, y)];
        }
    }
    int most = 0;
    int total = 0;
    for (const auto& [colour, n] : counts) {
        most = std::max(most, n);
        total += n;
    }
    return total - most;
}

// Runs this build's `noisefloor` with `args`, waiting up to 3 minutes; the test fails unless it
// exits 0. Returns what it printed on standard output.
inline QByteArray cli(const QStringList& args)
{
    QProcess p;
    p.start(QStringLiteral(NF_CLI_PATH), args);
    p.waitForFinished(180000);
    EXPECT_EQ(p.exitCode(), 0) << args.join(' ').toStdString() << ": " << p.readAllStandardError().toStdString();
    return p.readAllStandardOutput();
}

// Serves the event loop for `ms` milliseconds (queued signals, timers, the engine's output).
inline void serve(int ms)
{
    QElapsedTimer clock;
    clock.start();
    while (clock.elapsed() < ms) {
        QCoreApplication::processEvents(QEventLoop::AllEvents, 10);
        QTest::qWait(5);
    }
}

}  // namespace nf::ui::test
