#pragma once
// One panel of the Compare grid: a variant per column, every repetition as a dot, the mean as a
// bar with its 95% CI as error bars, and the verdict lines written on the panel. A metric the run
// did not measure shows why instead of an empty plot.

#include <QWidget>

#include "ui/comparison.h"

class QCustomPlot;
class QCPTextElement;

namespace nf::ui {

class ComparePlot : public QWidget {
    Q_OBJECT

public:
    explicit ComparePlot(QWidget* parent = nullptr);

    void showPanel(const PanelView& panel);
    void showMessage(const QString& title, const QString& text);

    QCustomPlot* customPlot() const { return m_plot; }
    // The text in the middle of the panel, "" when it shows data.
    const QString& message() const { return m_message; }
    // The verdict text written on the panel.
    const QString& verdictText() const { return m_verdict; }

private:
    void reset(const QString& title);
    void replotIfSized();

    QCustomPlot* m_plot = nullptr;
    QCPTextElement* m_title = nullptr;
    QString m_message;
    QString m_verdict;
};

}  // namespace nf::ui
