#pragma once
// One run's primary metric per repetition: a point per (variant, repetition), a colour and a
// legend entry per variant, and each variant's mean as a short horizontal line in a "mean" column
// to the right of the repetitions.

#include <QWidget>

#include "engine/model/run_data.h"

class QCustomPlot;
class QCPItemText;
class QCPTextElement;

namespace nf::ui {

class RepetitionPlot : public QWidget {
    Q_OBJECT

public:
    explicit RepetitionPlot(QWidget* parent = nullptr);

    // Plots layout.metrics.front() of `run`; `title` goes above the plot ("run 3: spin").
    void showRun(const QString& title, const engine::RunData& run);
    // Clears the plot and shows `text` in its middle ("no run selected", a load error).
    void showMessage(const QString& title, const QString& text);

    QCustomPlot* customPlot() const { return m_plot; }
    // The text shown in the middle of the plot, "" when it shows data.
    QString message() const;

private:
    void reset(const QString& title);
    void setMessage(const QString& text);
    void setAxesVisible(bool visible);

    QCustomPlot* m_plot = nullptr;
    QCPTextElement* m_title = nullptr;
    QCPItemText* m_message = nullptr;  // owned by m_plot; null while data is shown
};

}  // namespace nf::ui
