#pragma once
// A QCustomPlot ticker whose labels read "10.5 M" rather than "1.05·10^7" (ui/si_format.h).

#include <qcustomplot.h>

#include "ui/si_format.h"

namespace nf::ui {

class SiTicker : public QCPAxisTicker {
protected:
    QString getTickLabel(double tick, const QLocale& /*locale*/, QChar /*formatChar*/, int /*precision*/) override
    {
        return QString::fromStdString(siNumber(std::fabs(tick) < 1e-12 * std::fabs(m_span) ? 0 : tick));
    }
    QVector<double> createTickVector(double tickStep, const QCPRange& range) override
    {
        m_span = range.size();
        return QCPAxisTicker::createTickVector(tickStep, range);
    }

private:
    double m_span = 1;
};

}  // namespace nf::ui
