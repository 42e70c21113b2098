#include "ui/explore_panel.h"

#include <QCheckBox>
#include <QComboBox>
#include <QHBoxLayout>
#include <QLabel>
#include <QPlainTextEdit>
#include <QPushButton>
#include <QTextDocument>
#include <QVBoxLayout>

#include <qcustomplot.h>

#include <algorithm>
#include <cmath>

#include "ui/si_ticker.h"
#include "ui/variant_palette.h"

namespace nf::ui {

ExplorePanel::ExplorePanel(QWidget* parent)
    : QWidget(parent),
      m_sweeps(new QComboBox(this)),
      m_metric(new QComboBox(this)),
      m_even(new QCheckBox(tr("points evenly spaced"), this)),
      m_plot(new QCustomPlot(this)),
      m_title(new QLabel(this)),
      m_verdicts(new QPlainTextEdit(this))
{
    m_metric->setObjectName(QStringLiteral("exploreMetric"));
    m_metric->addItem(tr("primary metric"), QString());
    m_metric->setToolTip(tr("The metric compared at every point: every metric the sweep's runs stored"));
    m_even->setToolTip(tr("Place the sweep's values at equal distances (for values such as 0, 0.001, 1, 50, 100)"));
    // Long sweep descriptions and titles must not set the window's minimum width (1024 px).
    m_sweeps->setSizeAdjustPolicy(QComboBox::AdjustToMinimumContentsLengthWithIcon);
    m_sweeps->setMinimumContentsLength(30);
    m_title->setWordWrap(true);
    m_verdicts->setReadOnly(true);
    m_verdicts->setPlaceholderText(tr("Each point's verdict appears here."));
    QFont bold = m_title->font();
    bold.setBold(true);
    m_title->setFont(bold);
    m_plot->legend->setVisible(true);
    m_plot->setInteractions(QCP::iRangeDrag | QCP::iRangeZoom);
    // Values above, the differences below on the same points: one x axis, aligned.
    QCPLayoutGrid* grid = m_plot->plotLayout();
    m_values = m_plot->axisRect();
    QFont small = font();
    small.setPointSizeF(small.pointSizeF() * 0.9);
    m_differenceTitle = new QCPTextElement(m_plot, QString(), small);
    grid->addElement(1, 0, m_differenceTitle);
    m_difference = new QCPAxisRect(m_plot);
    grid->addElement(2, 0, m_difference);
    // The legend in a row of its own above the values, in one line: inside the axis rect it
    // covered the points at its corner.
    m_values->insetLayout()->take(m_plot->legend);
    grid->insertRow(0);
    grid->addElement(0, 0, m_plot->legend);
    m_plot->legend->setFillOrder(QCPLegend::foColumnsFirst);
    m_plot->legend->setBorderPen(Qt::NoPen);
    m_plot->legend->setMargins(QMargins(0, 0, 0, 0));
    grid->setRowStretchFactors({0.001, 1, 0.01, 1});
    grid->setRowSpacing(0);
    auto* aligned = new QCPMarginGroup(m_plot);
    m_values->setMarginGroup(QCP::msLeft | QCP::msRight, aligned);
    m_difference->setMarginGroup(QCP::msLeft | QCP::msRight, aligned);
    QCPAxis* valuesX = m_values->axis(QCPAxis::atBottom);
    QCPAxis* differenceX = m_difference->axis(QCPAxis::atBottom);
    connect(valuesX, qOverload<const QCPRange&>(&QCPAxis::rangeChanged), differenceX,
            qOverload<const QCPRange&>(&QCPAxis::setRange));
    connect(differenceX, qOverload<const QCPRange&>(&QCPAxis::rangeChanged), valuesX,
            qOverload<const QCPRange&>(&QCPAxis::setRange));
    valuesX->setTickLabels(false);  // the points are named once, under the differences
    connect(m_plot, &QCustomPlot::afterLayout, this, &ExplorePanel::relabel);

    auto* top = new QHBoxLayout;
    top->addWidget(new QLabel(tr("Sweep"), this));
    top->addWidget(m_sweeps, 1);
    top->addWidget(new QLabel(tr("Metric"), this));
    top->addWidget(m_metric);
    top->addWidget(m_even);
    auto* exportButton = new QPushButton(tr("Export..."), this);
    exportButton->setObjectName(QStringLiteral("exploreExport"));
    exportButton->setToolTip(tr("The plot as PNG or PDF, or the table as CSV"));
    connect(exportButton, &QPushButton::clicked, this, &ExplorePanel::exportInteractively);
    top->addWidget(exportButton);
    auto* layout = new QVBoxLayout(this);
    layout->addLayout(top);
    layout->addWidget(m_title);
    layout->addWidget(m_plot, 1);
    layout->addWidget(m_verdicts);
    connect(m_sweeps, &QComboBox::currentIndexChanged, this, &ExplorePanel::request);
    connect(m_metric, &QComboBox::currentIndexChanged, this, &ExplorePanel::request);
    connect(m_even, &QCheckBox::toggled, this, &ExplorePanel::draw);
    showMessage(
        tr("No sweep yet: in the Experiment tab, fill in Sweep (e.g. zero_size_pct=0,1,10,50) and press "
           "Run, or run `noisefloor run ... --sweep PARAM=v1,v2,...`."));
}

void ExplorePanel::setSweeps(const std::vector<std::pair<QString, QString>>& sweeps)
{
    const QString keep = currentSweep();
    {
        const QSignalBlocker block(m_sweeps);
        m_sweeps->clear();
        for (const auto& [id, text] : sweeps) {
            m_sweeps->addItem(text, id);
        }
    }
    if (!selectSweep(keep) && m_sweeps->count() > 0) {
        request();
    }
}

bool ExplorePanel::selectSweep(const QString& id)
{
    const int i = id.isEmpty() ? -1 : m_sweeps->findData(id);
    if (i < 0) {
        return false;
    }
    if (i == m_sweeps->currentIndex()) {
        request();
    } else {
        m_sweeps->setCurrentIndex(i);
    }
    return true;
}

QString ExplorePanel::currentSweep() const
{
    return m_sweeps->currentData().toString();
}

QString ExplorePanel::currentMetric() const
{
    return m_metric->currentData().toString();
}

void ExplorePanel::request()
{
    if (!currentSweep().isEmpty()) {
        emit sweepRequested(currentSweep(), currentMetric());
    }
}

void ExplorePanel::setMetrics(const QStringList& stored)
{
    const QString keep = currentMetric();
    const QSignalBlocker block(m_metric);
    m_metric->clear();
    m_metric->addItem(tr("primary metric"), QString());
    for (const auto& name : stored) {
        m_metric->addItem(name, name);
    }
    // A metric picked that this sweep did not store stays shown, so its error can be read.
    if (!keep.isEmpty() && m_metric->findData(keep) < 0) {
        m_metric->addItem(tr("%1 (not stored)").arg(keep), keep);
    }
    m_metric->setCurrentIndex(std::max(0, m_metric->findData(keep)));
}

void ExplorePanel::showSweep(const SweepView& sweep)
{
    m_view = sweep;
    if (!sweep.metrics.isEmpty()) {
        setMetrics(sweep.metrics);
    }
    bool numeric = !sweep.points.empty();
    double low = INFINITY;
    double high = 0;
    for (const auto& p : sweep.points) {
        bool ok = false;
        const double x = p.value.toDouble(&ok);
        numeric = numeric && ok;
        if (ok && x > 0) {
            low = std::min(low, x);
            high = std::max(high, x);
        }
    }
    {
        const QSignalBlocker block(m_even);
        m_even->setChecked(!numeric || (std::isfinite(low) && high / low > 50));
        m_even->setEnabled(numeric);
    }
    draw();
}

void ExplorePanel::relabel()
{
    if (m_tickNames.isEmpty() || !m_message.isEmpty()) {
        return;
    }
    const CategoryTickPlan plan = applyCategoryTicks(m_difference->axis(QCPAxis::atBottom), m_tickAt, m_tickNames);
    applyCategoryTicks(m_plot->xAxis, m_tickAt, m_tickNames);  // the same ticks, unlabelled
    if (plan != m_tickPlan) {
        m_tickPlan = plan;
        m_plot->replot(QCustomPlot::rpQueuedReplot);  // the margins follow the new labels
    }
}

void ExplorePanel::showMessage(const QString& text)
{
    m_message = text;
    m_plot->clearPlottables();
    m_plot->clearItems();
    m_series.clear();
    m_marginPct = 0;
    m_differenceTitle->setText(QString());
    for (QCPAxisRect* rect : {m_values, m_difference}) {
        rect->axis(QCPAxis::atBottom)->setVisible(false);
        rect->axis(QCPAxis::atLeft)->setVisible(false);
    }
    auto* item = new QCPItemText(m_plot);
    item->position->setType(QCPItemPosition::ptViewportRatio);
    item->position->setCoords(0.5, 0.5);
    item->setText(text);
    item->setColor(QColor(110, 110, 110));
    item->setClipToAxisRect(false);
    m_plot->legend->setVisible(false);
    m_plot->replot();
}

void ExplorePanel::draw()
{
    const SweepView& v = m_view;
    if (!v.error.isEmpty() || v.points.empty()) {
        m_title->setText(v.id);
        showMessage(v.error.isEmpty() ? tr("no points") : v.error);
        return;
    }
    m_message.clear();
    m_plot->clearPlottables();
    m_plot->clearItems();
    for (QCPAxisRect* rect : {m_values, m_difference}) {
        rect->axis(QCPAxis::atBottom)->setVisible(true);
        rect->axis(QCPAxis::atLeft)->setVisible(true);
    }
    m_plot->legend->setVisible(true);
    m_title->setText(tr("%1: %2 against %3 (sweep %4)%5%6")
                         .arg(v.workload, v.metric, v.param, v.id,
                              v.missing.isEmpty() ? QString() : tr("; missing: %1").arg(v.missing.join(", ")),
                              v.simulated.isEmpty() ? QString() : QStringLiteral("\n") + v.simulated));
    const bool even = m_even->isChecked();
    QVector<double> xs;
    m_tickNames.clear();
    for (std::size_t i = 0; i < v.points.size(); ++i) {
        const double x = even ? static_cast<double>(i) : v.points[i].value.toDouble();
        xs << x;
        m_tickNames << v.points[i].value;
    }
    m_tickAt = xs;
    // Values at their own places get the axis's own round ticks; evenly spaced ones are labelled
    // with their values, as many as fit (ui/category_ticks.h).
    QCPAxis* bottom = m_difference->axis(QCPAxis::atBottom);
    if (even) {
        m_tickPlan = applyCategoryTicks(bottom, m_tickAt, m_tickNames);
        applyCategoryTicks(m_plot->xAxis, m_tickAt, m_tickNames);
    } else {
        m_tickNames.clear();
        for (QCPAxis* axis : {m_plot->xAxis, bottom}) {
            axis->setTicker(QSharedPointer<QCPAxisTicker>(new SiTicker));
            axis->setTickLabelRotation(0);
        }
    }
    drawValues(xs);
    drawDifferences(xs);
    bottom->setLabel(v.param + (even ? tr(" (values evenly spaced)") : QString()));
    m_plot->replot();
    QStringList lines;
    for (const auto& p : v.points) {
        for (const auto& verdict : p.verdicts) {
            lines << QStringLiteral("%1=%2 (run %3): %4").arg(v.param, p.value).arg(p.runId).arg(verdict);
        }
    }
    m_verdicts->setPlainText(lines.join('\n'));
    // As high as its lines (up to six; it scrolls beyond), the rest of the height to the plots.
    const auto shown = static_cast<int>(std::clamp<qsizetype>(lines.size(), 2, 6));
    m_verdicts->setFixedHeight(m_verdicts->fontMetrics().lineSpacing() * shown +
                               2 * static_cast<int>(m_verdicts->document()->documentMargin()) +
                               2 * m_verdicts->frameWidth() + 4);
}

void ExplorePanel::drawValues(const QVector<double>& xs)
{
    const SweepView& v = m_view;
    m_plot->yAxis->setTicker(QSharedPointer<QCPAxisTicker>(new SiTicker));
    // Many variants: the legend's line wraps after eight.
    m_plot->legend->setWrap(v.variants.size() > 8 ? 8 : 0);
    // The points' span and a margin; one point (a sweep stopped after its first) gets half its
    // value (at least 1) either side, and values none of which is negative never get a negative
    // axis (a stopped sweep of zero_size_pct=0,50,100 read -400 m..400 m).
    double low = INFINITY;
    double high = -INFINITY;
    for (double x : xs) {
        low = std::min(low, x);
        high = std::max(high, x);
    }
    QCPRange range(0, 1);
    if (std::isfinite(low)) {
        const double span = high > low ? high - low : std::max(std::abs(low) * 0.5, 1.0);
        range.lower = low - span * 0.05 - (high > low ? 0 : span);
        range.upper = high + span * 0.05 + (high > low ? 0 : span);
        if (low >= 0 && range.lower < 0) {
            range.lower = 0;
        }
    }
    // The variants a little apart at each point (1% of the axis between neighbours), so that their
    // interval bars do not hide each other; the axis reaches the outermost.
    const double step = v.variants.size() > 1 ? 0.01 * range.size() : 0;
    const double outermost = step * (static_cast<double>(v.variants.size()) - 1) / 2;
    if (std::isfinite(low)) {
        range.lower = std::min(range.lower, low - outermost - 2 * step);  // off the axis line
        range.upper = std::max(range.upper, high + outermost + 2 * step);
    }
    for (int variant = 0; variant < v.variants.size(); ++variant) {
        const QColor colour = variantColour(variant);
        const double dodge = variant * step - outermost;
        QVector<double> at;
        QVector<double> mean;
        QVector<double> lo;
        QVector<double> hi;
        for (std::size_t i = 0; i < v.points.size() && i < static_cast<std::size_t>(xs.size()); ++i) {
            const auto& p = v.points[i];
            const auto k = static_cast<std::size_t>(variant);
            at << xs[static_cast<qsizetype>(i)] + dodge;
            mean << (k < p.mean.size() ? p.mean[k] : NAN);
            lo << (k < p.ciLow.size() ? p.ciLow[k] : NAN);
            hi << (k < p.ciHigh.size() ? p.ciHigh[k] : NAN);
        }
        QCPGraph* lower = m_plot->addGraph();
        lower->setData(at, lo);
        lower->setPen(Qt::NoPen);
        lower->removeFromLegend();
        QCPGraph* upper = m_plot->addGraph();
        upper->setData(at, hi);
        upper->setPen(Qt::NoPen);
        QColor band = colour;
        band.setAlpha(50);
        upper->setBrush(band);
        upper->setChannelFillGraph(lower);
        upper->removeFromLegend();
        QCPGraph* line = m_plot->addGraph();
        line->setData(at, mean);
        line->setPen(QPen(colour, 2));
        line->setScatterStyle(QCPScatterStyle(QCPScatterStyle::ssDisc, colour, 7));
        line->setName(v.variants[variant]);
        // The interval at each point as a bar too: a band needs two points to have a width (a
        // one-point sweep, or a point between two not run, had none to draw).
        auto* bars = new QCPErrorBars(m_plot->xAxis, m_plot->yAxis);
        bars->removeFromLegend();
        bars->setDataPlottable(line);
        QVector<double> below;
        QVector<double> above;
        for (qsizetype i = 0; i < mean.size(); ++i) {
            below << mean[i] - lo[i];
            above << hi[i] - mean[i];
        }
        bars->setData(below, above);
        bars->setPen(QPen(colour, 1.5));
        bars->setWhiskerWidth(8);
    }
    m_plot->yAxis->setLabel(
        QStringLiteral("%1 (%2)\n%3")
            .arg(v.metric, v.unit, v.higherIsBetter ? tr("higher is better") : tr("lower is better")));
    m_plot->yAxis->setTickLabels(true);
    m_plot->xAxis->setLabel(tr("each variant's mean; bar and band: its 95% CI over repetitions"));
    m_plot->rescaleAxes();
    m_plot->yAxis->scaleRange(1.15);
    m_plot->xAxis->setRange(range);
}

}  // namespace nf::ui
