#include "ui/difference_marks.h"

#include <qcustomplot.h>

namespace nf::ui {

QCPItemRect* drawMarginAndZero(QCustomPlot* plot, QCPAxisRect* rect, double marginPct)
{
    constexpr double kAnyX = 1e12;  // the band spans every x the axis can show
    QCPAxis* x = rect->axis(QCPAxis::atBottom);
    QCPAxis* y = rect->axis(QCPAxis::atLeft);
    auto* band = new QCPItemRect(plot);
    band->setClipAxisRect(rect);
    band->topLeft->setAxes(x, y);
    band->bottomRight->setAxes(x, y);
    band->topLeft->setCoords(-kAnyX, marginPct);
    band->bottomRight->setCoords(kAnyX, -marginPct);
    band->setPen(Qt::NoPen);
    band->setBrush(QColor(60, 160, 60, 40));
    auto* zero = new QCPItemStraightLine(plot);
    zero->setClipAxisRect(rect);
    zero->point1->setAxes(x, y);
    zero->point2->setAxes(x, y);
    zero->point1->setCoords(0, 0);
    zero->point2->setCoords(1, 0);
    zero->setPen(QPen(QColor(90, 90, 90), 1, Qt::DashLine));
    return band;
}

}  // namespace nf::ui
