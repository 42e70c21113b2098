#pragma once
// The main window: the "Runs" table of a noisefloor database and, below it, the selected run's
// primary metric per repetition. It only wires the pieces together: the rows come from
// RunListModel, the plot from RepetitionPlot, the data from nf::data.

#include <QMainWindow>

#include <cstdint>
#include <optional>

#include "database.h"

class QTableView;
class QLabel;

namespace nf::ui {

class RepetitionPlot;
class RunListModel;

class MainWindow : public QMainWindow {
    Q_OBJECT

public:
    // Opens `databasePath` read-only and selects the newest run. A missing or unreadable database
    // is reported in the status bar, never in a dialog.
    explicit MainWindow(const QString& databasePath, QWidget* parent = nullptr);
    ~MainWindow() override;

    // Switches to another database file; false (and a status message) when it cannot be read.
    bool openDatabase(const QString& path);
    // Re-reads the run list, keeping the selected run when it still exists.
    void reload();
    // Selects the run with this id (loads and plots it); false when it is not in the list.
    bool selectRun(std::int64_t runId);
    // Selects the first row: the newest run.
    void selectNewestRun();
    // Renders the window into an image file (png by extension); false on failure.
    bool saveScreenshot(const QString& file);

    const QString& databasePath() const { return m_path; }
    RunListModel* runModel() const { return m_model; }
    QTableView* runTable() const { return m_table; }
    RepetitionPlot* plot() const { return m_plot; }
    // What the status bar says about the database ("3 runs in /path/runs.db").
    QString statusText() const;

private:
    void createMenus();
    void chooseDatabase();
    void showSelectedRun();
    void setStatus(const QString& text);

    QString m_path;
    std::optional<data::Database> m_db;
    RunListModel* m_model = nullptr;
    QTableView* m_table = nullptr;
    RepetitionPlot* m_plot = nullptr;
    QLabel* m_status = nullptr;
};

}  // namespace nf::ui
