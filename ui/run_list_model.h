#pragma once
// The "Runs" table: one row per stored run, newest first, as nf::data::listRuns returns them.

#include <QAbstractTableModel>

#include <cstdint>
#include <map>
#include <string>
#include <vector>

#include "data/database.h"
#include "data/run_store.h"

namespace nf::ui {

class RunListModel : public QAbstractTableModel {
    Q_OBJECT

public:
    enum Column { Id, Started, Status, Workload, Label, Sweep, Variants, Reps, Kernel, ColumnCount };

    explicit RunListModel(QObject* parent = nullptr);

    // Replaces the rows with listRuns(db); on failure the model is left empty.
    Result<void> load(data::Database& db);
    void setRuns(std::vector<engine::RunRow> runs);
    void clear();

    const std::vector<engine::RunRow>& runs() const { return m_runs; }
    // The Sweep column of a run: "zero_size_pct = 1 (point 2 of 3)"; "" for a run that is no point
    // of a sweep. n counts the sweep's runs in the list (more when a later point is stored).
    QString sweepText(const engine::RunRow& run) const;
    // The run shown in `row`, or nullptr when out of range.
    const engine::RunRow* runAt(int row) const;
    // Row of the run with this id, or -1.
    int rowOf(std::int64_t runId) const;

    int rowCount(const QModelIndex& parent = {}) const override;
    int columnCount(const QModelIndex& parent = {}) const override;
    QVariant data(const QModelIndex& index, int role = Qt::DisplayRole) const override;
    QVariant headerData(int section, Qt::Orientation orientation, int role = Qt::DisplayRole) const override;

    // "2026-11-30T01:02:03Z" shown in local time as "2026-11-30 02:02:03"; unparsable text as is.
    static QString displayTime(const std::string& isoUtc);

private:
    QVariant displayText(const engine::RunRow& run, int column) const;

    std::vector<engine::RunRow> m_runs;
    std::map<std::string, int> m_sweepPoints;  // sweep id -> points in the list
};

}  // namespace nf::ui
