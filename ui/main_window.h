#pragma once
// The main window: tabs for designing a run (Experiment), watching it (Live), comparing variants
// (Compare), exploring a sweep (Explore), browsing and picking runs (History) and the machine's
// fitness (Environment); menus for the database, the run and the exports. It wires the pieces
// together and keeps what they show of its database: runs start and end through RunController (the
// engine in its own process, here or on --host), the exports through CompareExports, stored runs
// load through RunLoader (off the GUI thread), statistics through nf::engine's analysis.

#include <QMainWindow>

#include <cstdint>
#include <memory>
#include <optional>
#include <vector>

#include "ui/engine_program.h"
#include "ui/history_panel.h"
#include "ui/remote_engine.h"
#include "ui/run_loader.h"
#include "ui/store.h"

class QLabel;
class QTabWidget;
class QTableView;
class QTimer;

namespace nf::ui {

class CompareExports;
class ComparePanel;
class EnvironmentPanel;
class EventClient;
class ExperimentEditor;
class ExplorePanel;
class LivePanel;
class RepetitionPlot;
class RemoteCpus;
class RunController;
class RunListModel;
class StartPage;

class MainWindow : public QMainWindow {
    Q_OBJECT

public:
    // Opens `databasePath` read-only (one connection for the whole window, ui/store.h) and selects
    // the newest run; commits by other processes are noticed within half a second. A missing or unreadable database
    // is reported in the status bar, never in a dialog. The machine check comes from the engine
    // (`noisefloor check`). With LocalEngine::NotBuilt (a build with -DNF_MEASURE=OFF, the default
    // there) nothing runs or is checked on this machine, and the Experiment and Environment tabs say
    // so; runs go to a host given to setRemoteHost().
    explicit MainWindow(const QString& databasePath, LocalEngine local = kLocalEngine, QWidget* parent = nullptr);
    ~MainWindow() override;

    // Switches to another database file; false (and a status message) when it cannot be read.
    bool openDatabase(const QString& path);
    // Re-reads the run list, keeping the selected runs when they still exist.
    void reload();
    // Selects the run with this id and compares its variants; false when it is not in the list.
    bool selectRun(std::int64_t runId);
    // Selects the first row: the newest run.
    void selectNewestRun();
    // Loads run `runId`'s design into the Experiment tab and shows it (History's "Run this again");
    // the status bar names what the form could not carry over. false when the run cannot be read.
    bool loadDesignOf(std::int64_t runId);
    // With `on`, the Experiment form's design is remembered whenever a run starts (QSettings of
    // "noisefloor"/"noisefloor-gui", an ini file) and the remembered one is put in the form now. Off
    // by default: tests and --screenshot show the form's defaults and leave the settings alone.
    void setRememberDesign(bool on);
    // Compares runs (or single variants of runs) against each other.
    bool compare(const RunSelection& selection);
    // The margin, alpha and outlier rule Compare uses from now on, as if set in its boxes (the
    // baseline of `settings` is not used: each selection starts from its first variant).
    void setCompareSettings(const CompareSettings& settings);
    // Shows sweep `id` in the Explore tab; false when the database has no such sweep.
    bool showSweep(const QString& id);
    // Shows the tab named (case-insensitively) experiment, live, compare, explore, history or
    // environment.
    bool showTab(const QString& name);
    static QStringList tabNames();
    // Waits for loads and checks in flight, then renders the window into an image file.
    bool saveScreenshot(const QString& file);
    // Blocks until the loads in flight have been delivered.
    void waitForLoads();

    // Starts the experiment the editor describes (RunController); false when its input is invalid, a
    // run is going or this machine cannot run it.
    bool startRun();
    // Stops the run at once (as a SIGTERM to the engine would).
    void stopRun();
    // Stop as the window offers it (the Stop buttons, Run > Stop, Esc): a run that has gone on
    // longer than confirmStopAfterMs() asks first; false when it goes on.
    bool requestStop();
    void setConfirmStopAfterMs(qint64 ms) { m_confirmStopAfterMs = ms; }
    qint64 confirmStopAfterMs() const { return m_confirmStopAfterMs; }
    // Whether Esc pressed now stops the run: not while the focus is in an editor (a filter field, a
    // spin box, a drop-down, a list), a popup is open or a dialog is in front of the window.
    bool escapeStops() const;
    // From here on runs go to `host` over ssh (noisefloor-gui --host) and each finished run is
    // copied into this window's database (ui/remote_engine.h).
    void setRemoteHost(const RemoteHost& host);
    RemoteEngine* remoteEngine() const;

    const QString& databasePath() const { return m_path; }
    RunListModel* runModel() const { return m_model; }
    QTableView* runTable() const;
    RepetitionPlot* plot() const;
    HistoryPanel* history() const { return m_history; }
    ComparePanel* comparePanel() const { return m_compare; }
    LivePanel* livePanel() const { return m_live; }
    ExperimentEditor* editor() const { return m_editor; }
    EnvironmentPanel* environmentPanel() const { return m_environment; }
    ExplorePanel* explorePanel() const { return m_explore; }
    EventClient* eventClient() const;
    RunController* runController() const { return m_runs; }
    RunLoader* loader() const { return m_loader; }
    QTabWidget* tabs() const { return m_tabs; }
    // What the status bar says ("3 runs in /path/runs.db").
    QString statusText() const;

protected:
    void keyPressEvent(QKeyEvent* event) override;

private:
    void createMenus();
    void chooseDatabase();
    void setStatus(const QString& text);
    void showStartPage(const QString& path);
    void hideStartPage();
    void pollDatabase();
    void requestLoad(const RunSelection& selection);
    void onLoaded(std::uint64_t generation, const LoadedRuns& result);
    // What RunController says has arrived in the database.
    void showStoredRun(qint64 runId, const QString& runStatus);
    void showCopiedRun(qint64 localRun, bool ofSweep);
    void showNewestSweep();

    QString m_path;
    std::shared_ptr<Store> m_store;  // the process's only connection to m_path
    std::optional<std::int64_t> m_dataVersion;
    RunListModel* m_model = nullptr;
    QTabWidget* m_tabs = nullptr;
    ExperimentEditor* m_editor = nullptr;
    LivePanel* m_live = nullptr;
    ComparePanel* m_compare = nullptr;
    HistoryPanel* m_history = nullptr;
    EnvironmentPanel* m_environment = nullptr;
    ExplorePanel* m_explore = nullptr;
    RunController* m_runs = nullptr;
    RemoteCpus* m_remoteCpus = nullptr;  // the host's CPUs, for the Experiment tab (--host)
    CompareExports* m_exports = nullptr;
    RunLoader* m_loader = nullptr;
    QTimer* m_poll = nullptr;  // watches m_store's data_version
    QLabel* m_status = nullptr;
    bool m_rememberDesign = false;        // setRememberDesign()
    qint64 m_confirmStopAfterMs = 60000;  // a run this long asks before Stop ends it
    StartPage* m_start = nullptr;         // while there is no database
    RunSelection m_selection;             // what the Compare tab shows
    CompareSettings m_settings;  // chosen in Compare: baseline ("" = the first selected), margin, alpha, outliers
    std::vector<std::shared_ptr<const engine::RunRecord>> m_loaded;  // its runs
};

}  // namespace nf::ui
