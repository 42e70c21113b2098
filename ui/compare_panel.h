#pragma once
// The Compare tab: a 2x2 grid of ComparePlot panels (PPS, IPC, branch misses per op, cycles or TSC
// ticks per op) for one run's variants or variants across runs, with the analysis' warnings under
// it and buttons to copy the evidence report and save the plots.

#include <QWidget>

#include <array>

#include "comparison.h"

class QLabel;
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

signals:
    void copyReportRequested();
    void saveImageRequested();
    void exportCsvRequested();

private:
    QLabel* m_title = nullptr;
    QLabel* m_warnings = nullptr;
    QWidget* m_grid = nullptr;
    std::array<ComparePlot*, 4> m_panels{};
};

}  // namespace nf::ui
