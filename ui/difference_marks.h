#pragma once
// The marks every plot of differences draws behind its estimates (Compare's right-hand side,
// Explore's differences): the green band of the equivalence margin and a dashed zero line.

class QCPAxisRect;
class QCPItemRect;
class QCustomPlot;

namespace nf::ui {

// Draws, clipped to `rect` on its bottom and left axes, the band -marginPct..+marginPct across
// any x and a dashed line at 0. Returns the band (its coordinates are what is drawn).
QCPItemRect* drawMarginAndZero(QCustomPlot* plot, QCPAxisRect* rect, double marginPct);

}  // namespace nf::ui
