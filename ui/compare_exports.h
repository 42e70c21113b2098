#pragma once
// What leaves the Compare tab: its evidence report on the clipboard (the text `noisefloor compare`
// prints, for a mail), its plots as PNG or PDF, and the samples of the chosen runs and variants as
// one CSV table. Each says in a status line what it did.

#include <QObject>
#include <QString>

#include <memory>
#include <vector>

#include "engine/model/run_record.h"
#include "ui/history_panel.h"

class QWidget;

namespace nf::ui {

class ComparePanel;

class CompareExports : public QObject {
    Q_OBJECT

public:
    // Exports what `panel` shows; file dialogs open over `dialogParent`.
    CompareExports(ComparePanel* panel, QWidget* dialogParent);

    // Copies the panel's report; `shown` is the selection it reports on (none: nothing to copy).
    void copyEvidenceReport(const RunSelection& shown);
    // Asks for a file and saves the comparison plots there.
    void saveImage();
    // Asks for a file and writes the samples of `chosen` (a run, or one variant of it) from `runs`.
    void exportCsv(const std::vector<std::shared_ptr<const engine::RunRecord>>& runs, const RunSelection& chosen);

signals:
    void status(const QString& text);

private:
    ComparePanel* m_panel;
    QWidget* m_dialogParent;
};

// The samples of the chosen variants of every run in one table: the columns of all runs (a run
// without a column leaves it empty), the runs' comment lines (SIMULATED notes) first.
QString mergedCsv(const std::vector<std::shared_ptr<const engine::RunRecord>>& runs, const RunSelection& chosen);

}  // namespace nf::ui
