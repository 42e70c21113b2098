// The Explore tab's lower plot: each candidate's difference from the baseline at every point of
// the sweep, as `noisefloor compare --sweep` computed it (ui/sweep_view.h), and reading it back.

#include <qcustomplot.h>

#include <algorithm>
#include <cmath>

#include "ui/difference_marks.h"
#include "ui/explore_panel.h"
#include "ui/si_format.h"
#include "ui/variant_palette.h"

namespace nf::ui {

namespace {

QString percent(double value)
{
    return QString::fromStdString(boundText(value));
}

}  // namespace

void ExplorePanel::drawDifferences(const QVector<double>& xs)
{
    const SweepView& v = m_view;
    QCPAxis* x = m_difference->axis(QCPAxis::atBottom);
    QCPAxis* y = m_difference->axis(QCPAxis::atLeft);
    m_series.assign(static_cast<std::size_t>(v.variants.size()), {});
    y->setLabel(tr("vs %1, %").arg(QFontMetrics(y->labelFont()).elidedText(v.baseline, Qt::ElideMiddle, 90)));
    m_differenceTitle->setText(
        tr("difference from %1: %2; \u25c6 estimate, thin bar %3% CI (different when it excludes 0), thick bar "
           "%4% CI (equivalent when inside the green \u00b1%5% margin)")
            .arg(v.baseline, v.designs.isEmpty() ? tr("no candidate") : v.designs.join(QStringLiteral(", ")))
            .arg(100 * (1 - v.alpha), 0, 'g', 3)
            .arg(100 * (1 - 2 * v.alpha), 0, 'g', 3)
            .arg(v.marginPct));

    m_marginPct = drawMarginAndZero(m_plot, m_difference, v.marginPct)->topLeft->coords().y();  // as drawn

    // The candidates, and the extent of everything drawn (the margin always in view).
    std::vector<int> candidates;
    double low = -v.marginPct;
    double high = v.marginPct;
    for (int variant = 0; variant < v.variants.size(); ++variant) {
        bool any = false;
        for (const auto& p : v.points) {
            const auto& d = p.differences.at(static_cast<std::size_t>(variant));
            any = any || std::isfinite(d.estimatePct);
            for (double value : {d.estimatePct, d.ciLowPct, d.ciHighPct, d.tostLowPct, d.tostHighPct}) {
                if (std::isfinite(value)) {
                    low = std::min(low, value);
                    high = std::max(high, value);
                }
            }
        }
        if (any) {
            candidates.push_back(variant);
        }
    }
    const double pad = (high - low) * 0.12;
    // Several candidates side by side at each point, a little apart.
    QVector<double> sorted = xs;
    std::sort(sorted.begin(), sorted.end());
    double gap = INFINITY;  // between the closest two points
    for (qsizetype i = 1; i < sorted.size(); ++i) {
        if (sorted[i] > sorted[i - 1]) {
            gap = std::min(gap, sorted[i] - sorted[i - 1]);
        }
    }
    gap = std::isfinite(gap) ? gap : 1;
    const double apart = gap * std::min(0.06, 0.4 / static_cast<double>(std::max<std::size_t>(candidates.size(), 1)));
    const bool figures = v.points.size() * candidates.size() <= 6;  // room to write the numbers beside
    for (std::size_t k = 0; k < candidates.size(); ++k) {
        const int variant = candidates[k];
        const QColor colour = variantColour(variant);
        const double offset = (static_cast<double>(k) - static_cast<double>(candidates.size() - 1) / 2) * apart;
        DifferenceSeries& series = m_series[static_cast<std::size_t>(variant)];
        series.estimates = m_plot->addGraph(x, y);
        QColor line = colour;
        line.setAlpha(120);
        series.estimates->setPen(QPen(line, 1.5));
        series.estimates->setScatterStyle(QCPScatterStyle(QCPScatterStyle::ssDiamond, colour.darker(130), colour, 10));
        series.estimates->setName(tr("%1 vs %2").arg(v.variants[variant], v.baseline));
        series.estimates->removeFromLegend();
        series.tost = new QCPErrorBars(x, y);
        series.tost->setDataPlottable(series.estimates);
        // The thick bar's colour faded toward white rather than made translucent: a PDF strokes a
        // translucent pen as a filled outline, and the bars' zero-length whiskers then became
        // empty paths, a closepath with no current point that PDF readers report as an error.
        constexpr double kShare = 110.0 / 255;
        const QColor thick = QColor::fromRgbF(static_cast<float>(colour.redF() * kShare + (1 - kShare)),
                                              static_cast<float>(colour.greenF() * kShare + (1 - kShare)),
                                              static_cast<float>(colour.blueF() * kShare + (1 - kShare)));
        series.tost->setPen(QPen(thick, 7, Qt::SolidLine, Qt::FlatCap));
        series.tost->setWhiskerWidth(0);
        series.tost->removeFromLegend();
        series.interval = new QCPErrorBars(x, y);
        series.interval->setDataPlottable(series.estimates);
        series.interval->setPen(QPen(colour.darker(130), 1.5));
        series.interval->setWhiskerWidth(8);
        series.interval->removeFromLegend();
        // Error bars follow the graph's data in key order: add the points sorted by place.
        std::vector<std::size_t> order(v.points.size());
        for (std::size_t i = 0; i < order.size(); ++i) {
            order[i] = i;
        }
        std::stable_sort(order.begin(), order.end(), [&](std::size_t a, std::size_t b) { return xs[a] < xs[b]; });
        series.at = QVector<double>(static_cast<qsizetype>(v.points.size()), NAN);
        for (std::size_t i : order) {
            const auto& d = v.points[i].differences.at(static_cast<std::size_t>(variant));
            if (!std::isfinite(d.estimatePct)) {
                continue;
            }
            const double at = xs[static_cast<qsizetype>(i)] + offset;
            series.at[static_cast<qsizetype>(i)] = at;
            // An unbounded side runs to the edge of the axis.
            auto edge = [&](double value, double otherwise) { return std::isfinite(value) ? value : otherwise; };
            series.estimates->addData(at, d.estimatePct);
            series.interval->addData(d.estimatePct - edge(d.ciLowPct, low - pad),
                                     edge(d.ciHighPct, high + pad) - d.estimatePct);
            series.tost->addData(d.estimatePct - edge(d.tostLowPct, low - pad),
                                 edge(d.tostHighPct, high + pad) - d.estimatePct);
            if (figures) {
                auto* label = new QCPItemText(m_plot);
                label->setClipAxisRect(m_difference);
                label->position->setAxes(x, y);
                label->position->setCoords(at, d.estimatePct);
                // Right of the point, or left of it in the right half, so it stays inside the plot.
                const QCPRange range = m_plot->xAxis->range();
                const bool left = xs[static_cast<qsizetype>(i)] > range.center();
                label->setPositionAlignment((left ? Qt::AlignRight : Qt::AlignLeft) | Qt::AlignVCenter);
                label->setPadding(left ? QMargins(0, 0, 10, 0) : QMargins(10, 0, 0, 0));
                label->setText(tr("%1 %2").arg(percent(d.estimatePct), d.verdict));
                QFont f = font();
                f.setPointSizeF(f.pointSizeF() * 0.8);
                label->setFont(f);
            }
        }
    }
    y->setRange(low - pad, high + pad);
    x->setRange(m_plot->xAxis->range());
}

QString ExplorePanel::differenceTitle() const
{
    return m_difference->axis(QCPAxis::atLeft)->label() + QStringLiteral(": ") + m_differenceTitle->text();
}

std::optional<ExplorePanel::Drawn> ExplorePanel::drawnDifference(int variant, int point) const
{
    if (variant < 0 || point < 0 || static_cast<std::size_t>(variant) >= m_series.size()) {
        return std::nullopt;
    }
    const DifferenceSeries& s = m_series[static_cast<std::size_t>(variant)];
    if (s.estimates == nullptr || point >= s.at.size() || !std::isfinite(s.at[point])) {
        return std::nullopt;
    }
    for (int i = 0; i < s.estimates->dataCount() && i < s.interval->dataCount() && i < s.tost->dataCount(); ++i) {
        if (s.estimates->data()->at(i)->key == s.at[point]) {
            const double e = s.estimates->data()->at(i)->value;
            const auto& thin = s.interval->data()->at(i);
            const auto& thick = s.tost->data()->at(i);
            return Drawn{.estimate = e,
                         .low = e - thin.errorMinus,
                         .high = e + thin.errorPlus,
                         .tostLow = e - thick.errorMinus,
                         .tostHigh = e + thick.errorPlus};
        }
    }
    return std::nullopt;
}

}  // namespace nf::ui
