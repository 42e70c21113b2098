#include "ui/explore_panel.h"

#include <QCheckBox>
#include <QComboBox>
#include <QHBoxLayout>
#include <QLabel>
#include <QPlainTextEdit>
#include <QPushButton>
#include <QSaveFile>
#include <QVBoxLayout>

#include <qcustomplot.h>

#include <cmath>

#include "ui/file_dialog.h"
#include "ui/plot_export.h"
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
    m_metric->addItem(tr("primary metric"), QString());
    for (const char* name :
         {"tsc_per_op", "ns_per_op", "ops_per_sec", "pps", "cycles_per_op", "ipc", "branch_misses_per_op"}) {
        m_metric->addItem(QString::fromLatin1(name), QString::fromLatin1(name));
    }
    m_even->setToolTip(tr("Place the sweep's values at equal distances (for values such as 0, 0.001, 1, 50, 100)"));
    // Long sweep descriptions and titles must not set the window's minimum width (1024 px).
    m_sweeps->setSizeAdjustPolicy(QComboBox::AdjustToMinimumContentsLengthWithIcon);
    m_sweeps->setMinimumContentsLength(30);
    m_title->setWordWrap(true);
    m_verdicts->setReadOnly(true);
    m_verdicts->setMaximumHeight(130);
    m_verdicts->setPlaceholderText(tr("Each point's verdict appears here."));
    QFont bold = m_title->font();
    bold.setBold(true);
    m_title->setFont(bold);
    m_plot->legend->setVisible(true);
    m_plot->setInteractions(QCP::iRangeDrag | QCP::iRangeZoom);
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

void ExplorePanel::showSweep(const SweepView& sweep)
{
    m_view = sweep;
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
    const CategoryTickPlan plan = applyCategoryTicks(m_plot->xAxis, m_tickAt, m_tickNames);
    if (plan.step != m_tickPlan.step || plan.upright != m_tickPlan.upright || plan.elideTo != m_tickPlan.elideTo) {
        m_tickPlan = plan;
        m_plot->replot(QCustomPlot::rpQueuedReplot);  // the margins follow the new labels
    }
}

void ExplorePanel::showMessage(const QString& text)
{
    m_message = text;
    m_plot->clearGraphs();
    m_plot->clearItems();
    auto* item = new QCPItemText(m_plot);
    item->position->setType(QCPItemPosition::ptAxisRectRatio);
    item->position->setCoords(0.5, 0.5);
    item->setText(text);
    item->setColor(QColor(110, 110, 110));
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
    m_plot->clearGraphs();
    m_plot->clearItems();
    m_plot->legend->setVisible(true);
    m_title->setText(tr("%1: %2 against %3 (sweep %4; bands: 95% CI)%5")
                         .arg(v.workload, v.metric, v.param, v.id,
                              v.missing.isEmpty() ? QString() : tr("; missing: %1").arg(v.missing.join(", "))));
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
    if (even) {
        m_tickPlan = applyCategoryTicks(m_plot->xAxis, m_tickAt, m_tickNames);
    } else {
        m_tickNames.clear();
        m_plot->xAxis->setTicker(QSharedPointer<QCPAxisTicker>(new SiTicker));
        m_plot->xAxis->setTickLabelRotation(0);
    }
    m_plot->yAxis->setTicker(QSharedPointer<QCPAxisTicker>(new SiTicker));
    // Many variants: the legend in columns rather than one tall box over the data.
    m_plot->legend->setFillOrder(QCPLegend::foColumnsFirst);
    m_plot->legend->setWrap(v.variants.size() > 5 ? 5 : 0);
    for (int variant = 0; variant < v.variants.size(); ++variant) {
        const QColor colour = variantColour(variant);
        QVector<double> mean;
        QVector<double> lo;
        QVector<double> hi;
        for (const auto& p : v.points) {
            const auto at = static_cast<std::size_t>(variant);
            mean << (at < p.mean.size() ? p.mean[at] : NAN);
            lo << (at < p.ciLow.size() ? p.ciLow[at] : NAN);
            hi << (at < p.ciHigh.size() ? p.ciHigh[at] : NAN);
        }
        QCPGraph* lower = m_plot->addGraph();
        lower->setData(xs, lo, true);
        lower->setPen(Qt::NoPen);
        lower->removeFromLegend();
        QCPGraph* upper = m_plot->addGraph();
        upper->setData(xs, hi, true);
        upper->setPen(Qt::NoPen);
        QColor band = colour;
        band.setAlpha(50);
        upper->setBrush(band);
        upper->setChannelFillGraph(lower);
        upper->removeFromLegend();
        QCPGraph* line = m_plot->addGraph();
        line->setData(xs, mean, true);
        line->setPen(QPen(colour, 2));
        line->setScatterStyle(QCPScatterStyle(QCPScatterStyle::ssDisc, colour, 7));
        line->setName(v.variants[variant]);
    }
    m_plot->xAxis->setLabel(v.param + (even ? tr(" (values evenly spaced)") : QString()));
    m_plot->yAxis->setLabel(
        QStringLiteral("%1 (%2), %3")
            .arg(v.metric, v.unit, v.higherIsBetter ? tr("higher is better") : tr("lower is better")));
    m_plot->rescaleAxes();
    m_plot->xAxis->scaleRange(1.1);
    m_plot->yAxis->scaleRange(1.15);
    m_plot->replot();
    QStringList lines;
    for (const auto& p : v.points) {
        for (const auto& verdict : p.verdicts) {
            lines << QStringLiteral("%1=%2 (run %3): %4").arg(v.param, p.value).arg(p.runId).arg(verdict);
        }
    }
    m_verdicts->setPlainText(lines.join('\n'));
}

void ExplorePanel::exportInteractively()
{
    const QString file = chooseFileToSave(this, tr("Export the sweep"), QStringLiteral("sweep-%1.png").arg(m_view.id),
                                          tr("PNG image (*.png);;PDF document (*.pdf);;CSV table (*.csv)"));
    if (!file.isEmpty()) {
        emit status(exportTo(file) ? tr("Saved %1").arg(file) : tr("Cannot write %1").arg(file));
    }
}

namespace {

QString csvNumber(double value)
{
    return std::isfinite(value) ? QString::number(value, 'g', 10) : QString();
}

QString csvField(QString text)
{
    if (text.contains(QLatin1Char(',')) || text.contains(QLatin1Char('"')) || text.contains(QLatin1Char('\n'))) {
        text.replace(QStringLiteral("\""), QStringLiteral("\"\""));
        return QStringLiteral("\"%1\"").arg(text);
    }
    return text;
}

}  // namespace

bool ExplorePanel::exportTo(const QString& file) const
{
    if (file.endsWith(QStringLiteral(".csv"), Qt::CaseInsensitive)) {
        QSaveFile out(file);
        if (!out.open(QIODevice::WriteOnly | QIODevice::Text)) {
            return false;
        }
        QStringList rows{QStringLiteral("sweep,param,value,run,variant,metric,mean,ci_low,ci_high,verdicts")};
        for (const auto& point : m_view.points) {
            for (int v = 0; v < m_view.variants.size(); ++v) {
                const auto i = static_cast<std::size_t>(v);
                rows << QStringList{csvField(m_view.id),
                                    csvField(m_view.param),
                                    csvField(point.value),
                                    QString::number(point.runId),
                                    csvField(m_view.variants[v]),
                                    csvField(m_view.metric),
                                    csvNumber(i < point.mean.size() ? point.mean[i] : NAN),
                                    csvNumber(i < point.ciLow.size() ? point.ciLow[i] : NAN),
                                    csvNumber(i < point.ciHigh.size() ? point.ciHigh[i] : NAN),
                                    csvField(point.verdicts.join(QStringLiteral("; ")))}
                            .join(QLatin1Char(','));
            }
        }
        out.write((rows.join(QLatin1Char('\n')) + QLatin1Char('\n')).toUtf8());
        return out.commit();
    }
    QStringList header{tr("noisefloor: %1").arg(m_title->text())};
    header << tr("sweep %1; workload %2; metric %3").arg(m_view.id, m_view.workload, m_view.metric);
    for (const auto& point : m_view.points) {
        for (const auto& verdict : point.verdicts) {
            header << tr("%1=%2 (run %3): %4").arg(m_view.param, point.value).arg(point.runId).arg(verdict);
        }
    }
    for (const auto& missing : m_view.missing) {
        header << tr("warning: no complete run at %1").arg(missing);
    }
    m_plot->replot();
    return exportPlots(file, header, {m_plot}, 1);
}

}  // namespace nf::ui
