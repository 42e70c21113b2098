#include "ui/profile_bars.h"

#include <QVBoxLayout>

#include <qcustomplot.h>

#include <algorithm>
#include <cmath>

namespace nf::ui {

namespace {

constexpr std::size_t kMaxBars = 12;
constexpr int kLabelPixels = 220;

const QColor kMore(214, 39, 40);
const QColor kLess(31, 119, 180);
const QColor kUnchanged(150, 150, 150);

}  // namespace

ProfileBars::ProfileBars(QWidget* parent) : QWidget(parent), m_plot(new QCustomPlot(this))
{
    auto* layout = new QVBoxLayout(this);
    layout->setContentsMargins(0, 0, 0, 0);
    layout->addWidget(m_plot);
    setMinimumHeight(160);
}

void ProfileBars::setComparison(const engine::ProfileComparison& comparison, double alpha, bool severalCpus)
{
    m_plot->clearPlottables();
    m_plot->clearItems();
    m_shown.clear();
    m_symbols.clear();
    m_cpus.clear();
    std::vector<const engine::ProfileRow*> rows;
    for (const auto& row : comparison.rows) {
        if (!std::isnan(row.q) && row.q < alpha) {
            rows.push_back(&row);
        }
    }
    m_changed = !rows.empty();
    if (!m_changed) {
        for (const auto& row : comparison.rows) {
            rows.push_back(&row);
        }
        std::stable_sort(rows.begin(), rows.end(),
                         [](const auto* a, const auto* b) { return std::fabs(a->deltaPp) > std::fabs(b->deltaPp); });
    }
    const std::size_t notShown = rows.size() > kMaxBars ? rows.size() - kMaxBars : 0;
    rows.resize(std::min(rows.size(), kMaxBars));
    // A row a label's height apart, so that the symbols' names never overlap.
    const int rowPixels = QFontMetrics(m_plot->yAxis->tickLabelFont()).height() + 6;
    setMinimumHeight(static_cast<int>(rows.size()) * rowPixels + 70);

    auto ticker = QSharedPointer<QCPAxisTickerText>(new QCPAxisTickerText);
    const QFontMetrics metrics(m_plot->yAxis->tickLabelFont());
    QCPBars* bars[3] = {};  // more, less, unchanged
    QCPErrorBars* whiskers[3] = {};
    const QColor colours[3] = {kMore, kLess, kUnchanged};
    for (int i = 0; i < 3; ++i) {
        bars[i] = new QCPBars(m_plot->yAxis, m_plot->xAxis);
        bars[i]->setWidth(0.6);
        bars[i]->setPen(Qt::NoPen);
        QColor fill = colours[i];
        fill.setAlpha(170);
        bars[i]->setBrush(fill);
        whiskers[i] = new QCPErrorBars(m_plot->yAxis, m_plot->xAxis);
        whiskers[i]->setDataPlottable(bars[i]);
        whiskers[i]->setPen(QPen(colours[i].darker(140), 1.5));
        whiskers[i]->setWhiskerWidth(6);
        whiskers[i]->setSymbolGap(0);
    }
    double low = 0;
    double high = 0;
    for (const auto* row : rows) {
        QString label = QString::fromStdString(row->symbol);
        if (severalCpus && row->cpu >= 0) {
            label += QStringLiteral(" (cpu%1)").arg(row->cpu);
        } else if (severalCpus) {  // across runs: CPUs match by role
            label += QStringLiteral(" (%1)").arg(QString::fromStdString(row->role));
        }
        m_shown << label;  // top to bottom
        m_symbols << QString::fromStdString(row->symbol);
        m_cpus << row->cpu;
    }
    // Bottom to top, in ascending key order: QCPBars keeps its data sorted by key and QCPErrorBars
    // pairs its data with the bars' by index.
    for (std::size_t i = rows.size(); i-- > 0;) {
        const auto& row = *rows[i];
        const double key = static_cast<double>(rows.size() - i);  // the first on top
        const int kind = !m_changed ? 2 : row.deltaPp >= 0 ? 0 : 1;
        bars[kind]->addData(key, row.deltaPp);
        const double lowPp = std::isnan(row.lowPp) ? row.deltaPp : row.lowPp;
        const double highPp = std::isnan(row.highPp) ? row.deltaPp : row.highPp;
        whiskers[kind]->addData(row.deltaPp - lowPp, highPp - row.deltaPp);
        low = std::min(low, lowPp);
        high = std::max(high, highPp);
        ticker->addTick(key, metrics.elidedText(m_shown[static_cast<qsizetype>(i)], Qt::ElideMiddle, kLabelPixels));
    }
    m_plot->yAxis->setTicker(ticker);
    m_plot->yAxis->setRange(0.3, static_cast<double>(rows.size()) + 0.7);
    m_plot->yAxis->grid()->setVisible(false);
    const double pad = std::max(0.1, (high - low) * 0.08);
    m_plot->xAxis->setRange(low - pad, high + pad);
    const QString more = m_changed && notShown > 0 ? tr("; %1 more in the table").arg(notShown) : QString();
    m_plot->xAxis->setLabel(
        m_changed
            ? tr("%1 minus %2, share of the CPU's samples (pp), 95% CI; q < %3%4")
                  .arg(QString::fromStdString(comparison.candidate), QString::fromStdString(comparison.baseline))
                  .arg(alpha)
                  .arg(more)
            : tr("no symbol's share changed at q < %1; the largest differences, %2 minus %3 (pp)")
                  .arg(alpha)
                  .arg(QString::fromStdString(comparison.candidate), QString::fromStdString(comparison.baseline)));
    auto* zero = new QCPItemStraightLine(m_plot);
    zero->point1->setCoords(0, 0);
    zero->point2->setCoords(0, 1);
    zero->setPen(QPen(Qt::black, 1));
    m_plot->replot();
}

}  // namespace nf::ui
