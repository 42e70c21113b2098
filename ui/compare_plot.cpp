#include "ui/compare_plot.h"

#include <QVBoxLayout>

#include <qcustomplot.h>

#include <algorithm>
#include <cmath>

#include "ui/repetition_plot.h"

namespace nf::ui {

namespace {

// A small deterministic spread so repetitions with equal values stay visible.
double jitter(std::size_t i, std::size_t n)
{
    if (n < 2) {
        return 0;
    }
    return -0.15 + 0.3 * static_cast<double>(i) / static_cast<double>(n - 1);
}

}  // namespace

ComparePlot::ComparePlot(QWidget* parent) : QWidget(parent), m_plot(new QCustomPlot(this))
{
    auto* layout = new QVBoxLayout(this);
    layout->setContentsMargins(0, 0, 0, 0);
    layout->addWidget(m_plot);
    m_plot->setMinimumSize(280, 220);
    QFont titleFont = font();
    titleFont.setBold(true);
    m_plot->plotLayout()->insertRow(0);
    m_title = new QCPTextElement(m_plot, QString(), titleFont);
    m_plot->plotLayout()->addElement(0, 0, m_title);
}

void ComparePlot::replotIfSized()
{
    // A plot in a tab never shown has no size yet; it replots when it is laid out.
    if (m_plot->width() > 0 && m_plot->height() > 0) {
        m_plot->replot();
    }
}

void ComparePlot::reset(const QString& title)
{
    m_plot->clearGraphs();
    m_plot->clearPlottables();
    m_plot->clearItems();
    m_title->setText(title);
    m_message.clear();
    m_verdict.clear();
    m_plot->xAxis->setTicker(QSharedPointer<QCPAxisTicker>(new QCPAxisTicker));
    m_plot->xAxis->setVisible(true);
    m_plot->yAxis->setVisible(true);
    m_plot->yAxis->setLabel(QString());
    m_plot->xAxis->setLabel(QString());
}

void ComparePlot::showMessage(const QString& title, const QString& text)
{
    reset(title);
    m_message = text;
    m_plot->xAxis->setVisible(false);
    m_plot->yAxis->setVisible(false);
    auto* item = new QCPItemText(m_plot);
    item->setPositionAlignment(Qt::AlignCenter);
    item->position->setType(QCPItemPosition::ptAxisRectRatio);
    item->position->setCoords(0.5, 0.5);
    item->setText(text);
    item->setColor(QColor(110, 110, 110));
    item->setClipToAxisRect(false);
    replotIfSized();
}

void ComparePlot::showPanel(const PanelView& panel)
{
    if (!panel.notMeasured.isEmpty() || panel.variants.empty()) {
        showMessage(panel.title, panel.notMeasured.isEmpty() ? tr("no data") : panel.notMeasured);
        return;
    }
    // Long titles (a live test's "... per packet, receiver thread (SIMULATED)") put the metric on a
    // line of its own rather than run past the panel's edges.
    const QString separator =
        panel.title.size() + panel.metric.size() > 56 ? QStringLiteral("\n") : QStringLiteral(" - ");
    reset(panel.title + separator + panel.metric);
    m_plot->yAxis->setLabel(panel.unit);
    auto ticker = QSharedPointer<QCPAxisTickerText>(new QCPAxisTickerText);
    double low = INFINITY;
    double high = -INFINITY;
    for (std::size_t v = 0; v < panel.variants.size(); ++v) {
        const auto& variant = panel.variants[v];
        const double x = static_cast<double>(v) + 1;
        ticker->addTick(x, variant.name);
        const QColor colour = RepetitionPlot::variantColor(static_cast<int>(v));
        QCPGraph* dots = m_plot->addGraph();
        dots->setLineStyle(QCPGraph::lsNone);
        QColor faded = colour;
        faded.setAlpha(150);
        dots->setScatterStyle(QCPScatterStyle(QCPScatterStyle::ssCircle, faded, 6));
        for (std::size_t i = 0; i < variant.repetitions.size(); ++i) {
            const double y = variant.repetitions[i];
            dots->addData(x - 0.25 + jitter(i, variant.repetitions.size()) / 2, y);
            low = std::min(low, y);
            high = std::max(high, y);
        }
        QCPGraph* mean = m_plot->addGraph();
        mean->setLineStyle(QCPGraph::lsNone);
        mean->setScatterStyle(QCPScatterStyle(QCPScatterStyle::ssSquare, colour, colour, 9));
        mean->addData(x + 0.15, variant.mean);
        auto* ci = new QCPErrorBars(m_plot->xAxis, m_plot->yAxis);
        ci->setDataPlottable(mean);
        ci->setPen(QPen(colour, 2));
        ci->setWhiskerWidth(10);
        ci->addData(variant.mean - variant.ciLow, variant.ciHigh - variant.mean);
        if (std::isfinite(variant.ciLow) && std::isfinite(variant.ciHigh)) {
            low = std::min(low, variant.ciLow);
            high = std::max(high, variant.ciHigh);
        }
    }
    m_plot->xAxis->setTicker(ticker);
    m_plot->xAxis->setLabel(tr("circles: one per repetition; square and bars: mean and its 95% CI"));
    m_plot->xAxis->setRange(0.4, static_cast<double>(panel.variants.size()) + 0.6);
    const double span = std::isfinite(high - low) && high > low ? high - low : std::max(std::abs(high), 1.0) * 0.01;
    // Room above the data for the verdict lines.
    const double extra = 0.25 + 0.12 * static_cast<double>(panel.verdicts.size());
    m_plot->yAxis->setRange(low - span * 0.15, high + span * (0.15 + extra * 1.5));
    m_verdict = panel.verdicts.join('\n');
    if (!m_verdict.isEmpty()) {
        auto* text = new QCPItemText(m_plot);
        text->setPositionAlignment(Qt::AlignTop | Qt::AlignLeft);
        text->position->setType(QCPItemPosition::ptAxisRectRatio);
        text->position->setCoords(0.02, 0.02);
        text->setTextAlignment(Qt::AlignLeft);
        text->setText(m_verdict);
        QFont f = font();
        f.setPointSizeF(f.pointSizeF() * 0.85);
        text->setFont(f);
        text->setBrush(QColor(255, 255, 255, 210));
        text->setPadding(QMargins(3, 2, 3, 2));
    }
    replotIfSized();
}

}  // namespace nf::ui
