#include "ui/live_panel.h"

#include <QHBoxLayout>
#include <QLabel>
#include <QPlainTextEdit>
#include <QProgressBar>
#include <QPushButton>
#include <QSplitter>
#include <QTimer>
#include <QVBoxLayout>

#include <qcustomplot.h>

#include <algorithm>
#include <cmath>

#include "ui/difference_plot.h"
#include "ui/retry_when_free.h"
#include "ui/robust_range.h"
#include "ui/si_format.h"
#include "ui/si_ticker.h"
#include "ui/variant_palette.h"

namespace nf::ui {

namespace {

QString duration(double seconds)
{
    if (!std::isfinite(seconds)) {
        return QStringLiteral("?");
    }
    if (seconds < 60) {
        return QStringLiteral("%1 s").arg(seconds, 0, 'f', seconds < 10 ? 1 : 0);
    }
    const auto s = static_cast<long long>(std::lround(seconds));
    return s < 3600 ? QStringLiteral("%1 min %2 s").arg(s / 60).arg(s % 60, 2, 10, QLatin1Char('0'))
                    : QStringLiteral("%1 h %2 min").arg(s / 3600).arg(s / 60 % 60, 2, 10, QLatin1Char('0'));
}

// The engine's way of writing a percent (si_format.h): a bound that is not zero never reads +0.00%.
QString percent(double v)
{
    return std::isfinite(v) ? QString::fromStdString(percentText(v)) : QStringLiteral("?");
}

// A variant's samples. Its legend entry shows the variant's marker large and filled, whatever size
// the samples are drawn at (one-pixel dots once there are many): a hollow five-pixel circle in an
// icon of the legend's size reads as an empty box.
class SampleGraph : public QCPGraph {
public:
    SampleGraph(QCPAxis* key, QCPAxis* value, QColor colour) : QCPGraph(key, value), m_colour(colour) {}

protected:
    void drawLegendIcon(QCPPainter* painter, const QRectF& rect) const override
    {
        const double r = std::min(rect.height(), rect.width()) * 0.3;
        painter->setAntialiasing(true);
        painter->setPen(QPen(m_colour, 1.5));
        QColor fill = m_colour;
        fill.setAlpha(110);
        painter->setBrush(fill);
        painter->drawEllipse(rect.center(), r, r);
    }

private:
    QColor m_colour;
};

}  // namespace

LivePanel::LivePanel(QWidget* parent)
    : QWidget(parent),
      m_diff(new DifferencePlot(this)),
      m_verdict(new QLabel(this)),
      m_stop(new QPushButton(tr("Stop"), this)),
      m_retry(new RetryWhenFree(this)),
      m_tick(new QTimer(this)),
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
    m_verdict->setWordWrap(true);
    m_verdict->setTextInteractionFlags(Qt::TextSelectableByMouse);
    m_stop->setToolTip(
        tr("Stop the run (Esc, Ctrl+.): it is stored as aborted, with the repetitions measured so "
           "far; a run that has gone on for more than a minute asks first"));
    m_stop->setEnabled(false);
    connect(m_stop, &QPushButton::clicked, this, &LivePanel::stopRequested);
    m_tick->setInterval(250);
    connect(m_tick, &QTimer::timeout, this, &LivePanel::refreshStatus);
    m_clock.start();
    m_replotTimer->setSingleShot(true);
    connect(m_replotTimer, &QTimer::timeout, this, &LivePanel::replotNow);
    m_plot->setNoAntialiasingOnDrag(true);
    // Replotted several times a second: antialiased translucent discs are what a replot costs.
    m_plot->setNotAntialiasedElements(QCP::aeScatters);
    m_plot->setInteractions(QCP::iRangeDrag | QCP::iRangeZoom);
    m_plot->xAxis->setLabel(tr("time since the first measurement (s)"));
    m_plot->legend->setVisible(true);
    m_plot->legend->setBrush(QColor(255, 255, 255, 200));  // samples show through
    m_plot->legend->setFillOrder(QCPLegend::foColumnsFirst);
    m_plot->yAxis->setTicker(QSharedPointer<QCPAxisTicker>(new SiTicker));

    auto* splitter = new QSplitter(Qt::Vertical, this);
    splitter->addWidget(m_diff);
    splitter->addWidget(m_plot);
    splitter->addWidget(m_log);
    splitter->setStretchFactor(0, 3);
    splitter->setStretchFactor(1, 3);
    splitter->setStretchFactor(2, 1);
    auto* progressRow = new QHBoxLayout;
    progressRow->addWidget(m_progress, 1);
    progressRow->addWidget(m_stop);
    auto* layout = new QVBoxLayout(this);
    layout->addWidget(m_status);
    layout->addWidget(m_retry);
    layout->addLayout(progressRow);
    layout->addWidget(m_verdict);
    layout->addWidget(splitter, 1);
    clear();
}

void LivePanel::attach(EventClient* client)
{
    connect(client, &EventClient::runStarted, this, &LivePanel::onStarted);
    connect(client, &EventClient::samplesArrived, this, &LivePanel::onSamples);
    connect(client, &EventClient::repetitionDone, this, &LivePanel::onBoundary);
    connect(client, &EventClient::progress, this, &LivePanel::onProgress);
    connect(client, &EventClient::lookArrived, this, &LivePanel::onLook);
    connect(client, &EventClient::warning, this,
            [this](const QString& text) { appendLog(tr("warning: %1").arg(text)); });
    connect(client, &EventClient::error, this, [this](const QString& text) {
        m_errors << text;
        appendLog(tr("error: %1").arg(text));
    });
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
    m_errors.clear();
    if (m_plot->width() > 0 && m_plot->height() > 0) {
        m_plot->replot();  // unsized (a tab never shown): replots when laid out
    }
    m_info = {};
    m_samples = 0;
    m_variants = 0;
    m_outside = 0;
    m_unstored = 0;
    m_ended = false;
    m_starting = false;
    m_done = 0;
    m_total = 0;
    m_boundary = 0;
    m_latest = 0;
    m_looks = 0;
    m_lastLook.reset();
    m_countdown.reset();
    m_tick->stop();
    m_diff->clear();
    m_verdict->setText(tr("The difference between the first two variants appears here as it forms."));
    m_progress->setRange(0, 1);
    m_progress->setValue(0);
    m_progress->setFormat(tr("no run"));
    m_status->setText(tr("No run yet: design one in the Experiment tab and press Run."));
}

void LivePanel::starting()
{
    clear();
    m_starting = true;
    m_progress->setRange(0, 0);  // busy: nothing to count yet
    m_status->setText(tr("Starting the engine: it calibrates the clock and warms the variants up before measuring."));
    setRunning(true);
}

void LivePanel::setRunning(bool running)
{
    m_stop->setEnabled(running);
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
    m_variants = static_cast<int>(info.variants.size());
    for (int v = 0; v < m_variants; ++v) {
        auto* g = new SampleGraph(m_plot->xAxis, m_plot->yAxis, variantColour(v));
        g->setName(info.variants[v]);
        g->setLineStyle(QCPGraph::lsNone);
        // Hollow and translucent: where two variants' samples fall on each other both still show,
        // the one drawn later does not cover the one under it.
        // Large enough to see at a glance, with a faint fill: a ring of one pixel was a speck.
        g->setScatterStyle(QCPScatterStyle(QCPScatterStyle::ssCircle, QPen(variantColour(v, 170), 1.5),
                                           QBrush(variantColour(v, 45)), 7));
        g->setAdaptiveSampling(true);
    }
    // Samples outside the robust limits, marked at the top or bottom edge in their variant's colour.
    for (const auto shape : {QCPScatterStyle::ssTriangle, QCPScatterStyle::ssTriangleInverted}) {
        for (int v = 0; v < m_variants; ++v) {
            QCPGraph* g = m_plot->addGraph();
            g->setLineStyle(QCPGraph::lsNone);
            const QColor color = variantColour(v);
            g->setScatterStyle(QCPScatterStyle(shape, color, color, 7));
            g->removeFromLegend();
        }
    }
    // Many variants: the legend in rows of five across the top, not a column taller than the plot.
    m_plot->legend->setWrap(m_variants > 4 ? 5 : 1);
    m_plot->legend->setFillOrder(QCPLegend::foColumnsFirst, true);  // the items are there already
    m_plot->axisRect()->insetLayout()->setInsetAlignment(
        0, m_variants > 4 ? Qt::AlignTop | Qt::AlignHCenter : Qt::AlignTop | Qt::AlignRight);
    m_yLabel = QStringLiteral("%1 (%2)").arg(info.primaryMetric, info.primaryUnit);
    m_plot->yAxis->setLabel(m_yLabel);
    m_total = info.repetitions * static_cast<int>(info.variants.size());
    showProgress();
    if (info.variants.size() >= 2) {
        m_diff->setTitle(info.variants[1], info.variants[0], info.primaryMetric, variantColour(1));
    }
    if (!info.label.isEmpty()) {
        m_info.workload += " '" + info.label + "'";
    }
    if (!info.sweepPoint.isEmpty()) {
        m_info.workload += ", " + info.sweepPoint;
    }
    m_tick->start();
    refreshStatus();
    for (const auto& line : info.notMeasured) {
        appendLog(tr("not measured: %1").arg(line));
    }
    scheduleReplot();
}

void LivePanel::onSamples(const std::vector<LiveSample>& samples)
{
    const bool wasSmall = m_samples <= kDotsAbove;
    for (const auto& s : samples) {
        m_latest = std::max(m_latest, s.start + s.duration);
        if (s.variant >= 0 && s.variant < m_variants && std::isfinite(s.primary)) {
            m_plot->graph(s.variant)->addData(s.start + s.duration / 2, s.primary);
            ++m_samples;
        }
    }
    if (wasSmall && m_samples > kDotsAbove) {
        // Rings cost a path each; with this many points, small filled squares keep a replot cheap
        // and still show (a one-pixel dot does not). Their edge is their own colour: QCustomPlot
        // takes a NoPen scatter pen as none given and draws the graph's default blue instead.
        for (int v = 0; v < m_variants; ++v) {
            const QColor colour = variantColour(v, 150);
            m_plot->graph(v)->setScatterStyle(
                QCPScatterStyle(QCPScatterStyle::ssSquare, QPen(colour, 1), QBrush(colour), 2));
        }
    }
    showProgress();
    scheduleReplot();
}

void LivePanel::onBoundary(int /*repetition*/, double /*start*/, double end)
{
    m_boundary = std::max(m_boundary, end);
    auto* line = new QCPItemStraightLine(m_plot);
    line->point1->setCoords(end, 0);
    line->point2->setCoords(end, 1);
    line->setPen(QPen(QColor(120, 120, 120), 1, Qt::DashLine));
    scheduleReplot();
}

void LivePanel::showProgress()
{
    if (m_ended || m_total <= 0) {
        return;
    }
    // The repetition being measured: each of its variants measures m_info.duration seconds, in
    // chunks that alternate, so its samples' time since the last boundary says how far it is.
    const double partial =
        m_info.duration > 0 && m_latest > m_boundary
            ? std::clamp((m_latest - m_boundary) / m_info.duration, 0.0, std::max(m_variants, 1) - 0.01)
            : 0.0;
    const double done = std::min(m_done + partial, static_cast<double>(m_total));
    m_progress->setRange(0, m_total * kBarSteps);
    m_progress->setValue(static_cast<int>(std::lround(done * kBarSteps)));
    m_progress->setFormat(tr("%1 of %2 variant-repetitions").arg(m_done).arg(m_total));
}

void LivePanel::onProgress(int done, int total, double secondsLeft)
{
    m_done = done;
    m_total = total;
    showProgress();
    m_countdown.update(secondsLeft, static_cast<double>(m_clock.elapsed()) / 1000);
    refreshStatus();
}

void LivePanel::onLook(const LiveLook& look)
{
    ++m_looks;
    m_diff->addLook(look);
    const QString unit = look.units == 1 ? tr("unit") : tr("units");
    QString text;
    if (!std::isfinite(look.lowPct)) {
        text = tr("Collecting: %1 %2 measured, too few for an interval yet.").arg(look.units).arg(unit);
    } else {
        text = tr("%1 %2 [%3, %4] after %5 %6")
                   .arg(look.decision == QLatin1String("inconclusive") ? tr("Provisional: inconclusive,")
                                                                       : tr("Provisional: %1,").arg(look.decision))
                   .arg(percent(look.estimatePct), percent(look.lowPct), percent(look.highPct))
                   .arg(look.units)
                   .arg(unit);
        if (look.decision == QLatin1String("inconclusive")) {
            text += std::isfinite(look.secondsToDecision)
                        ? tr("; about %1 more measuring to a decision at the current rate")
                              .arg(duration(look.secondsToDecision))
                        : tr("; no decision in reach at the current rate");
        }
        if (std::isfinite(look.detectablePct)) {
            text += tr("; by the end it can detect about ±%1%").arg(look.detectablePct, 0, 'f', 2);
        }
        text += tr(" (margin ±%1%).").arg(look.marginPct, 0, 'g', 3);
        m_lastLook = look;
    }
    m_verdict->setText(text);
    scheduleReplot();
}

void LivePanel::refreshStatus()
{
    if (m_ended || m_info.runId == 0) {
        return;
    }
    const double left = m_countdown.at(static_cast<double>(m_clock.elapsed()) / 1000);
    m_status->setText(tr("run %1: %2 - measuring, %3 of %4 variant-repetitions done, about %5 left")
                          .arg(m_info.runId)
                          .arg(m_info.workload)
                          .arg(m_done)
                          .arg(m_total)
                          .arg(duration(left)));
}

void LivePanel::onFinished(const QString& status, const QString& reason)
{
    m_ended = true;
    m_tick->stop();
    // Stop stays as the engine's process has it (setRunning): a sweep's next point is still to come.
    QString text = tr("run %1: %2 %3%4")
                       .arg(m_info.runId)
                       .arg(m_info.workload, status, reason.isEmpty() ? QString() : " (" + reason + ")");
    const int perRepetition = std::max(m_variants, 1);
    if (status == QLatin1String("complete") && m_total > 0 && m_done < m_total) {
        // --until decided: the run ends when it is decided or out of time, not after the planned
        // repetitions. The bar is full (the run is done) and says how far it got.
        text += tr(" - stopped early after %1 of %2 planned repetitions")
                    .arg(m_done / perRepetition)
                    .arg(m_total / perRepetition);
        m_progress->setRange(0, 1);
        m_progress->setValue(1);
        m_progress->setFormat(tr("stopped early: %1 of %2 variant-repetitions (%3)")
                                  .arg(m_done)
                                  .arg(m_total)
                                  .arg(reason.isEmpty() ? tr("the engine's rule") : reason));
    } else if (status == QLatin1String("complete")) {
        m_progress->setRange(0, 1);
        m_progress->setValue(1);
        m_progress->setFormat(tr("%1 of %2 variant-repetitions").arg(m_total).arg(m_total));
    } else {
        // Stopped or failed: the bar stays where the stored repetitions put it.
        m_progress->setRange(0, std::max(m_total, 1));
        m_progress->setValue(m_done);
        m_progress->setFormat(tr("%1: %2 of %3 variant-repetitions stored").arg(status).arg(m_done).arg(m_total));
    }
    m_status->setText(text);
    if (m_lastLook) {
        // The run is over: its last look is history, not a verdict in the making. The verdict is
        // Compare's, which settle() puts here once the stored run is compared.
        const LiveLook& look = *m_lastLook;
        m_verdict->setText(
            tr("Last look, at the end of the run: %1 %2 [%3, %4] after %5 units (margin ±%6%). "
               "The verdict is Compare's, on the stored run.")
                .arg(look.decision, percent(look.estimatePct), percent(look.lowPct), percent(look.highPct))
                .arg(look.units)
                .arg(look.marginPct, 0, 'g', 3));
    }
    markUnstored();
    replotNow();
    emit runEnded(m_info.runId, status);
}

void LivePanel::markUnstored()
{
    if (m_variants == 0 || m_samples == 0) {
        return;
    }
    QCPGraph* cut = nullptr;
    for (int v = 0; v < m_variants; ++v) {
        const auto points = m_plot->graph(v)->data();
        auto from = points->findBegin(m_boundary, false);
        while (from != points->constEnd() && from->key <= m_boundary) {
            ++from;
        }
        if (from == points->constEnd()) {
            continue;
        }
        if (cut == nullptr) {
            cut = m_plot->addGraph();
            cut->setLineStyle(QCPGraph::lsNone);
            cut->setScatterStyle(QCPScatterStyle(QCPScatterStyle::ssCross, QColor(150, 150, 150), 5));
        }
        for (auto it = from; it != points->constEnd(); ++it) {
            cut->addData(it->key, it->value);
            ++m_unstored;
        }
        points->removeAfter(m_boundary);
    }
    if (cut != nullptr) {
        cut->setName(tr("not stored (repetition cut short)"));
        m_samples -= m_unstored;
        auto* band = new QCPItemRect(m_plot);
        band->topLeft->setTypeX(QCPItemPosition::ptPlotCoords);
        band->topLeft->setTypeY(QCPItemPosition::ptAxisRectRatio);
        band->bottomRight->setTypeX(QCPItemPosition::ptPlotCoords);
        band->bottomRight->setTypeY(QCPItemPosition::ptAxisRectRatio);
        band->topLeft->setCoords(m_boundary, 0);
        band->bottomRight->setCoords(m_latest, 1);
        band->setPen(Qt::NoPen);
        band->setBrush(QColor(0, 0, 0, 18));
        band->setLayer(QStringLiteral("background"));
        appendLog(tr("%1 samples of the repetition cut short are not stored: drawn grey after the last stored "
                     "repetition")
                      .arg(m_unstored));
    }
}

void LivePanel::settle(qint64 runId, const QString& verdicts, double marginPct)
{
    if (!m_ended || runId != m_info.runId || runId == 0 || verdicts.isEmpty()) {
        return;
    }
    // The verdicts as sentences, one a candidate (Compare wraps them to its panels' width; this line
    // has the window's).
    QStringList sentences;
    for (const QString& line : verdicts.split(QLatin1Char('\n'))) {
        if (line.startsWith(QLatin1Char(' ')) && !sentences.isEmpty()) {
            sentences.back() += QLatin1Char(' ') + line.trimmed();
        } else {
            sentences << line;
        }
    }
    QString text = tr("Final, as Compare shows it: %1").arg(sentences.join(QLatin1Char('\n')));
    if (m_lastLook && std::isfinite(m_lastLook->marginPct) && std::abs(m_lastLook->marginPct - marginPct) > 1e-9) {
        text += tr("\n(Compare's margin is ±%1%; the band above is the run's ±%2%.)")
                    .arg(marginPct, 0, 'g', 3)
                    .arg(m_lastLook->marginPct, 0, 'g', 3);
    }
    m_verdict->setText(text);
}

void LivePanel::onFailed(const QString& reason, const QString& stderrText)
{
    appendLog(reason);
    // The engine's stderr, less the lines its error events already put in the log: a refused run's
    // reason is said once there, and once in the headline.
    QStringList rest;
    for (const QString& line : stderrText.split(QLatin1Char('\n'), Qt::SkipEmptyParts)) {
        if (std::none_of(m_errors.begin(), m_errors.end(),
                         [&](const QString& e) { return !e.isEmpty() && line.contains(e); })) {
            rest << line;
        }
    }
    if (!rest.join(QString()).trimmed().isEmpty()) {
        appendLog(tr("engine stderr:\n%1").arg(rest.join(QLatin1Char('\n')).trimmed()));
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
    m_progress->setRange(0, 1);
    m_progress->setFormat(tr("failed"));
    m_tick->stop();
    setRunning(false);
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

QString LivePanel::verdictText() const
{
    return m_verdict->text();
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

// x: every sample; y: the bulk of them (ui/robust_range.h), the rest marked at the edge.
void LivePanel::placeSamples()
{
    // Each variant's own bulk, then their union: variants far apart must all stay in view.
    const std::size_t stride = std::max<std::size_t>(1, static_cast<std::size_t>(m_samples) / 20000);
    bool any = false;
    QCPRange x;
    RobustRange r;
    // The variants' samples, and those not stored (markUnstored()), which may be all there are.
    const int unstoredGraph = 3 * m_variants;
    const int graphs = m_unstored > 0 && m_plot->graphCount() > unstoredGraph ? unstoredGraph + 1 : m_variants;
    for (int g = 0; g < graphs; ++g) {
        if (g >= m_variants && g < unstoredGraph) {
            continue;  // the edge markers
        }
        std::vector<double> ys;
        const auto points = m_plot->graph(g)->data();
        std::size_t i = 0;
        for (auto it = points->constBegin(); it != points->constEnd(); ++it, ++i) {
            if (i % stride == 0) {
                ys.push_back(it->value);
            }
        }
        const RobustRange own = robustRange(std::move(ys));
        if (!std::isnan(own.low)) {
            r = std::isnan(r.low) ? own : RobustRange{std::min(r.low, own.low), std::max(r.high, own.high)};
        }
        bool ok = false;
        const QCPRange keys = m_plot->graph(g)->getKeyRange(ok);
        if (ok) {
            x = any ? QCPRange(std::min(x.lower, keys.lower), std::max(x.upper, keys.upper)) : keys;
            any = true;
        }
    }
    if (!any || std::isnan(r.low)) {
        return;
    }
    m_plot->xAxis->setRange(x.lower, std::max(x.upper, x.lower + 1e-3));
    const double pad = std::max((r.high - r.low) * 0.08, std::fabs(r.high) * 1e-4 + 1e-12);
    m_plot->yAxis->setRange(r.low - pad, r.high + pad);
    m_outside = 0;
    for (int v = 0; v < m_variants; ++v) {
        QCPGraph* above = m_plot->graph(m_variants + v);
        QCPGraph* below = m_plot->graph(2 * m_variants + v);
        above->data()->clear();
        below->data()->clear();
        const auto points = m_plot->graph(v)->data();
        for (auto it = points->constBegin(); it != points->constEnd(); ++it) {
            if (it->value > r.high) {
                above->addData(it->key, r.high + pad * 0.6);
                ++m_outside;
            } else if (it->value < r.low) {
                below->addData(it->key, r.low - pad * 0.6);
                ++m_outside;
            }
        }
    }
    m_plot->yAxis->setLabel(
        m_outside == 0 ? m_yLabel : tr("%1\n%2 outside: \u25b2\u25bc at the edge").arg(m_yLabel).arg(m_outside));
}

void LivePanel::replotNow()
{
    m_replotTimer->stop();
    m_dirty = false;
    m_diff->replot();
    placeSamples();
    if (m_plot->width() > 0 && m_plot->height() > 0) {
        m_plot->replot();  // unsized (a tab never shown): replots when laid out
    }
    ++m_replots;
    m_sinceReplot.restart();
}

}  // namespace nf::ui
