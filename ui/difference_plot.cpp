#include "ui/difference_plot.h"

#include <QFontMetrics>
#include <QVBoxLayout>

#include <qcustomplot.h>

#include <algorithm>
#include <cmath>

namespace nf::ui {

namespace {

QCPItemStraightLine* horizontalLine(QCustomPlot* plot, const QPen& pen)
{
    auto* line = new QCPItemStraightLine(plot);
    line->setPen(pen);
    line->setLayer(QStringLiteral("background"));
    return line;
}

void placeAt(QCPItemStraightLine* line, double y)
{
    line->point1->setCoords(0, y);
    line->point2->setCoords(1, y);
    line->setVisible(std::isfinite(y));
}

}  // namespace

DifferencePlot::DifferencePlot(QWidget* parent) : QWidget(parent), m_plot(new QCustomPlot(this))
{
    auto* layout = new QVBoxLayout(this);
    layout->setContentsMargins(0, 0, 0, 0);
    layout->addWidget(m_plot);
    m_plot->setInteractions(QCP::iRangeDrag | QCP::iRangeZoom);
    m_plot->xAxis->setLabel(tr("time since the first measurement (s)"));
    m_plot->legend->setVisible(true);
    m_plot->legend->setFont(font());
    m_plot->legend->setBrush(QColor(255, 255, 255, 170));  // the early, widest intervals show through
    // Four entries in two columns: a short box over the plot's corner.
    m_plot->legend->setFillOrder(QCPLegend::foColumnsFirst);
    m_plot->legend->setWrap(2);
    m_plot->axisRect()->insetLayout()->setInsetAlignment(0, Qt::AlignTop | Qt::AlignLeft);

    m_margin = new QCPItemRect(m_plot);
    // Across the axis rect's width (x as a share of it), the margin in plot coordinates.
    for (QCPItemPosition* corner : {m_margin->topLeft, m_margin->bottomRight}) {
        corner->setTypeX(QCPItemPosition::ptAxisRectRatio);
        corner->setTypeY(QCPItemPosition::ptPlotCoords);
    }
    m_margin->setPen(Qt::NoPen);
    m_margin->setBrush(QColor(44, 160, 44, 40));
    m_margin->setLayer(QStringLiteral("background"));
    m_zero = horizontalLine(m_plot, QPen(QColor(90, 90, 90), 1));
    for (auto*& line : m_detectable) {
        line = horizontalLine(m_plot, QPen(QColor(214, 39, 40), 1, Qt::DotLine));
    }
    const QColor ink(31, 60, 120);
    m_high = m_plot->addGraph();
    m_high->setPen(QPen(QColor(31, 119, 180, 120)));
    m_high->setBrush(QColor(31, 119, 180, 50));
    m_high->setName(tr("confidence sequence (valid at every look)"));
    m_low = m_plot->addGraph();
    m_low->setPen(QPen(QColor(31, 119, 180, 120)));
    m_high->setChannelFillGraph(m_low);
    m_low->removeFromLegend();
    m_estimate = m_plot->addGraph();
    m_estimate->setPen(QPen(ink, 2));
    m_estimate->setName(tr("estimate"));
    // The band and the dotted lines are items, which a legend does not list: an empty graph drawn
    // as each names it there.
    QCPGraph* marginEntry = m_plot->addGraph();
    marginEntry->setPen(Qt::NoPen);
    marginEntry->setBrush(m_margin->brush());
    marginEntry->setName(tr("\u00b1margin: equivalent inside"));
    QCPGraph* detectableEntry = m_plot->addGraph();
    detectableEntry->setPen(m_detectable[0]->pen());
    detectableEntry->setName(tr("detectable by the run's end"));
    m_legendOnly = {marginEntry, detectableEntry};
    clear();
}

void DifferencePlot::clear()
{
    for (auto* g : {m_estimate, m_high, m_low}) {
        g->data()->clear();
    }
    m_marginPct = NAN;
    m_detectablePct = NAN;
    m_margin->setVisible(false);
    placeAt(m_zero, 0);
    for (auto* line : m_detectable) {
        line->setVisible(false);
    }
    m_plot->xAxis->setRange(0, 5);
    m_plot->yAxis->setRange(-2, 2);
    m_plot->yAxis->setLabel(tr("difference (%)"));
    if (m_plot->width() > 0 && m_plot->height() > 0) {
        m_plot->replot();
    }
}

void DifferencePlot::setTitle(const QString& candidate, const QString& baseline, const QString& metric,
                              const QColor& colour)
{
    // Long variant names are shortened in the middle: the label has to fit the axis's height.
    const QFontMetrics metrics(m_plot->yAxis->labelFont());
    const auto shorter = [&](const QString& name) { return metrics.elidedText(name, Qt::ElideMiddle, 56); };
    m_plot->yAxis->setLabel(tr("%1 vs %2, %3 (%)").arg(shorter(candidate), shorter(baseline), metric));
    QColor edge = colour;
    edge.setAlpha(120);
    QColor band = colour;
    band.setAlpha(50);
    m_high->setPen(QPen(edge));
    m_high->setBrush(band);
    m_low->setPen(QPen(edge));
    m_estimate->setPen(QPen(colour.darker(140), 2));
}

QColor DifferencePlot::estimateColour() const
{
    return m_estimate->pen().color();
}

void DifferencePlot::addLook(const LiveLook& look)
{
    if (!std::isfinite(look.elapsed)) {
        return;
    }
    if (std::isfinite(look.estimatePct)) {
        m_estimate->addData(look.elapsed, look.estimatePct);
    }
    if (std::isfinite(look.lowPct) && std::isfinite(look.highPct)) {
        m_low->addData(look.elapsed, look.lowPct);
        m_high->addData(look.elapsed, look.highPct);
    }
    if (std::isfinite(look.marginPct)) {
        m_marginPct = look.marginPct;
        m_margin->topLeft->setCoords(0, m_marginPct);
        m_margin->bottomRight->setCoords(1, -m_marginPct);
        m_margin->setVisible(true);
    }
    m_detectablePct = look.detectablePct;
    placeAt(m_detectable[0], m_detectablePct);
    placeAt(m_detectable[1], -m_detectablePct);
}

void DifferencePlot::replot()
{
    // Everything in view: the interval, the margin band and the detectable lines; the first looks'
    // very wide intervals are clipped to 4x the later span so the converging part stays readable.
    bool found = false;
    double xMax = 0;
    QCPRange y(0, 0);
    for (auto* g : {m_estimate, m_high, m_low}) {
        bool ok = false;
        const QCPRange keys = g->getKeyRange(ok);
        if (ok) {
            xMax = std::max(xMax, keys.upper);
            found = true;
        }
    }
    const auto extend = [&](double v) {
        if (std::isfinite(v)) {
            y.expand(v);
        }
    };
    extend(m_marginPct);
    extend(-m_marginPct);
    extend(m_detectablePct);
    extend(-m_detectablePct);
    if (!m_low->data()->isEmpty()) {
        // The latest interval, and the estimate's course: the early wide ones may leave the view.
        extend((m_low->data()->constEnd() - 1)->value);
        extend((m_high->data()->constEnd() - 1)->value);
    }
    for (auto it = m_estimate->data()->constBegin(); it != m_estimate->data()->constEnd(); ++it) {
        extend(it->value);
    }
    if (found) {
        m_plot->xAxis->setRange(0, std::max(xMax * 1.02, 0.5));
        const double pad = std::max(0.1, y.size() * 0.25);
        m_plot->yAxis->setRange(y.lower - pad, y.upper + pad);
    }
    if (m_plot->width() > 0 && m_plot->height() > 0) {
        m_plot->replot();
    }
}

int DifferencePlot::pointCount() const
{
    return m_estimate->dataCount();
}

QStringList DifferencePlot::legendNames() const
{
    QStringList names;
    for (int i = 0; i < m_plot->legend->itemCount(); ++i) {
        if (auto* item = qobject_cast<QCPPlottableLegendItem*>(m_plot->legend->item(i))) {
            names << item->plottable()->name();
        }
    }
    return names;
}

int DifferencePlot::intervalCount() const
{
    return m_low->dataCount();
}

}  // namespace nf::ui
