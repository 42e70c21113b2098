#include "ui/compare_panel.h"

#include <QFontDatabase>
#include <QGridLayout>
#include <QHBoxLayout>
#include <QLabel>
#include <QPainter>
#include <QPdfWriter>
#include <QPlainTextEdit>
#include <QPushButton>
#include <QVBoxLayout>

#include <qcustomplot.h>

#include "ui/compare_plot.h"

namespace nf::ui {

ComparePanel::ComparePanel(QWidget* parent)
    : QWidget(parent),
      m_title(new QLabel(this)),
      m_warnings(new QLabel(this)),
      m_grid(new QWidget(this)),
      m_report(new QPlainTextEdit(this)),
      m_showReport(new QPushButton(tr("Show report"), this))
{
    m_report->setReadOnly(true);
    m_report->setFont(QFontDatabase::systemFont(QFontDatabase::FixedFont));
    m_report->setLineWrapMode(QPlainTextEdit::NoWrap);
    m_report->setVisible(false);
    m_showReport->setCheckable(true);
    m_showReport->setToolTip(tr("The text of `noisefloor compare` for these runs: every verdict and warning"));
    connect(m_showReport, &QPushButton::toggled, this, [this](bool on) {
        m_report->setVisible(on);
        m_grid->setVisible(!on);
        m_showReport->setText(on ? tr("Show plots") : tr("Show report"));
    });
    QFont titleFont = font();
    titleFont.setBold(true);
    titleFont.setPointSizeF(titleFont.pointSizeF() * 1.2);
    m_title->setFont(titleFont);
    m_title->setTextInteractionFlags(Qt::TextSelectableByMouse);
    m_warnings->setWordWrap(true);
    m_warnings->setStyleSheet(QStringLiteral("color: #8a5a00;"));
    m_warnings->setTextInteractionFlags(Qt::TextSelectableByMouse);

    auto* gridLayout = new QGridLayout(m_grid);
    gridLayout->setContentsMargins(0, 0, 0, 0);
    for (std::size_t i = 0; i < m_panels.size(); ++i) {
        m_panels[i] = new ComparePlot(m_grid);
        gridLayout->addWidget(m_panels[i], static_cast<int>(i / 2), static_cast<int>(i % 2));
    }

    auto* copy = new QPushButton(tr("Copy evidence report"), this);
    copy->setToolTip(tr("The text report of `noisefloor compare`, ready to paste into a mail"));
    auto* save = new QPushButton(tr("Save plots (PNG/PDF)..."), this);
    auto* csv = new QPushButton(tr("Export CSV..."), this);
    connect(copy, &QPushButton::clicked, this, &ComparePanel::copyReportRequested);
    connect(save, &QPushButton::clicked, this, &ComparePanel::saveImageRequested);
    connect(csv, &QPushButton::clicked, this, &ComparePanel::exportCsvRequested);
    auto* top = new QHBoxLayout;
    top->addWidget(m_title, 1);
    top->addWidget(m_showReport);
    top->addWidget(copy);
    top->addWidget(save);
    top->addWidget(csv);

    auto* layout = new QVBoxLayout(this);
    layout->addLayout(top);
    layout->addWidget(m_grid, 1);
    layout->addWidget(m_report, 1);
    layout->addWidget(m_warnings);
    showMessage(tr("Select a run in History (or finish one in Live) to compare its variants."));
}

void ComparePanel::showMessage(const QString& text)
{
    m_title->setText(tr("Compare"));
    m_warnings->clear();
    m_report->clear();
    m_reportText.clear();
    m_warningLines.clear();
    for (std::size_t i = 0; i < m_panels.size(); ++i) {
        m_panels[i]->showMessage(QString(), i == 0 ? text : QString());
    }
}

void ComparePanel::showComparison(const ComparisonView& view)
{
    m_title->setText(view.title);
    m_reportText = view.report;
    m_report->setPlainText(view.report);
    m_warningLines = view.warnings;
    if (!view.error.isEmpty()) {
        showMessage(view.error);
        m_title->setText(view.title);
        return;
    }
    for (std::size_t i = 0; i < m_panels.size(); ++i) {
        m_panels[i]->showPanel(view.panels[i]);
    }
    QStringList lines;
    for (const auto& w : view.warnings) {
        lines << tr("warning: %1").arg(w);
    }
    m_warnings->setText(lines.join('\n'));
}

QString ComparePanel::titleText() const
{
    return m_title->text();
}

bool ComparePanel::saveImage(const QString& file)
{
    for (auto* p : m_panels) {
        p->customPlot()->replot();
    }
    if (file.endsWith(QStringLiteral(".pdf"), Qt::CaseInsensitive)) {
        QPdfWriter writer(file);
        writer.setPageSize(QPageSize(QPageSize::A4));
        writer.setPageOrientation(QPageLayout::Landscape);
        writer.setTitle(m_title->text());
        QPainter painter;
        if (!painter.begin(&writer)) {
            return false;
        }
        const QRect page = painter.viewport();
        const double scale = std::min(static_cast<double>(page.width()) / m_grid->width(),
                                      static_cast<double>(page.height()) / m_grid->height());
        painter.scale(scale, scale);
        m_grid->render(&painter);
        return painter.end();
    }
    return m_grid->grab().save(file);
}

}  // namespace nf::ui
