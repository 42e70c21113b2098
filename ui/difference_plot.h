#pragma once
// The Live tab's answer as it forms: the engine's running estimate of the primary metric's
// difference (candidate against baseline, %) against time, with its confidence sequence as a
// shaded band, the +-margin as a green band, the effect the run can still detect by its end as
// dotted lines, and 0. Fed by "look" events (ui/event_client.h).

#include <QColor>
#include <QWidget>

#include <array>

#include "ui/event_client.h"

class QCustomPlot;
class QCPGraph;
class QCPItemRect;
class QCPItemStraightLine;

namespace nf::ui {

class DifferencePlot : public QWidget {
    Q_OBJECT

public:
    explicit DifferencePlot(QWidget* parent = nullptr);

    void clear();
    // Names the axis: candidate and baseline variant names, the metric; the estimate and its band
    // are drawn in `colour`, the candidate's own (ui/variant_palette.h).
    void setTitle(const QString& candidate, const QString& baseline, const QString& metric, const QColor& colour);
    QColor estimateColour() const;
    void addLook(const LiveLook& look);
    // Redraws (the caller rate-limits).
    void replot();

    QCustomPlot* customPlot() const { return m_plot; }
    int pointCount() const;     // looks with an estimate
    int intervalCount() const;  // looks with an interval
    // What the legend lists, in order.
    QStringList legendNames() const;

private:
    QCustomPlot* m_plot = nullptr;
    QCPGraph* m_estimate = nullptr;
    QCPGraph* m_high = nullptr;
    QCPGraph* m_low = nullptr;
    QCPItemRect* m_margin = nullptr;
    QCPItemStraightLine* m_zero = nullptr;
    QCPItemStraightLine* m_detectable[2] = {nullptr, nullptr};
    std::array<QCPGraph*, 2> m_legendOnly = {nullptr, nullptr};  // legend entries of the band and the lines
    double m_marginPct = NAN;
    double m_detectablePct = NAN;
};

}  // namespace nf::ui
