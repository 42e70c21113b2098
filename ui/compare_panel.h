#pragma once
// The Compare tab: a 2x2 grid of ComparePlot panels (PPS, IPC, branch misses per op, cycles or TSC
// ticks per op) for one run's variants or variants across runs, with the warnings of `noisefloor
// compare` under it, the report itself one click away, and buttons to copy it and save the plots.

#include <QWidget>

#include <array>

#include "ui/comparison.h"

class QLabel;
class QPlainTextEdit;
class QPushButton;

namespace nf::ui {

class ComparePlot;

class ComparePanel : public QWidget {
    Q_OBJECT

public:
    explicit ComparePanel(QWidget* parent = nullptr);

    void showComparison(const ComparisonView& view);
    void showMessage(const QString& text);

    ComparePlot* panel(int index) const { return m_panels.at(static_cast<std::size_t>(index)); }
    QString titleText() const;
    // Saves the grid as PNG or PDF (by extension); false on failure.
    bool saveImage(const QString& file);
    // The grid alone, for export.
    QWidget* grid() const { return m_grid; }
    // The evidence report shown (the text `noisefloor compare` prints), "" when there is none.
    QString reportText() const { return m_reportText; }
    QStringList warningLines() const { return m_warningLines; }

signals:
    void copyReportRequested();
    void saveImageRequested();
    void exportCsvRequested();

private:
    QLabel* m_title = nullptr;
    QLabel* m_warnings = nullptr;
    QWidget* m_grid = nullptr;
    QPlainTextEdit* m_report = nullptr;
    QPushButton* m_showReport = nullptr;
    QString m_reportText;
    QStringList m_warningLines;
    std::array<ComparePlot*, 4> m_panels{};
};

}  // namespace nf::ui
