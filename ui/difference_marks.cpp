#include "ui/difference_marks.h"

#include <qcustomplot.h>

namespace nf::ui {

QCPItemRect* drawMarginAndZero(QCustomPlot* plot, QCPAxisRect* rect, double marginPct)
{
    QCPAxis* x = rect->axis(QCPAxis::atBottom);
    QCPAxis* y = rect->axis(QCPAxis::atLeft);
    auto* band = new QCPItemRect(plot);
    band->setClipAxisRect(rect);
    // Across the axis rect's whole width (x as a share of it, 0 to 1), in plot coordinates up and
    // down: a finite rectangle, so a PDF gets it where the screen does (an x of +-1e12 overflowed
    // the PDF's coordinates and lost the band).
    for (QCPItemPosition* corner : {band->topLeft, band->bottomRight}) {
        corner->setAxes(x, y);
        corner->setAxisRect(rect);
        corner->setTypeX(QCPItemPosition::ptAxisRectRatio);
        corner->setTypeY(QCPItemPosition::ptPlotCoords);
    }
    band->topLeft->setCoords(0, marginPct);
    band->bottomRight->setCoords(1, -marginPct);
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
