#pragma once
// Plots written to a file a reviewer can put in a mail or a paper: PNG, or PDF with vectors and
// real text (QCustomPlot drawing into a QPdfWriter through QCPPainter, never a bitmap), under a
// header that says what they show (the evidence report, warnings included).

#include <QString>
#include <QStringList>

#include <vector>

class QCustomPlot;

namespace nf::ui {

// Writes `plots`, `columns` to a row at their on-screen size, under `header` (the first line as
// the title; the others in a fixed-width font, as the report's table needs) to `file`: PDF when it ends in .pdf, else
// PNG. False when it cannot be written.
bool exportPlots(const QString& file, const QStringList& header, const std::vector<QCustomPlot*>& plots, int columns);

}  // namespace nf::ui
