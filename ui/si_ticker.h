#pragma once
// A QCustomPlot ticker whose labels read "10.5 M" rather than "1.05·10^7" (ui/si_format.h), each
// with the digits that tell it from its neighbours: ticks 1.2125 and 1.215 never both read "1.21".

#include <qcustomplot.h>

#include "ui/si_format.h"

namespace nf::ui {

class SiTicker : public QCPAxisTicker {
protected:
    QString getTickLabel(double tick, const QLocale& /*locale*/, QChar /*formatChar*/, int /*precision*/) override
    {
        if (std::fabs(tick) < 1e-12 * std::fabs(m_span)) {
            return QStringLiteral("0");
        }
        return QString::fromStdString(siNumber(tick, digitsToResolve(tick, m_step)));
    }
    QVector<double> createTickVector(double tickStep, const QCPRange& range) override
    {
        m_span = range.size();
        m_step = tickStep;
        return QCPAxisTicker::createTickVector(tickStep, range);
    }

private:
    double m_span = 1;
    double m_step = 0;
};

}  // namespace nf::ui
