#pragma once
// The symbols whose share of a CPU's samples changed between two variants (engine::
// ProfileComparison, the rows `compare` lists): one horizontal bar per symbol, its change in
// percentage points with its 95% interval, red where the candidate spends more of its time there,
// blue where less. Only rows with q below alpha; with none, the largest changes in grey, said so.

#include <QStringList>
#include <QWidget>

#include "engine/analysis/profile_diff.h"

class QCustomPlot;

namespace nf::ui {

class ProfileBars : public QWidget {
    Q_OBJECT

public:
    explicit ProfileBars(QWidget* parent = nullptr);

    // `severalCpus`: the rows name their CPU.
    void setComparison(const engine::ProfileComparison& comparison, double alpha, bool severalCpus);
    QCustomPlot* customPlot() const { return m_plot; }
    QStringList symbolsShown() const { return m_shown; }  // top to bottom, "(cpuN)" or "(role)" where several
    QList<int> cpusShown() const { return m_cpus; }       // each bar's CPU, top to bottom
    QStringList barSymbols() const { return m_symbols; }  // each bar's symbol, top to bottom
    bool changedShown() const { return m_changed; }       // false: no row below alpha, the largest in grey

private:
    QCustomPlot* m_plot = nullptr;
    QStringList m_shown;
    QStringList m_symbols;
    QList<int> m_cpus;
    bool m_changed = false;
};

}  // namespace nf::ui
