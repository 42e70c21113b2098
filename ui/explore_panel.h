#pragma once
// The Explore tab: a parameter sweep (`noisefloor run --sweep PARAM=v1,v2,...`) as one picture:
// the metric against the parameter, one line per variant with its 95% CI as a band, so "where
// does the early check start to pay off?" is answered at a glance.

#include <QWidget>

#include "ui/category_ticks.h"
#include "ui/sweep_view.h"

class QCheckBox;
class QComboBox;
class QCustomPlot;
class QLabel;
class QPlainTextEdit;

namespace nf::ui {

class ExplorePanel : public QWidget {
    Q_OBJECT

public:
    explicit ExplorePanel(QWidget* parent = nullptr);

    // The sweeps to choose from: {id, description}, newest first.
    void setSweeps(const std::vector<std::pair<QString, QString>>& sweeps);
    // Chooses this sweep (and asks for it); false when it is not listed.
    bool selectSweep(const QString& id);
    void showSweep(const SweepView& sweep);

    QString currentSweep() const;
    QString currentMetric() const;  // "" = the workload's primary metric
    QCustomPlot* customPlot() const { return m_plot; }
    QString message() const { return m_message; }
    const SweepView& view() const { return m_view; }
    // Writes the plot (PNG, or PDF with vectors and text, under a header with the sweep, workload,
    // metric and verdicts) or the table (CSV: one row per point and variant), by extension.
    bool exportTo(const QString& file) const;
    // Asks for a file and exports to it; the result for the status bar.
    void exportInteractively();
    // How the evenly spaced points' axis is labelled now (ui/category_ticks.h).
    CategoryTickPlan tickPlan() const { return m_tickPlan; }

signals:
    void sweepRequested(const QString& id, const QString& metric);
    void status(const QString& text);

private:
    void request();
    void draw();
    void showMessage(const QString& text);
    void relabel();

    QComboBox* m_sweeps;
    QComboBox* m_metric;
    QCheckBox* m_even;
    QCustomPlot* m_plot;
    QLabel* m_title;
    QPlainTextEdit* m_verdicts;
    SweepView m_view;
    QString m_message;
    QVector<double> m_tickAt;  // evenly spaced points: where their labels go
    QStringList m_tickNames;   // ... and the labels; empty when the axis has round ticks
    CategoryTickPlan m_tickPlan;
};

}  // namespace nf::ui
