#pragma once
// The primary metric per repetition of one run, or of the chosen variants of several runs: a point
// per (variant, repetition), a colour and a legend entry per variant, and each variant's mean as a
// short horizontal line in a "mean" column to the right of the repetitions. The legend wraps into
// as many rows as the plot's width needs, so every entry stays whole.

#include <QStringList>
#include <QWidget>

#include <cstdint>
#include <vector>

#include "engine/model/run_data.h"

class QCustomPlot;
class QCPItemText;
class QCPTextElement;
class QLabel;

namespace nf::ui {

// A run to plot and which of its variants.
struct PlottedRun {
    std::int64_t id = 0;
    QString label;     // the run's label, "" when it has none
    QString workload;  // what the title says the run measured
    const engine::RunData* data = nullptr;
    QStringList variants;  // the variants to plot, in the run's order; empty: all of them
};

class RepetitionPlot : public QWidget {
    Q_OBJECT

public:
    explicit RepetitionPlot(QWidget* parent = nullptr);

    // Plots layout.metrics.front() of `run`; `title` goes above the plot ("run 3: spin").
    void showRun(const QString& title, const engine::RunData& run);
    // Plots the first run's primary metric for the chosen variants of every run, each named
    // "run N: variant" (a run's variants alone when there is one run), coloured by its place in the
    // plot (by its index in its run when there is one run, as every tab colours a run's variants).
    // A run that did not store that metric is named in note().
    void showRuns(const std::vector<PlottedRun>& runs);
    // Clears the plot and shows `text` in its middle ("no run selected", a load error).
    void showMessage(const QString& title, const QString& text);

    QCustomPlot* customPlot() const { return m_plot; }
    // The text shown in the middle of the plot, "" when it shows data.
    QString message() const;
    // The whole title (the plot shows it elided when it is wider than the plot).
    QString title() const;
    // The line under the plot: which runs lack the plotted metric, "" when none.
    QString note() const;

protected:
    bool eventFilter(QObject* watched, QEvent* event) override;

private:
    void plotRuns(const QString& title, const std::vector<PlottedRun>& runs);
    void reset(const QString& title);
    void setMessage(const QString& text);
    void setAxesVisible(bool visible);
    // As many legend columns as the plot's `width` holds whole; the title elided to it.
    void fitToWidth(int width);
    void replotIfSized();

    QCustomPlot* m_plot = nullptr;
    QCPTextElement* m_title = nullptr;
    QString m_fullTitle;
    QCPItemText* m_message = nullptr;  // owned by m_plot; null while data is shown
    QLabel* m_note = nullptr;
};

}  // namespace nf::ui
