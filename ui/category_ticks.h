#pragma once
// Text tick labels for a category axis - the variants of a run, the points of a sweep - that never
// overlap, however many there are: horizontal while they fit, then horizontal on two rows (every
// other label one line lower: each has two slots of room), else turned upright and shortened in
// the middle ("variant-number-7" -> "vari…r-7"), and when even upright labels are too many for
// the axis, only every k-th is labelled (the first always). The full names stay in the tooltips
// and the verdict lines.

#include <QString>
#include <QStringList>
#include <QVector>

class QCPAxis;
class QFontMetrics;

namespace nf::ui {

struct CategoryTickPlan {
    int step = 1;          // label every step-th category
    bool upright = false;  // labels turned 90 degrees
    bool twoRows = false;  // every other label a line lower
    int elideTo = 0;       // pixels a label is shortened to; 0 = as it is

    bool operator==(const CategoryTickPlan&) const = default;
};

// How to label `labels.size()` categories spread evenly along an axis `axisPixels` long.
CategoryTickPlan planCategoryTicks(const QStringList& labels, const QFontMetrics& metrics, int axisPixels);

// Puts the labels at `positions` on `axis` (a QCPAxisTickerText) as the plan for the axis rect's
// current width says; returns the plan. `positions` and `labels` have the same length.
CategoryTickPlan applyCategoryTicks(QCPAxis* axis, const QVector<double>& positions, const QStringList& labels);

// `text` with each of its lines wrapped at spaces so that no line is wider than `pixels` where a
// break can help (a single word wider than that stays whole).
QString wrapToWidth(const QString& text, const QFontMetrics& metrics, int pixels);

}  // namespace nf::ui
