#include "ui/run_controller.h"

#include <QTimer>

#include "ui/event_client.h"
#include "ui/experiment_editor.h"
#include "ui/experiment_request.h"
#include "ui/live_panel.h"
#include "ui/retry_when_free.h"

namespace nf::ui {

namespace {

constexpr int kRemoteStopGraceMs = 15000;  // Stop on a remote run: how long before ssh is ended

}  // namespace

RunController::RunController(ExperimentEditor* editor, LivePanel* live, LocalEngine local, QObject* parent)
    : QObject(parent), m_editor(editor), m_live(live), m_local(local), m_client(new EventClient(this))
{
    m_live->attach(m_client);
    connect(m_client, &EventClient::processEnded, this, [this] {
        m_editor->setRunning(false);
        m_live->setRunning(false);
        onEngineEnded();
        offerRetry();
    });
    connect(m_client, &EventClient::error, this, [this](const QString& message) {
        if (!RetryWhenFree::heldBy(message).isEmpty()) {
            m_cpuRefusal = message;
        }
    });
    connect(m_live->retryRow(), &RetryWhenFree::retry, this, [this](const QStringList& arguments) {
        if (!m_client->running()) {
            m_retried = true;
            launch(arguments, m_lastSweep);
        }
    });
    connect(m_live, &LivePanel::runEnded, this, &RunController::onRunEnded);
    if (m_local == LocalEngine::NotBuilt) {
        m_editor->refuseRuns(notBuiltToMeasure());
    }
}

void RunController::setDatabase(const QString& path)
{
    m_database = path;
    if (m_remote == nullptr) {
        m_editor->setDatabase(path);  // the command shown is the one run
    }
}

bool RunController::startRun()
{
    if (m_client->running() || !m_editor->runEnabled() || (m_remote == nullptr && m_local == LocalEngine::NotBuilt)) {
        return false;
    }
    m_retried = false;
    launch(m_editor->arguments(m_remote != nullptr ? QString() : m_database), m_editor->isSweep());
    return true;
}

void RunController::launch(const QStringList& arguments, bool sweep)
{
    m_arguments = arguments;
    m_lastSweep = sweep;
    m_cpuRefusal.clear();
    m_live->retryRow()->withdraw();
    if (m_remoteStopGrace != nullptr) {
        m_remoteStopGrace->stop();  // a late Stop of the previous run must not end this one
    }
    m_live->starting();
    m_since.start();
    m_editor->setRunning(true);
    m_ownRun = true;
    m_sweepRun = sweep;
    if (m_remote != nullptr) {  // into the host's own database; copied here when it ends
        m_remoteDb.clear();
        m_client->start(QStringLiteral("ssh"),
                        m_remote->arguments(QStringList(arguments) << QStringLiteral("--stop-when-stdin-closes")));
        emit status(tr("running on %1: %2").arg(m_remote->host().dest, commandLine(arguments)));
    } else {
        m_client->start(engineProgram(), arguments);
        emit status(tr("running: %1").arg(commandLine(arguments)));
    }
    emit started();
}

void RunController::offerRetry()
{
    if (m_cpuRefusal.isEmpty() || m_arguments.isEmpty()) {
        return;
    }
    // Asked where the run would go: this machine's engine, or the host's through ssh.
    m_live->retryRow()->offer(m_arguments, m_cpuRefusal, [this](const QStringList& arguments) {
        return m_remote != nullptr ? std::pair{QStringLiteral("ssh"), m_remote->arguments(arguments)}
                                   : std::pair{engineProgram(), arguments};
    });
    m_cpuRefusal.clear();
    if (m_retried) {  // taken in between by yet another run: wait again
        m_live->retryRow()->wait();
    }
}

void RunController::stopRun()
{
    if (m_remote == nullptr) {
        m_client->stop();
        return;
    }
    // A signal would end ssh, not the run behind it: the run stops when its stdin closes, says so
    // and is copied here. Should the host not answer, ssh itself is ended.
    m_client->closeInput();
    m_remoteStopGrace->start();
}

void RunController::setRemoteHost(const RemoteHost& host)
{
    if (m_remote == nullptr) {
        connect(m_client, &EventClient::runStarted, this, [this](const LiveRunInfo& info) { m_remoteDb = info.db; });
    }
    delete m_remote;
    m_remote = new RemoteEngine(host, this);
    m_editor->setDatabase(QString());  // the host's own database
    if (m_remoteStopGrace == nullptr) {
        m_remoteStopGrace = new QTimer(this);
        m_remoteStopGrace->setSingleShot(true);
        m_remoteStopGrace->setInterval(kRemoteStopGraceMs);
        connect(m_remoteStopGrace, &QTimer::timeout, m_client, &EventClient::stop);
    }
    connect(m_remote, &RemoteEngine::fetched, this, &RunController::onFetched);
    connect(m_remote, &RemoteEngine::fetchFailed, this,
            [this](qint64, const QString& message) { emit status(message); });
    connect(m_remote, &RemoteEngine::idle, this, [this] {
        if (m_sweepRun && !m_client->running()) {
            onEngineEnded();
        }
    });
    if (m_local == LocalEngine::NotBuilt) {
        m_editor->refuseRuns(QString());  // the host measures
    }
}

bool RunController::running() const
{
    return m_client->running();
}

qint64 RunController::runningMs() const
{
    return m_client->running() && m_since.isValid() ? m_since.elapsed() : 0;
}

void RunController::onRunEnded(qint64 runId, const QString& runStatus)
{
    if (m_remote != nullptr && m_ownRun && runId > 0 && !m_remoteDb.isEmpty()) {
        m_remote->fetch(m_remoteDb, runId, m_database);
        emit status(tr("run %1 %2 on %3: copying it here").arg(runId).arg(runStatus, m_remote->host().dest));
        m_ownRun = m_sweepRun;  // a sweep's later points still come
        return;
    }
    if (!m_ownRun || m_sweepRun) {
        return;  // a replayed stream (its run lives in another database), or a sweep point
    }
    m_ownRun = false;
    emit runStored(runId, runStatus);
}

void RunController::onEngineEnded()
{
    if (!m_ownRun || !m_sweepRun || (m_remote != nullptr && m_remote->busy())) {
        return;  // a remote sweep: shown once its runs are copied (RemoteEngine::idle)
    }
    m_ownRun = false;
    m_sweepRun = false;
    emit sweepStored();
}

void RunController::onFetched(qint64 remoteRun, qint64 localRun, const QString& note)
{
    emit runCopied(localRun, m_sweepRun);
    const QString& dest = m_remote->host().dest;
    emit status(note.isEmpty() ? tr("run %1 on %2 copied here as run %3").arg(remoteRun).arg(dest).arg(localRun)
                               : tr("run %1 on %2: %3 as run %4").arg(remoteRun).arg(dest, note).arg(localRun));
}

}  // namespace nf::ui
