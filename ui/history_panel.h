#pragma once
// The History tab: the runs of the database in a table that filters by label, workload, kernel and
// date, the ticked variants of the selected runs per repetition (the first run's primary metric),
// and the variants of the selected runs to tick for a comparison across runs (vanilla kernel vs
// patched kernel).

#include <QSortFilterProxyModel>
#include <QWidget>

#include <cstdint>
#include <utility>
#include <vector>

class QAction;
class QLabel;
class QLineEdit;
class QPushButton;
class QListWidget;
class QTableView;
class QTimer;

namespace nf::ui {

class RepetitionPlot;
class RunListModel;

// Rows whose label, workload, kernel and start time contain the matching filter text, and the
// pinned runs (the ones being compared) whether they match or not, shown in italics: a filter
// never takes a run out of the comparison behind the user's back.
class RunFilterModel : public QSortFilterProxyModel {
    Q_OBJECT

public:
    using QSortFilterProxyModel::QSortFilterProxyModel;
    void setFilters(const QString& label, const QString& workload, const QString& kernel, const QString& date);
    // Runs kept in the list whatever the filters say (takes effect with the next setFilters()).
    void setPinned(std::vector<std::int64_t> ids) { m_pinned = std::move(ids); }
    // Shown runs that are there only because they are pinned.
    std::vector<std::int64_t> pinnedOutsideFilter() const;
    QVariant data(const QModelIndex& index, int role = Qt::DisplayRole) const override;

protected:
    bool filterAcceptsRow(int sourceRow, const QModelIndex& sourceParent) const override;

private:
    bool matchesFilters(int sourceRow, const QModelIndex& sourceParent) const;
    std::int64_t runIdOf(int sourceRow) const;

    QString m_label, m_workload, m_kernel, m_date;
    std::vector<std::int64_t> m_pinned;
};

// A run and one of its variants ("" = all of them).
using RunSelection = std::vector<std::pair<std::int64_t, QString>>;

class HistoryPanel : public QWidget {
    Q_OBJECT

public:
    explicit HistoryPanel(RunListModel* model, QWidget* parent = nullptr);

    QTableView* table() const { return m_table; }
    RepetitionPlot* plot() const { return m_plot; }
    RunFilterModel* filterModel() const { return m_filter; }
    QListWidget* variantList() const { return m_variantList; }
    void setFilters(const QString& label, const QString& workload, const QString& kernel, const QString& date);
    // What the line under the filters says: which compared runs the filter does not match.
    QString filterNote() const;
    // Forgets the selected runs (another database: its ids name other runs).
    void clearSelection();

    // Runs selected in the table, in the order they were selected: the first is the baseline (as
    // `noisefloor compare A B` makes A the baseline).
    std::vector<std::int64_t> selectedRuns() const;
    // Selects exactly these runs; false when one is not shown. With `scroll` the first is scrolled
    // into view.
    bool selectRuns(const std::vector<std::int64_t>& ids, bool scroll = true);
    // Selects these runs and lists them even where the filter hides them (in italics, named in the
    // line under the filters); false when one is not in the database's list.
    bool revealRuns(const std::vector<std::int64_t>& ids);
    // The run at the top of the table's view and the current one, to keep them where they are when
    // the list is read again (another process committed): browsing is not thrown back to the
    // selection.
    struct ViewPlace {
        std::int64_t top = -1;
        std::int64_t current = -1;
        int offset = 0;  // pixels of the top row above the view
    };
    ViewPlace viewPlace() const;
    void restoreViewPlace(const ViewPlace& place);
    // Lists the variants of the loaded runs, ticked when `ticked` is empty or names them.
    void setVariants(const std::vector<std::pair<std::int64_t, QStringList>>& runs, const RunSelection& ticked);
    // The ticked variants, one entry each.
    RunSelection tickedVariants() const;
    // "Run this again" (the button and the table's context menu): enabled while one run is selected.
    QAction* rerunAction() const { return m_rerun; }
    QPushButton* rerunButton() const { return m_rerunButton; }

signals:
    // The table selection changed: compare these runs (every variant).
    void runsSelected(const std::vector<std::int64_t>& ids);
    // The ticked variants changed.
    void variantsTicked(const nf::ui::RunSelection& selection);
    // "Run this again": load this run's design into the Experiment tab.
    void rerunRequested(std::int64_t runId);

protected:
    // Esc in a filter field clears it (and goes no further: it never stops a run); a click on a row
    // shown in part does not scroll the table.
    bool eventFilter(QObject* watched, QEvent* event) override;

private:
    std::vector<std::int64_t> selectedInTable() const;  // in table order
    void updateOrder();
    void applyFilters();
    void refreshPins();
    void updateRerun();

    RunListModel* m_model;
    RunFilterModel* m_filter;
    QTableView* m_table;
    RepetitionPlot* m_plot;
    QListWidget* m_variantList;
    QLineEdit* m_labelFilter;
    QLineEdit* m_workloadFilter;
    QLineEdit* m_kernelFilter;
    QLineEdit* m_dateFilter;
    QLabel* m_filterNote;
    QAction* m_rerun;
    QPushButton* m_rerunButton;
    QTimer* m_pinTimer;         // refreshPins() once the selection change is handled
    QTimer* m_autoScrollTimer;  // the table's auto-scroll back on after a click (eventFilter())
    bool m_updatingVariants = false;
    std::vector<std::int64_t> m_order;  // the selected runs, first selected first
};

}  // namespace nf::ui
