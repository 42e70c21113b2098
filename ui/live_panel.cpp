#include "ui/live_panel.h"

#include <QLabel>
#include <QPlainTextEdit>
#include <QProgressBar>
#include <QSplitter>
#include <QTimer>
#include <QVBoxLayout>

#include <qcustomplot.h>

#include <cmath>

#include "ui/repetition_plot.h"

namespace nf::ui {

LivePanel::LivePanel(QWidget* parent)
    : QWidget(parent),
      m_plot(new QCustomPlot(this)),
      m_progress(new QProgressBar(this)),
      m_status(new QLabel(this)),
      m_log(new QPlainTextEdit(this)),
      m_replotTimer(new QTimer(this))
{
    m_log->setReadOnly(true);
    m_log->setMaximumBlockCount(2000);
    m_log->setMaximumHeight(140);
    m_log->setPlaceholderText(tr("Warnings, errors and the engine's messages appear here."));
    m_status->setWordWrap(true);
    m_status->setTextInteractionFlags(Qt::TextSelectableByMouse);
    m_replotTimer->setSingleShot(true);
    connect(m_replotTimer, &QTimer::timeout, this, &LivePanel::replotNow);
    m_plot->setNoAntialiasingOnDrag(true);
    m_plot->setInteractions(QCP::iRangeDrag | QCP::iRangeZoom);
    m_plot->xAxis->setLabel(tr("time since the first measurement (s)"));
    m_plot->legend->setVisible(true);

    auto* splitter = new QSplitter(Qt::Vertical, this);
    splitter->addWidget(m_plot);
    splitter->addWidget(m_log);
    splitter->setStretchFactor(0, 4);
    splitter->setStretchFactor(1, 1);
    auto* layout = new QVBoxLayout(this);
    layout->addWidget(m_status);
    layout->addWidget(m_progress);
    layout->addWidget(splitter, 1);
    clear();
}

void LivePanel::attach(EventClient* client)
{
    connect(client, &EventClient::runStarted, this, &LivePanel::onStarted);
    connect(client, &EventClient::samplesArrived, this, &LivePanel::onSamples);
    connect(client, &EventClient::repetitionDone, this, &LivePanel::onBoundary);
    connect(client, &EventClient::progress, this, &LivePanel::onProgress);
    connect(client, &EventClient::warning, this,
            [this](const QString& text) { appendLog(tr("warning: %1").arg(text)); });
    connect(client, &EventClient::error, this, [this](const QString& text) { appendLog(tr("error: %1").arg(text)); });
    connect(client, &EventClient::finished, this, &LivePanel::onFinished);
    connect(client, &EventClient::engineFailed, this, &LivePanel::onFailed);
}

void LivePanel::clear()
{
    m_plot->clearGraphs();
    m_plot->clearItems();
    m_plot->yAxis->setLabel(QString());
    m_plot->xAxis->setRange(0, 5);  // the last run's axes go with it
    m_plot->yAxis->setRange(0, 5);
    m_log->clear();
    if (m_plot->width() > 0 && m_plot->height() > 0) {
        m_plot->replot();  // unsized (a tab never shown): replots when laid out
    }
    m_info = {};
    m_samples = 0;
    m_ended = false;
    m_progress->setRange(0, 1);
    m_progress->setValue(0);
    m_progress->setFormat(tr("no run"));
    m_status->setText(tr("No run yet: design one in the Experiment tab and press Run."));
}

void LivePanel::onStarted(const LiveRunInfo& info)
{
    clear();
    m_info = info;
    if (!info.simulatedCounters.isEmpty()) {
        m_info.workload += tr(" (SIMULATED counters)");  // in every status line
    }
    m_log->clear();
    if (!info.simulatedCounters.isEmpty()) {
        appendLog(info.simulatedCounters);
    }
    for (int v = 0; v < info.variants.size(); ++v) {
        QCPGraph* g = m_plot->addGraph();
        g->setName(info.variants[v]);
        g->setLineStyle(QCPGraph::lsNone);
        g->setScatterStyle(QCPScatterStyle(QCPScatterStyle::ssDisc, RepetitionPlot::variantColor(v), 3));
        g->setAdaptiveSampling(true);
    }
    m_plot->yAxis->setLabel(QStringLiteral("%1 (%2)").arg(info.primaryMetric, info.primaryUnit));
    const int total = info.repetitions * static_cast<int>(info.variants.size());
    m_progress->setRange(0, std::max(total, 1));
    m_progress->setFormat(tr("%v of %m variant-repetitions"));
    m_status->setText(tr("run %1: %2%3, warming up")
                          .arg(info.runId)
                          .arg(m_info.workload, info.label.isEmpty() ? QString() : " '" + info.label + "'"));
    for (const auto& line : info.notMeasured) {
        appendLog(tr("not measured: %1").arg(line));
    }
    scheduleReplot();
}

void LivePanel::onSamples(const std::vector<LiveSample>& samples)
{
    const bool wasSmall = m_samples <= kDotsAbove;
    for (const auto& s : samples) {
        if (s.variant >= 0 && s.variant < m_plot->graphCount() && std::isfinite(s.primary)) {
            m_plot->graph(s.variant)->addData(s.start + s.duration / 2, s.primary);
            ++m_samples;
        }
    }
    if (wasSmall && m_samples > kDotsAbove) {
        // Discs cost a path each; with this many points, one-pixel dots keep a replot cheap.
        for (int v = 0; v < m_plot->graphCount(); ++v) {
            m_plot->graph(v)->setScatterStyle(
                QCPScatterStyle(QCPScatterStyle::ssDot, RepetitionPlot::variantColor(v), 1));
        }
    }
    scheduleReplot();
}

void LivePanel::onBoundary(int /*repetition*/, double /*start*/, double end)
{
    auto* line = new QCPItemStraightLine(m_plot);
    line->point1->setCoords(end, 0);
    line->point2->setCoords(end, 1);
    line->setPen(QPen(QColor(120, 120, 120), 1, Qt::DashLine));
    scheduleReplot();
}

void LivePanel::onProgress(int done, int total, double secondsLeft)
{
    m_progress->setRange(0, std::max(total, 1));
    m_progress->setValue(done);
    m_status->setText(
        tr("run %1: %2 - %3 of %4 done, about %5 s left")
            .arg(m_info.runId)
            .arg(m_info.workload)
            .arg(done)
            .arg(total)
            .arg(std::isfinite(secondsLeft) ? QString::number(secondsLeft, 'f', 1) : QStringLiteral("?")));
}

void LivePanel::onFinished(const QString& status, const QString& reason)
{
    m_ended = true;
    m_status->setText(tr("run %1: %2 %3%4")
                          .arg(m_info.runId)
                          .arg(m_info.workload, status, reason.isEmpty() ? QString() : " (" + reason + ")"));
    if (status == QLatin1String("complete")) {
        m_progress->setValue(m_progress->maximum());
    }
    replotNow();
    emit runEnded(m_info.runId, status);
}

void LivePanel::onFailed(const QString& reason, const QString& stderrText)
{
    appendLog(reason);
    if (!stderrText.trimmed().isEmpty()) {
        appendLog(tr("engine stderr:\n%1").arg(stderrText.trimmed()));
    }
    // The engine says why in its last line on stderr (a refused spec: "--reps 0: must be ..."); the
    // headline gives that, not the exit status.
    QString why = reason;
    const QStringList lines = stderrText.split(QLatin1Char('\n'), Qt::SkipEmptyParts);
    for (auto it = lines.rbegin(); it != lines.rend(); ++it) {
        if (!it->trimmed().isEmpty()) {
            why = it->trimmed();
            break;
        }
    }
    m_status->setText(m_info.runId > 0 ? tr("run %1 failed: %2").arg(m_info.runId).arg(why)
                                       : tr("the run did not start: %1").arg(why));
    m_progress->setFormat(tr("failed"));
    replotNow();
    if (!m_ended) {
        m_ended = true;
        emit runEnded(m_info.runId, QStringLiteral("failed"));
    }
}

void LivePanel::appendLog(const QString& text)
{
    m_log->appendPlainText(text);
}

QString LivePanel::statusText() const
{
    return m_status->text();
}

QString LivePanel::logText() const
{
    return m_log->toPlainText();
}

void LivePanel::scheduleReplot()
{
    m_dirty = true;
    if (m_replotTimer->isActive()) {
        return;
    }
    const qint64 since = m_sinceReplot.isValid() ? m_sinceReplot.elapsed() : kMinReplotMs;
    m_replotTimer->start(static_cast<int>(std::max<qint64>(0, kMinReplotMs - since)));
}

void LivePanel::replotNow()
{
    m_replotTimer->stop();
    m_dirty = false;
    m_plot->rescaleAxes();
    m_plot->yAxis->scaleRange(1.1);
    if (m_plot->width() > 0 && m_plot->height() > 0) {
        m_plot->replot();  // unsized (a tab never shown): replots when laid out
    }
    ++m_replots;
    m_sinceReplot.restart();
}

}  // namespace nf::ui
