#include "ui/repetition_plot.h"

#include <qcustomplot.h>

#include <QFontMetrics>
#include <QLabel>
#include <QResizeEvent>
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
    int colour = -1;       // index into the variant palette; -1: the series' place in the plot
    std::vector<int> rep;  // repetition number (1-based) of each value
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

// Offset of a variant's mean mark in the mean column: wider apart than the dots, so that the marks
// of eight variants with about the same mean stay eight marks rather than one line.
double meanDodge(int variant, int variants)
{
    if (variants < 2) {
        return 0;
    }
    const double spread = std::min(0.8, 0.2 * (variants - 1));
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
    m_note = new QLabel(this);
    m_note->setWordWrap(true);
    m_note->setStyleSheet(QStringLiteral("color: #8a5a00;"));
    m_note->hide();
    layout->addWidget(m_note);
    m_plot->installEventFilter(this);
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
    m_plot->legend->setWrap(4);  // fitToWidth() sets as many columns as the width holds
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
    m_fullTitle = title;
    m_title->setText(title);
    m_note->clear();
    m_note->hide();
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
    replotIfSized();
}

QString RepetitionPlot::message() const
{
    return m_message != nullptr ? m_message->text() : QString();
}

QString RepetitionPlot::title() const
{
    return m_fullTitle;
}

QString RepetitionPlot::note() const
{
    return m_note->text();
}

void RepetitionPlot::replotIfSized()
{
    if (m_plot->width() > 0 && m_plot->height() > 0) {
        fitToWidth(m_plot->width());
        m_plot->replot();  // unsized (a tab never shown): replots when laid out
    }
}

bool RepetitionPlot::eventFilter(QObject* watched, QEvent* event)
{
    if (watched == m_plot && event->type() == QEvent::Resize) {
        fitToWidth(static_cast<QResizeEvent*>(event)->size().width());  // before the plot lays itself out
    }
    return QWidget::eventFilter(watched, event);
}

void RepetitionPlot::fitToWidth(int width)
{
    // A title wider than the plot (several runs with long labels) ends in "...", whole in the tooltip.
    const QString shown = QFontMetrics(m_title->font()).elidedText(m_fullTitle, Qt::ElideRight, width - 8);
    m_title->setText(shown);
    m_plot->setToolTip(shown != m_fullTitle ? m_fullTitle : QString());
    QCPLegend* legend = m_plot->legend;
    std::vector<int> widths;
    for (int i = 0; i < legend->elementCount(); ++i) {  // the grid's cells, some of them empty
        if (const QCPLayoutElement* item = legend->elementAt(i)) {
            widths.push_back(item->minimumOuterSizeHint().width());
        }
    }
    const int room = width - legend->margins().left() - legend->margins().right();
    const int count = static_cast<int>(widths.size());
    int columns = std::max(1, count);
    for (; columns > 1; --columns) {  // the most columns whose widest entries fit side by side
        int needed = legend->columnSpacing() * (columns - 1);
        for (int c = 0; c < columns; ++c) {
            int widest = 0;
            for (int i = c; i < count; i += columns) {
                widest = std::max(widest, widths[static_cast<std::size_t>(i)]);
            }
            needed += widest;
        }
        if (needed <= room) {
            break;
        }
    }
    const int cells = (count + columns - 1) / columns * columns;  // a full grid: no hole before the last row
    if (legend->wrap() != columns || legend->columnCount() != columns || legend->elementCount() != cells) {
        legend->setWrap(columns);
        legend->setFillOrder(QCPLegend::foColumnsFirst, true);  // refills the grid row by row
    }
}

void RepetitionPlot::showRun(const QString& title, const engine::RunData& run)
{
    PlottedRun one;
    one.data = &run;
    plotRuns(title, {one});
}

void RepetitionPlot::showRuns(const std::vector<PlottedRun>& runs)
{
    std::vector<PlottedRun> kept;
    for (const auto& run : runs) {
        if (run.data != nullptr) {
            kept.push_back(run);
        }
    }
    if (kept.empty()) {
        showMessage(QString(), tr("no variant ticked"));
        return;
    }
    const auto named = [](const PlottedRun& run) {
        return run.label.isEmpty() ? tr("run %1").arg(run.id) : tr("run %1 '%2'").arg(run.id).arg(run.label);
    };
    QString title;
    const bool oneWorkload =
        std::all_of(kept.begin(), kept.end(), [&](const PlottedRun& r) { return r.workload == kept.front().workload; });
    if (kept.size() == 1) {
        title = tr("run %1: %2").arg(kept.front().id).arg(kept.front().workload);
        if (!kept.front().label.isEmpty()) {
            title += tr(" '%1'").arg(kept.front().label);
        }
    } else {
        QStringList parts;
        for (const auto& run : kept) {
            parts << (oneWorkload || run.workload.isEmpty() ? named(run) : tr("%1 (%2)").arg(named(run), run.workload));
        }
        title = parts.join(tr(" vs "));
        if (oneWorkload && !kept.front().workload.isEmpty()) {
            title += tr(": %1").arg(kept.front().workload);
        }
    }
    plotRuns(title, kept);
}

void RepetitionPlot::plotRuns(const QString& title, const std::vector<PlottedRun>& runs)
{
    reset(title);
    const engine::RunData& first = *runs.front().data;
    if (first.layout.metrics.empty()) {
        setMessage(tr("this run defines no metrics"));
        replotIfSized();
        return;
    }
    const engine::MetricSpec& metric = first.layout.metrics.front();
    const bool several = runs.size() > 1;

    std::vector<Series> series;
    QStringList lacking;  // runs that did not store the metric
    int lastRep = 0;      // highest repetition number plotted, 1-based
    double yMin = std::numeric_limits<double>::infinity();
    double yMax = -yMin;
    for (const auto& plotted : runs) {
        const engine::RunData& run = *plotted.data;
        const auto found = std::find_if(run.layout.metrics.begin(), run.layout.metrics.end(),
                                        [&](const engine::MetricSpec& m) { return m.name == metric.name; });
        if (found == run.layout.metrics.end()) {
            lacking << tr("run %1").arg(plotted.id);
            continue;
        }
        const engine::ChunkCut cut = engine::chunkCut(run);  // the analysis's clean-chunk rule
        for (int v = 0; v < static_cast<int>(run.variantNames.size()); ++v) {
            const QString variant = QString::fromStdString(run.variantNames[static_cast<std::size_t>(v)]);
            if (!plotted.variants.isEmpty() && !plotted.variants.contains(variant)) {
                continue;
            }
            Series s;
            s.name = several ? tr("run %1: %2").arg(plotted.id).arg(variant) : variant;
            s.colour = several ? -1 : v;  // across runs: by the place in the plot, set below
            const std::vector<double> values = engine::repetitionValues(run, cut, v, *found);
            // repetitionValues() skips repetitions where the metric is undefined; only trust the
            // stored indices when nothing was skipped.
            // Repetition indices (as stored, 0-based) that hold samples of the variant, ascending.
            std::vector<int> reps = run.samples.repetitionsOf(v);
            if (reps.size() != values.size()) {
                reps.resize(values.size());
                std::iota(reps.begin(), reps.end(), 0);
            }
            for (std::size_t i = 0; i < values.size(); ++i) {
                s.rep.push_back(reps[i] + 1);
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
    }
    if (!lacking.isEmpty()) {
        m_note->setText(tr("Not plotted: %1 stored no %2 (the first run's primary metric).")
                            .arg(lacking.join(QStringLiteral(", ")), QString::fromStdString(metric.name)));
        m_note->show();
    }

    m_plot->yAxis->setLabel(metricLabel(metric));
    m_plot->yAxis->setTicker(QSharedPointer<QCPAxisTicker>(new SiTicker));
    const double meanX = lastRep + 1;
    const QString unit = QString::fromStdString(metric.unit);
    const int count = static_cast<int>(series.size());
    for (int i = 0; i < count; ++i) {
        const Series& s = series[static_cast<std::size_t>(i)];
        const QColor color = variantColour(s.colour >= 0 ? s.colour : i);
        QVector<double> x;
        for (int rep : s.rep) {
            x.push_back(rep + dodge(i, count));
        }
        QCPGraph* graph = m_plot->addGraph();
        graph->setLineStyle(QCPGraph::lsNone);
        graph->setScatterStyle(QCPScatterStyle(QCPScatterStyle::ssDisc, color, color, 8));
        graph->setPen(QPen(color));
        graph->setData(x, s.y, true);
        if (s.y.isEmpty()) {
            graph->setName(tr("%1 (no values)").arg(s.name));
            continue;
        }
        graph->setName(tr("%1: mean %2 %3 over %4 reps").arg(s.name).arg(s.mean, 0, 'g', 5).arg(unit).arg(s.y.size()));
        auto* line = new QCPItemLine(m_plot);
        line->setPen(QPen(color, 3));
        const double center = meanX + meanDodge(i, count);
        const double half = count < 2 ? 0.15 : std::min(0.15, 0.4 * meanDodge(1, count) - 0.4 * meanDodge(0, count));
        line->start->setCoords(center - half, s.mean);
        line->end->setCoords(center + half, s.mean);
    }

    if (lastRep == 0) {
        setMessage(several ? tr("no samples in these runs") : tr("no samples in this run"));
        replotIfSized();
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
    replotIfSized();
}

}  // namespace nf::ui
