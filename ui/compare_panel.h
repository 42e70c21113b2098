#pragma once
// The Compare tab: a 2x2 grid of ComparePlot panels (by default PPS, IPC, branch misses per op,
// cycles or TSC ticks per op; each picks any metric the runs stored) for one run's variants or
// variants across runs, the baseline they are compared against (and a swap), the equivalence
// margin, alpha and outlier rule of `noisefloor compare` (its --margin, --alpha, --drop-outliers;
// "Defaults" gives the command's, a run until decided's own), the warnings of
// `noisefloor compare` under it, the report itself one click away, and buttons to copy it and save
// the plots.

#include <QWidget>

#include <array>

#include "ui/comparison.h"

class QCheckBox;
class QComboBox;
class QDoubleSpinBox;
class QLabel;
class QPlainTextEdit;
class QScrollArea;
class QPushButton;

namespace nf::ui {

class ComparePlot;
class ProfilePanel;

class ComparePanel : public QWidget {
    Q_OBJECT

public:
    explicit ComparePanel(QWidget* parent = nullptr);

    void showComparison(const ComparisonView& view);
    void showMessage(const QString& text);

    ComparePlot* panel(int index) const { return m_panels.at(static_cast<std::size_t>(index)); }
    const ComparisonView& view() const { return m_view; }
    QComboBox* baselinePicker() const { return m_baseline; }
    QDoubleSpinBox* marginBox() const { return m_margin; }
    QDoubleSpinBox* alphaBox() const { return m_alpha; }
    QCheckBox* outlierBox() const { return m_dropOutliers; }
    // The margin, alpha and outlier rule set from outside (the GUI's --margin, --alpha,
    // --drop-outliers), as if set in the boxes; the next comparison shows them.
    void setSettings(const CompareSettings& settings);
    // Makes the next variant the baseline (with two, swaps them).
    void swapBaseline();
    QString titleText() const;
    // Saves the grid as PNG or PDF (by extension) under the evidence report; a PDF has vectors and
    // real text. False on failure.
    bool saveImage(const QString& file);
    // The lines above the plots in an export: the compact report `noisefloor compare` prints (the
    // text "Copy evidence report" copies), warnings included.
    QStringList exportHeader() const;
    // The grid alone, for export.
    QWidget* grid() const { return m_grid; }
    // The evidence report shown (the text `noisefloor compare` prints), "" when there is none.
    QString reportText() const { return m_reportText; }
    QStringList warningLines() const { return m_warningLines; }
    // The sequential decision shown above the panels, "" when the run did not run until decided.
    QString decisionShown() const;
    // A profiled run: the Profile view instead of the plots (and of the report), when `on`; kept
    // for the next comparison that has a profile.
    void setProfileShown(bool on);
    bool profileShown() const;
    ProfilePanel* profilePanel() const { return m_profile; }

signals:
    void copyReportRequested();
    void saveImageRequested();
    void exportCsvRequested();
    // The user chose another baseline (a variant as the report names it), margin, alpha or
    // outlier rule: the comparison to show now.
    void settingsRequested(const nf::ui::CompareSettings& settings);

protected:
    void resizeEvent(QResizeEvent* event) override;

private:
    void showPanel(std::size_t index, const QString& metric);
    void fitWarnings();
    void showSettings(const ComparisonView& view);
    void requestSettings();

    ComparisonView m_view;
    std::array<QString, 4> m_picked;  // metrics the user picked, kept while they exist
    QComboBox* m_baseline = nullptr;
    QDoubleSpinBox* m_margin = nullptr;
    QDoubleSpinBox* m_alpha = nullptr;
    QCheckBox* m_dropOutliers = nullptr;
    QPushButton* m_defaults = nullptr;
    CompareSettings m_settings;  // what the user set; unset options are the comparison's defaults
    QLabel* m_title = nullptr;
    QLabel* m_warnings = nullptr;
    // Holds m_warnings: at most a few lines high, so that the panels keep the window's height.
    QScrollArea* m_warningScroll = nullptr;
    QLabel* m_decision = nullptr;  // a run until decided: the sequential decision, above the panels
    QWidget* m_grid = nullptr;
    QScrollArea* m_scroll = nullptr;  // holds m_grid
    QPlainTextEdit* m_report = nullptr;
    QPushButton* m_showReport = nullptr;
    ProfilePanel* m_profile = nullptr;
    QPushButton* m_showProfile = nullptr;
    bool m_profileWanted = false;
    QString m_reportText;
    QStringList m_warningLines;
    std::array<ComparePlot*, 4> m_panels{};
};

}  // namespace nf::ui
