#pragma once
// One panel of the Compare grid, for one metric (picked from every metric the run stored).
// Left: a variant per column, every repetition as a dot, the mean as a square with its 95% CI.
// Right: what the verdict rests on - each candidate's difference from the baseline in percent,
// the engine's estimate and interval (paired chunk log-ratios, or independent repetitions, as the
// panel says), against the +-margin band and a zero line, and where code layout was a factor the
// hatched band of its spread (+-layout spread around 0, in each candidate's column: a difference
// inside it is not shown to be the code path's). Below: the verdict lines. A metric the run did not
// measure shows why instead of an empty plot.

#include <QWidget>

#include <array>
#include <optional>
#include <vector>

#include "ui/category_ticks.h"
#include "ui/comparison.h"

class QComboBox;
class QCPAxisRect;
class QCPErrorBars;
class QCPGraph;
class QCPItemRect;
class QCPItemStraightLine;
class QCPItemText;
class QCPTextElement;
class QCustomPlot;

namespace nf::ui {

class ComparePlot : public QWidget {
    Q_OBJECT

public:
    explicit ComparePlot(QWidget* parent = nullptr);

    void showPanel(const PanelView& panel);
    void showMessage(const QString& title, const QString& text);
    // The metrics to pick from (every one the runs stored); `shown` is selected.
    void setMetrics(const std::vector<PanelView>& metrics, const QString& shown);

    QCustomPlot* customPlot() const { return m_plot; }
    QComboBox* metricPicker() const { return m_picker; }
    // The text in the middle of the panel, "" when it shows data.
    const QString& message() const { return m_message; }
    // The verdict text written on the panel.
    const QString& verdictText() const { return m_verdict; }
    // The metric shown, "" when none.
    const QString& shownMetric() const { return m_metric; }
    // What the difference side says it shows ("difference vs a, %: paired chunk log-ratios").
    QString differenceTitle() const;

    // The difference drawn for candidate `index`, read back from the plot: estimate, low, high (%).
    struct Drawn {
        double estimate = 0;
        double low = 0;
        double high = 0;
    };
    std::optional<Drawn> drawnDifference(int index) const;
    // The height of the dashed line at the baseline's mean on the values side (NaN when none).
    double drawnBaselineMean() const;
    // The +-margin band drawn, in percent (0 when none).
    double drawnMarginPct() const;
    // The layout spread band drawn for candidate `index` (neighbours with the same spread share
    // one), none when its comparison has no spread.
    QCPItemRect* layoutBand(int index) const;
    // The text below the plot: the verdict lines, or with many candidates a count of the verdicts
    // (every line is in the panel's tooltip and in the report).
    QString verdictShown() const;
    // How the variant (0) and candidate (1) axes are labelled now (ui/category_ticks.h).
    CategoryTickPlan tickPlan(int axis) const { return m_categories.at(static_cast<std::size_t>(axis)).plan; }

    // Candidates up to this many get their verdict lines under the plot.
    static constexpr int kVerdictLinesUpTo = 3;
    // Pixels between a difference's diamond and its figures.
    static constexpr int kFigureOffset = 9;

signals:
    void metricPicked(const QString& metric);

private:
    void reset(const QString& title);
    void drawValues(const PanelView& panel);
    void drawDifferences(const PanelView& panel);
    void replotIfSized();
    void relabel();
    bool fitDifferenceAxis();

    // A category axis: where its labels go and how they were last laid out.
    struct Categories {
        QVector<double> at;
        QStringList names;
        CategoryTickPlan plan;
    };
    std::array<Categories, 2> m_categories;  // variants, candidates

    QComboBox* m_picker = nullptr;
    QCustomPlot* m_plot = nullptr;
    QCPTextElement* m_title = nullptr;
    QCPAxisRect* m_values = nullptr;
    QCPAxisRect* m_difference = nullptr;
    QCPTextElement* m_verdictElement = nullptr;
    QCPGraph* m_estimates = nullptr;
    QCPErrorBars* m_intervals = nullptr;
    QCPItemStraightLine* m_baselineLine = nullptr;  // the baseline's mean on the values side
    QString m_valuesCaption;                        // the values axis's label before it is wrapped
    QString m_differenceCaption;                    // the difference axis's label before it is wrapped
    QString m_layoutCaption;                        // its line naming the layout band, "" when none
    QString m_baselineName;                         // the baseline the difference axis is labelled against
    std::vector<QCPItemText*> m_figures;            // the figures beside each difference, when shown
    std::vector<QCPItemRect*> m_layoutBands;        // per candidate: the layout spread band it is in, or null
    // Each figure's text in full (estimate, interval, verdict) and short (estimate, verdict): a
    // narrow axis shows the short one before it shows none.
    std::vector<std::pair<QString, QString>> m_figureTexts;
    double m_differencesEnd = 1;  // the last candidate's position on its axis
    // The difference axis's range before the figures are fitted.
    double m_differenceLow = -1;
    double m_differenceHigh = 1;
    double m_marginPct = 0;
    bool m_filling = false;
    QString m_message;
    QString m_verdict;
    QString m_metric;
};

}  // namespace nf::ui
