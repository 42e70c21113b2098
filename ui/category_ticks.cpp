#include "ui/category_ticks.h"

#include <QFontMetrics>
#include <QSet>

#include <qcustomplot.h>

#include <algorithm>

namespace nf::ui {

namespace {

constexpr int kGap = 8;                  // pixels between two labels
constexpr int kUprightPixels = 60;       // an upright label is shortened to this
constexpr int kUnsizedAxisPixels = 300;  // an axis not laid out yet

// Each label shortened to `pixels`: in the middle, unless that makes two read alike ("run…ect" for
// run3:direct and run3:indirect); then keeping their ends, else their starts; in the middle when
// no way tells them apart.
QStringList elided(const QStringList& labels, const QFontMetrics& metrics, int pixels)
{
    const auto shorten = [&](Qt::TextElideMode mode) {
        QStringList out;
        for (const QString& label : labels) {
            out << metrics.elidedText(label, mode, pixels);
        }
        return out;
    };
    for (const Qt::TextElideMode mode : {Qt::ElideMiddle, Qt::ElideLeft, Qt::ElideRight}) {
        QStringList out = shorten(mode);
        if (QSet<QString>(out.begin(), out.end()).size() == out.size()) {
            return out;
        }
    }
    return shorten(Qt::ElideMiddle);
}

}  // namespace

CategoryTickPlan planCategoryTicks(const QStringList& labels, const QFontMetrics& metrics, int axisPixels)
{
    CategoryTickPlan plan;
    const auto n = static_cast<int>(labels.size());
    if (n == 0) {
        return plan;
    }
    const int slot = std::max(axisPixels, 1) / n;
    int widest = 0;
    for (const auto& label : labels) {
        widest = std::max(widest, metrics.horizontalAdvance(label));
    }
    if (widest + kGap <= slot) {
        return plan;
    }
    if (n > 1 && widest + kGap <= 2 * slot) {
        plan.twoRows = true;
        return plan;
    }
    plan.upright = true;
    // A label that fits upright stays whole.
    plan.elideTo = widest < kUprightPixels ? 0 : kUprightPixels;
    const int need = metrics.height() + kGap / 2;
    plan.step = std::max(1, (need + slot - 1) / std::max(slot, 1));
    return plan;
}

CategoryTickPlan applyCategoryTicks(QCPAxis* axis, const QVector<double>& positions, const QStringList& labels)
{
    const int pixels = axis->axisRect()->width() > 1 ? axis->axisRect()->width() : kUnsizedAxisPixels;
    const QFontMetrics metrics(axis->tickLabelFont());
    const CategoryTickPlan plan = planCategoryTicks(labels, metrics, pixels);
    auto ticker = QSharedPointer<QCPAxisTickerText>(new QCPAxisTickerText);
    const QStringList shown = plan.elideTo > 0 ? elided(labels, metrics, plan.elideTo) : labels;
    for (qsizetype i = 0; i < positions.size() && i < labels.size(); i += plan.step) {
        QString label = shown[i];
        if (plan.twoRows && i % 2 == 1) {
            label.prepend(QLatin1Char('\n'));
        }
        ticker->addTick(positions[i], label);
    }
    axis->setTicker(ticker);
    axis->setTickLabelRotation(plan.upright ? 90 : 0);
    return plan;
}

QString wrapToWidth(const QString& text, const QFontMetrics& metrics, int pixels)
{
    QStringList out;
    for (const QString& line : text.split(QLatin1Char('\n'))) {
        QString current;
        for (const QString& word : line.split(QLatin1Char(' '), Qt::SkipEmptyParts)) {
            const QString longer = current.isEmpty() ? word : current + QLatin1Char(' ') + word;
            if (!current.isEmpty() && metrics.horizontalAdvance(longer) > pixels) {
                out << current;
                current = word;
            } else {
                current = longer;
            }
        }
        out << current;
    }
    return out.join(QLatin1Char('\n'));
}

}  // namespace nf::ui
