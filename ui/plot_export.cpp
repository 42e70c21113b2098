#include "ui/plot_export.h"

#include <QFontDatabase>
#include <QFontMetricsF>
#include <QImage>
#include <QPdfWriter>
#include <QPicture>

#include <qcustomplot.h>

#include <algorithm>

namespace nf::ui {

namespace {

constexpr double kPad = 12;

struct Sheet {
    QSizeF cell;
    double headerHeight = 0;
    QSizeF size;
};

QFont titleFont()
{
    QFont font;
    font.setBold(true);
    font.setPointSizeF(11);
    return font;
}

// The report's lines are a table: a fixed-width font keeps its columns.
QFont lineFont()
{
    QFont font = QFontDatabase::systemFont(QFontDatabase::FixedFont);
    font.setPointSizeF(8);
    return font;
}

// An empty line keeps its height; a warning ("! ...", "warning: ...") is drawn in amber.
QString drawn(const QString& line)
{
    return line.isEmpty() ? QStringLiteral(" ") : line;
}

bool isWarning(const QString& line)
{
    return line.startsWith(QStringLiteral("warning")) || line.startsWith(QStringLiteral("! "));
}

// The header's height at `width` and the size of the whole sheet.
Sheet measure(const QStringList& header, const std::vector<QCustomPlot*>& plots, int columns, QPaintDevice* device)
{
    Sheet sheet;
    for (const auto* p : plots) {
        // Laid out again at this size (QCustomPlot::toPainter), so a small window still exports legibly.
        sheet.cell = sheet.cell.expandedTo(QSizeF(std::max(p->width(), 560), std::max(p->height(), 440)));
    }
    const int rows = (static_cast<int>(plots.size()) + columns - 1) / columns;
    const double width = sheet.cell.width() * columns;
    const double textWidth = width - 2 * kPad;
    double y = kPad;
    for (int i = 0; i < header.size(); ++i) {
        const QFontMetricsF metrics(i == 0 ? titleFont() : lineFont(), device);
        y += metrics.boundingRect(QRectF(0, 0, textWidth, 1e6), Qt::TextWordWrap, drawn(header[i])).height() + 2;
    }
    sheet.headerHeight = y + kPad / 2;
    sheet.size = QSizeF(width, sheet.headerHeight + sheet.cell.height() * rows);
    return sheet;
}

void draw(QCPPainter& painter, const Sheet& sheet, const QStringList& header, const std::vector<QCustomPlot*>& plots,
          int columns)
{
    painter.fillRect(QRectF(QPointF(0, 0), sheet.size), Qt::white);
    painter.setPen(Qt::black);
    const double textWidth = sheet.size.width() - 2 * kPad;
    double y = kPad;
    for (int i = 0; i < header.size(); ++i) {
        painter.setFont(i == 0 ? titleFont() : lineFont());
        painter.setPen(isWarning(header[i]) ? QColor(138, 90, 0) : QColor(Qt::black));
        QRectF used;
        painter.drawText(QRectF(kPad, y, textWidth, 1e6), Qt::TextWordWrap, drawn(header[i]), &used);
        y += used.height() + 2;
    }
    for (std::size_t i = 0; i < plots.size(); ++i) {
        const int column = static_cast<int>(i) % columns;
        const int row = static_cast<int>(i) / columns;
        painter.save();
        painter.translate(column * sheet.cell.width(), sheet.headerHeight + row * sheet.cell.height());
        const int width = static_cast<int>(sheet.cell.width());
        const int height = static_cast<int>(sheet.cell.height());
        {
            // A first layout at the sheet's size, thrown away: tick labels and captions refit to it
            // (ComparePlot::relabel), and the second layout gives them their margins.
            QPicture settle;
            QCPPainter first(&settle);
            plots[i]->toPainter(&first, width, height);
        }
        plots[i]->toPainter(&painter, width, height);
        painter.restore();
    }
}

}  // namespace

bool exportPlots(const QString& file, const QStringList& header, const std::vector<QCustomPlot*>& plots, int columns)
{
    columns = std::max(columns, 1);
    if (file.endsWith(QStringLiteral(".pdf"), Qt::CaseInsensitive)) {
        QPdfWriter writer(file);
        writer.setResolution(72);  // one unit a point: the plots keep their on-screen proportions
        writer.setCreator(QStringLiteral("noisefloor"));
        writer.setTitle(header.value(0));
        const Sheet sheet = measure(header, plots, columns, &writer);
        writer.setPageSize(QPageSize(sheet.size, QPageSize::Point, QString(), QPageSize::ExactMatch));
        writer.setPageMargins(QMarginsF(0, 0, 0, 0));
        QCPPainter painter;
        if (!painter.begin(&writer)) {
            return false;
        }
        painter.setMode(QCPPainter::pmVectorized);
        painter.setMode(QCPPainter::pmNoCaching);
        draw(painter, sheet, header, plots, columns);
        return painter.end();
    }
    constexpr double kScale = 2;  // twice the screen's pixels
    QImage probe(1, 1, QImage::Format_RGB32);
    const Sheet sheet = measure(header, plots, columns, &probe);
    QImage image((sheet.size * kScale).toSize(), QImage::Format_RGB32);
    image.fill(Qt::white);
    {
        QCPPainter painter(&image);
        painter.setRenderHint(QPainter::Antialiasing);
        painter.scale(kScale, kScale);
        draw(painter, sheet, header, plots, columns);
    }
    return image.save(file);
}

}  // namespace nf::ui
