#pragma once
// The Live tab: the running experiment's per-interval primary metric against time, one colour per
// variant, a dashed line at each repetition boundary, progress and time left, warnings and the
// engine's stderr. Samples are buffered and the plot is redrawn at most 25 times a second.

#include <QElapsedTimer>
#include <QWidget>

#include <vector>

#include "ui/event_client.h"

class QCustomPlot;
class QLabel;
class QPlainTextEdit;
class QProgressBar;
class QTimer;

namespace nf::ui {

class LivePanel : public QWidget {
    Q_OBJECT

public:
    explicit LivePanel(QWidget* parent = nullptr);

    // Follows `client`'s events from now on (the panel does not own it).
    void attach(EventClient* client);
    // Forgets the plotted run.
    void clear();

    QCustomPlot* customPlot() const { return m_plot; }
    int sampleCount() const { return m_samples; }
    int replotCount() const { return m_replots; }
    QString statusText() const;
    QString logText() const;

    static constexpr int kMinReplotMs = 40;   // at most 25 replots a second
    static constexpr int kDotsAbove = 20000;  // samples shown as discs up to this count, then as dots

signals:
    // The run ended (any status) with this id; 0 when it never started.
    void runEnded(qint64 runId, const QString& status);

private:
    void onStarted(const LiveRunInfo& info);
    void onSamples(const std::vector<LiveSample>& samples);
    void onBoundary(int repetition, double start, double end);
    void onProgress(int done, int total, double secondsLeft);
    void onFinished(const QString& status, const QString& reason);
    void onFailed(const QString& reason, const QString& stderrText);
    void appendLog(const QString& html);
    void scheduleReplot();
    void replotNow();

    QCustomPlot* m_plot = nullptr;
    QProgressBar* m_progress = nullptr;
    QLabel* m_status = nullptr;
    QPlainTextEdit* m_log = nullptr;
    QTimer* m_replotTimer = nullptr;
    QElapsedTimer m_sinceReplot;
    LiveRunInfo m_info;
    int m_samples = 0;
    int m_replots = 0;
    bool m_dirty = false;
    bool m_ended = false;
};

}  // namespace nf::ui
