#include "ui/repetition_plot.h"

#include <qcustomplot.h>

#include <QVBoxLayout>
#include <algorithm>
#include <cmath>
#include <limits>
#include <numeric>

#include "engine/analysis/chunk_cut.h"
#include "ui/si_ticker.h"
#include "ui/variant_palette.h"

namespace nf::ui {

namespace {

struct Series {
    QString name;
    QVector<double> x;  // repetition number (1-based) plus the variant's dodge
    QVector<double> y;
    double mean = 0;
};

// Horizontal offset of a variant, so that variants measured in the same repetition don't overlap.
double dodge(int variant, int variants)
{
    if (variants < 2) {
        return 0;
    }
    const double spread = std::min(0.36, 0.12 * (variants - 1));
    return -spread / 2 + spread * variant / (variants - 1);
}

QString metricLabel(const engine::MetricSpec& metric)
{
    QString label = QString::fromStdString(metric.name);
    if (!metric.unit.empty()) {
        label += QStringLiteral(" (%1)").arg(QString::fromStdString(metric.unit));
    }
    return label + (metric.higherIsBetter ? QObject::tr(", higher is better") : QObject::tr(", lower is better"));
}

}  // namespace

RepetitionPlot::RepetitionPlot(QWidget* parent) : QWidget(parent), m_plot(new QCustomPlot(this))
{
    auto* layout = new QVBoxLayout(this);
    layout->setContentsMargins(0, 0, 0, 0);
    layout->addWidget(m_plot);
    m_plot->setMinimumHeight(220);
    m_plot->setInteractions(QCP::iRangeDrag | QCP::iRangeZoom);
    m_plot->axisRect()->setRangeZoom(Qt::Vertical);
    m_plot->axisRect()->setRangeDrag(Qt::Vertical);

    QFont titleFont = font();
    titleFont.setPointSizeF(titleFont.pointSizeF() * 1.25);
    titleFont.setBold(true);
    m_plot->plotLayout()->insertRow(0);
    m_title = new QCPTextElement(m_plot, QString(), titleFont);
    m_plot->plotLayout()->addElement(0, 0, m_title);

    // The legend goes in its own row under the axis rect, so it never hides points, centred
    // between two stretching empty cells.
    auto* legendRow = new QCPLayoutGrid;
    m_plot->plotLayout()->addElement(2, 0, legendRow);
    m_plot->plotLayout()->setRowStretchFactor(2, 0.001);
    m_plot->axisRect()->insetLayout()->take(m_plot->legend);
    legendRow->addElement(0, 0, new QCPLayoutElement(m_plot));
    legendRow->addElement(0, 1, m_plot->legend);
    legendRow->addElement(0, 2, new QCPLayoutElement(m_plot));
    legendRow->setColumnStretchFactors({1.0, 0.001, 1.0});
    m_plot->legend->setFillOrder(QCPLegend::foColumnsFirst);
    m_plot->legend->setWrap(4);
    m_plot->legend->setBorderPen(Qt::NoPen);
    m_plot->legend->setMargins(QMargins(4, 0, 4, 4));
    m_plot->legend->setFont(font());

    m_plot->xAxis->setLabel(tr("repetition"));
    showMessage(QString(), tr("no run selected"));
}

void RepetitionPlot::reset(const QString& title)
{
    m_plot->clearGraphs();
    m_plot->clearItems();
    m_message = nullptr;
    m_title->setText(title);
    m_plot->legend->setVisible(false);
    m_plot->yAxis->setLabel(QString());
    m_plot->xAxis->setTicker(QSharedPointer<QCPAxisTicker>(new QCPAxisTicker));
    setAxesVisible(false);  // meaningless 0..1 axes around a message only distract
}

void RepetitionPlot::setAxesVisible(bool visible)
{
    m_plot->xAxis->setVisible(visible);
    m_plot->yAxis->setVisible(visible);
}

void RepetitionPlot::setMessage(const QString& text)
{
    m_message = new QCPItemText(m_plot);
    m_message->position->setType(QCPItemPosition::ptAxisRectRatio);
    m_message->position->setCoords(0.5, 0.5);
    m_message->setPositionAlignment(Qt::AlignCenter);
    m_message->setText(text);
    m_message->setColor(palette().color(QPalette::PlaceholderText));
    QFont big = font();
    big.setPointSizeF(big.pointSizeF() * 1.2);
    m_message->setFont(big);
}

void RepetitionPlot::showMessage(const QString& title, const QString& text)
{
    reset(title);
    setMessage(text);
    if (m_plot->width() > 0 && m_plot->height() > 0) {
        m_plot->replot();  // unsized (a tab never shown): replots when laid out
    }
}

QString RepetitionPlot::message() const
{
    return m_message != nullptr ? m_message->text() : QString();
}

void RepetitionPlot::showRun(const QString& title, const engine::RunData& run)
{
    reset(title);
    if (run.layout.metrics.empty()) {
        setMessage(tr("this run defines no metrics"));
        if (m_plot->width() > 0 && m_plot->height() > 0) {
            m_plot->replot();  // unsized (a tab never shown): replots when laid out
        }
        return;
    }
    const engine::MetricSpec& metric = run.layout.metrics.front();
    const int variants = static_cast<int>(run.variantNames.size());
    const engine::ChunkCut cut = engine::chunkCut(run);  // the analysis's clean-chunk rule

    std::vector<Series> series;
    int lastRep = 0;  // highest repetition number plotted, 1-based
    double yMin = std::numeric_limits<double>::infinity();
    double yMax = -yMin;
    for (int v = 0; v < variants; ++v) {
        Series s;
        s.name = QString::fromStdString(run.variantNames[static_cast<std::size_t>(v)]);
        const std::vector<double> values = engine::repetitionValues(run, cut, v, metric);
        // repetitionValues() skips repetitions where the metric is undefined; only trust the
        // stored indices when nothing was skipped.
        // Repetition indices (as stored, 0-based) that hold samples of the variant, ascending.
        std::vector<int> reps = run.samples.repetitionsOf(v);
        if (reps.size() != values.size()) {
            reps.resize(values.size());
            std::iota(reps.begin(), reps.end(), 0);
        }
        for (std::size_t i = 0; i < values.size(); ++i) {
            s.x.push_back(reps[i] + 1 + dodge(v, variants));
            s.y.push_back(values[i]);
            lastRep = std::max(lastRep, reps[i] + 1);
            yMin = std::min(yMin, values[i]);
            yMax = std::max(yMax, values[i]);
        }
        if (!values.empty()) {
            s.mean = std::accumulate(values.begin(), values.end(), 0.0) / static_cast<double>(values.size());
        }
        series.push_back(std::move(s));
    }

    m_plot->yAxis->setLabel(metricLabel(metric));
    m_plot->yAxis->setTicker(QSharedPointer<QCPAxisTicker>(new SiTicker));
    const double meanX = lastRep + 1;
    const QString unit = QString::fromStdString(metric.unit);
    for (int v = 0; v < variants; ++v) {
        const Series& s = series[static_cast<std::size_t>(v)];
        const QColor color = variantColour(v);
        QCPGraph* graph = m_plot->addGraph();
        graph->setLineStyle(QCPGraph::lsNone);
        graph->setScatterStyle(QCPScatterStyle(QCPScatterStyle::ssDisc, color, color, 8));
        graph->setPen(QPen(color));
        graph->setData(s.x, s.y, true);
        if (s.y.isEmpty()) {
            graph->setName(tr("%1 (no values)").arg(s.name));
            continue;
        }
        graph->setName(tr("%1: mean %2 %3 over %4 reps").arg(s.name).arg(s.mean, 0, 'g', 5).arg(unit).arg(s.y.size()));
        auto* line = new QCPItemLine(m_plot);
        line->setPen(QPen(color, 3));
        const double center = meanX + dodge(v, variants);
        line->start->setCoords(center - 0.15, s.mean);
        line->end->setCoords(center + 0.15, s.mean);
    }

    if (lastRep == 0) {
        setMessage(tr("no samples in this run"));
        if (m_plot->width() > 0 && m_plot->height() > 0) {
            m_plot->replot();  // unsized (a tab never shown): replots when laid out
        }
        return;
    }

    QSharedPointer<QCPAxisTickerText> ticker(new QCPAxisTickerText);
    const int step = std::max(1, lastRep / 12);
    for (int r = 1; r <= lastRep; r += step) {
        ticker->addTick(r, QString::number(r));
    }
    ticker->addTick(meanX, tr("mean"));
    m_plot->xAxis->setTicker(ticker);
    m_plot->xAxis->setRange(0.4, meanX + 0.6);

    double pad = (yMax - yMin) * 0.12;
    if (pad <= 0) {
        pad = std::abs(yMax) > 0 ? std::abs(yMax) * 0.05 : 1.0;
    }
    m_plot->yAxis->setRange(yMin - pad, yMax + pad);
    m_plot->legend->setVisible(true);
    setAxesVisible(true);
    if (m_plot->width() > 0 && m_plot->height() > 0) {
        m_plot->replot();  // unsized (a tab never shown): replots when laid out
    }
}

}  // namespace nf::ui
