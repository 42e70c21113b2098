#pragma once
// The Explore tab: a parameter sweep (`noisefloor run --sweep PARAM=v1,v2,...`) as one picture.
// Above: the metric against the parameter, one line per variant with its 95% CI over repetitions
// as a band. Below, on the same points: what each point's verdict rests on - each candidate's
// difference from the baseline in percent, the estimate with its 1 - alpha interval (thin) and
// 1 - 2 alpha interval (thick, the one equivalence is judged by), in the design the sweep was
// measured in (paired chunk log-ratios, or independent repetitions), against the +-margin band and
// a zero line; the figures of `noisefloor compare --sweep`. So "where does the early check start
// to pay off?" is answered at a glance, and the picture cannot disagree with the verdict lines.

#include <QWidget>

#include <optional>
#include <vector>

#include "ui/category_ticks.h"
#include "ui/sweep_view.h"

class QCheckBox;
class QComboBox;
class QCPAxisRect;
class QCPErrorBars;
class QCPGraph;
class QCPTextElement;
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

    // The difference drawn for variant `variant` at point `point` (indices of view()), read back
    // from the plot, in percent: estimate, the thin interval and the thick one. None for the
    // baseline and where the point has no estimate.
    struct Drawn {
        double estimate = 0;
        double low = 0;
        double high = 0;
        double tostLow = 0;
        double tostHigh = 0;
    };
    std::optional<Drawn> drawnDifference(int variant, int point) const;
    // The +-margin band drawn, in percent (0 when none).
    double drawnMarginPct() const { return m_marginPct; }
    // What the difference plot says it shows: "vs late, %: paired chunk log-ratios: ...".
    QString differenceTitle() const;

signals:
    void sweepRequested(const QString& id, const QString& metric);
    void status(const QString& text);

private:
    void request();
    void draw();
    void showMessage(const QString& text);
    void relabel();
    void setMetrics(const QStringList& stored);
    void drawValues(const QVector<double>& xs);
    void drawDifferences(const QVector<double>& xs);

    // One candidate's differences: the estimates (a graph), the thin and thick intervals on them,
    // and where each point of the sweep is on the x axis (NaN: no estimate there).
    struct DifferenceSeries {
        QCPGraph* estimates = nullptr;
        QCPErrorBars* interval = nullptr;
        QCPErrorBars* tost = nullptr;
        QVector<double> at;
    };

    QComboBox* m_sweeps;
    QComboBox* m_metric;
    QCheckBox* m_even;
    QCustomPlot* m_plot;
    QCPAxisRect* m_values = nullptr;
    QCPAxisRect* m_difference = nullptr;
    QCPTextElement* m_differenceTitle = nullptr;
    std::vector<DifferenceSeries> m_series;  // per variant; the baseline's is empty
    double m_marginPct = 0;
    QLabel* m_title;
    QPlainTextEdit* m_verdicts;
    SweepView m_view;
    QString m_message;
    QVector<double> m_tickAt;  // evenly spaced points: where their labels go
    QStringList m_tickNames;   // ... and the labels; empty when the axis has round ticks
    CategoryTickPlan m_tickPlan;
};

}  // namespace nf::ui
