#pragma once
// Starting, following and stopping the experiment the Experiment tab describes: on this machine
// (the engine as a child process, writing the window's database) or on another host (--host: the
// engine there through ssh, writing the host's database, each run it finishes copied here by
// RemoteEngine). The Live tab follows the engine's events; this object says what has arrived in
// the database, and the window shows it. A run refused because another run measures on its CPUs is
// offered "Retry when free" on the Live tab (ui/retry_when_free.h): the same arguments, started
// again once the engine says the CPUs are free.

#include <QElapsedTimer>
#include <QObject>
#include <QString>

#include "ui/engine_program.h"
#include "ui/remote_engine.h"

class QTimer;

namespace nf::ui {

class EventClient;
class ExperimentEditor;
class LivePanel;

class RunController : public QObject {
    Q_OBJECT

public:
    // Runs what `editor` describes, followed in `live`. With LocalEngine::NotBuilt no run starts on
    // this machine: the editor says why and keeps Run disabled until setRemoteHost().
    RunController(ExperimentEditor* editor, LivePanel* live, LocalEngine local, QObject* parent = nullptr);

    // The database a local run writes and a remote run is copied into.
    void setDatabase(const QString& path);

    // Starts the experiment; false when its input is invalid, a run is going, or this machine
    // cannot run it.
    bool startRun();
    void stopRun();
    // From here on runs go to `host` over ssh and each finished run is copied into the database.
    void setRemoteHost(const RemoteHost& host);

    bool running() const;
    // How long the run this window started has been going (0 when none is).
    qint64 runningMs() const;
    EventClient* eventClient() const { return m_client; }
    RemoteEngine* remoteEngine() const { return m_remote; }

signals:
    void started();  // the engine was started: the Live tab follows it
    void status(const QString& text);
    // A run this window started on this machine ended: it is run `runId` of the database.
    void runStored(qint64 runId, const QString& runStatus);
    // A run on the host was copied here as run `localRun` (0 when the copy added none); `ofSweep`
    // when it is a point of a sweep this window started.
    void runCopied(qint64 localRun, bool ofSweep);
    // Every point of a sweep this window started is in the database.
    void sweepStored();

private:
    void onRunEnded(qint64 runId, const QString& runStatus);
    void onEngineEnded();
    void onFetched(qint64 remoteRun, qint64 localRun, const QString& note);
    // Starts the engine with `arguments` (`noisefloor` arguments of a design, [--db DB] run ...).
    void launch(const QStringList& arguments, bool sweep);
    // The engine ended: offers to retry a run refused for CPUs in use.
    void offerRetry();

    ExperimentEditor* m_editor;
    LivePanel* m_live;
    LocalEngine m_local;
    EventClient* m_client;
    QString m_database;
    bool m_ownRun = false;                // the Live tab follows a run this window started
    bool m_sweepRun = false;              // ... and it is a sweep: shown when the engine ends
    RemoteEngine* m_remote = nullptr;     // runs go to another host (--host), else nullptr
    QString m_remoteDb;                   // that host's database, as its run_started said
    QTimer* m_remoteStopGrace = nullptr;  // Stop on a remote run: ends ssh if the run does not end
    QElapsedTimer m_since;                // since the engine was started
    QStringList m_arguments;              // of the run last started, for "Retry when free"
    bool m_lastSweep = false;             // ... and whether it is a sweep
    QString m_cpuRefusal;                 // its refusal for CPUs another run measures on; "" = none
    bool m_retried = false;               // it was started by "Retry when free"
};

}  // namespace nf::ui
