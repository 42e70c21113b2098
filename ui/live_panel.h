#pragma once
// The Live tab: the difference between the first two variants as the engine's confidence sequence
// sees it while the run goes on (ui/difference_plot.h) with the provisional decision and the time to
// it; the per-interval primary metric against time, one colour per variant, a dashed line at each
// repetition boundary; progress, a time left that counts down smoothly, Stop; warnings and the
// engine's stderr. The engine sends samples and looks a few times a second; the plots are redrawn
// at most 25 times a second.

#include <QElapsedTimer>
#include <QWidget>

#include <optional>
#include <vector>

#include "ui/countdown.h"
#include "ui/event_client.h"

class QCustomPlot;
class QLabel;
class QPlainTextEdit;
class QProgressBar;
class QPushButton;
class QTimer;

namespace nf::ui {

class DifferencePlot;
class RetryWhenFree;

class LivePanel : public QWidget {
    Q_OBJECT

public:
    explicit LivePanel(QWidget* parent = nullptr);

    // Follows `client`'s events from now on (the panel does not own it).
    void attach(EventClient* client);
    // Forgets the plotted run.
    void clear();
    // The engine was started: it calibrates and warms up before the run is stored.
    void starting();
    void setRunning(bool running);
    // Once run `runId` has ended and been compared: its last line says what Compare says (the
    // fixed-n analysis of the primary metric, with Compare's margin `marginPct`), not the last
    // provisional look. Ignored for another run.
    void settle(qint64 runId, const QString& verdicts, double marginPct);

    QCustomPlot* customPlot() const { return m_plot; }
    int sampleCount() const { return m_samples; }
    int replotCount() const { return m_replots; }
    int outsideCount() const { return m_outside; }
    int unstoredCount() const { return m_unstored; }
    QString statusText() const;
    QProgressBar* progressBar() const { return m_progress; }
    QString verdictText() const;
    DifferencePlot* differencePlot() const { return m_diff; }
    int lookCount() const { return m_looks; }
    QPushButton* stopButton() const { return m_stop; }
    // Under the headline: "Retry when free" for a run refused for CPUs in use (RunController offers it).
    RetryWhenFree* retryRow() const { return m_retry; }
    QString logText() const;

    static constexpr int kMinReplotMs = 40;  // at most 25 replots a second
    static constexpr int kDotsAbove = 5000;  // samples shown as rings up to this count, then as small squares
    static constexpr int kBarSteps = 100;    // steps of the bar per variant-repetition

signals:
    // The run ended (any status) with this id; 0 when it never started.
    void runEnded(qint64 runId, const QString& status);
    void stopRequested();

private:
    void onStarted(const LiveRunInfo& info);
    void onSamples(const std::vector<LiveSample>& samples);
    void onBoundary(int repetition, double start, double end);
    void onProgress(int done, int total, double secondsLeft);
    void onLook(const LiveLook& look);
    void refreshStatus();
    // The bar: whole variant-repetitions done plus how far the one being measured has got.
    void showProgress();
    void onFinished(const QString& status, const QString& reason);
    void onFailed(const QString& reason, const QString& stderrText);
    void appendLog(const QString& html);
    void scheduleReplot();
    void replotNow();
    void placeSamples();
    // Once the run has ended: the samples after its last stored repetition (one cut short by Stop)
    // are not in the database; they are drawn grey and named so.
    void markUnstored();

    DifferencePlot* m_diff = nullptr;
    QLabel* m_verdict = nullptr;
    QPushButton* m_stop = nullptr;
    RetryWhenFree* m_retry = nullptr;
    QTimer* m_tick = nullptr;  // the countdown, 4 times a second
    Countdown m_countdown;
    QElapsedTimer m_clock;
    int m_done = 0;
    int m_total = 0;
    double m_boundary = 0;  // where the last finished repetition ended (s since the first measurement)
    double m_latest = 0;    // the end of the newest sample
    int m_looks = 0;
    std::optional<LiveLook> m_lastLook;  // the last with an interval
    bool m_starting = false;
    QCustomPlot* m_plot = nullptr;
    QProgressBar* m_progress = nullptr;
    QLabel* m_status = nullptr;
    QPlainTextEdit* m_log = nullptr;
    QTimer* m_replotTimer = nullptr;
    QElapsedTimer m_sinceReplot;
    LiveRunInfo m_info;
    int m_samples = 0;
    int m_variants = 0;
    int m_outside = 0;
    int m_unstored = 0;  // samples of a repetition that was not stored (markUnstored)  // samples outside the y axis,
                         // marked at its edge
    QString m_yLabel;
    QStringList m_errors;  // the engine's error events, already in the log
    int m_replots = 0;
    bool m_dirty = false;
    bool m_ended = false;
};

}  // namespace nf::ui
