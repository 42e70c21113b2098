#include "ui/remote_engine.h"

#include <QFileInfo>
#include <QRegularExpression>
#include <QTimer>

#include "engine/report/evidence_context.h"
#include "nf_version.h"
#include "ui/engine_program.h"

namespace nf::ui {

namespace {

constexpr int kAttempts = 10;   // a run still being recorded there: asked for again this often
constexpr int kRetryMs = 1000;  // ... this far apart

QString quoted(const QString& word)
{
    return QString::fromStdString(engine::shellQuote(word.toStdString()));
}

}  // namespace

QString reasonOf(QProcess* p, const QString& fallback)
{
    const QStringList lines = QString::fromUtf8(p->readAllStandardError()).split('\n', Qt::SkipEmptyParts);
    return lines.isEmpty() ? fallback : lines.last().trimmed();
}

RemoteEngine::RemoteEngine(RemoteHost host, QObject* parent)
    : QObject(parent), m_host(std::move(host)), m_retry(new QTimer(this))
{
    m_retry->setSingleShot(true);
    m_retry->setInterval(kRetryMs);
    connect(m_retry, &QTimer::timeout, this, &RemoteEngine::startExport);
}

RemoteEngine::~RemoteEngine()
{
    if (m_process != nullptr && m_process->state() != QProcess::NotRunning) {
        m_process->kill();
        m_process->waitForFinished(2000);
    }
}

QStringList RemoteEngine::arguments(const QStringList& engineArgs) const
{
    // A link that stalls without closing ends ssh within 15 s, and with it the run (its stdin).
    QStringList args{QStringLiteral("-o"), QStringLiteral("BatchMode=yes"),
                     QStringLiteral("-o"), QStringLiteral("ConnectTimeout=10"),
                     QStringLiteral("-o"), QStringLiteral("ServerAliveInterval=5"),
                     QStringLiteral("-o"), QStringLiteral("ServerAliveCountMax=3")};
    if (!m_host.sshConfig.isEmpty()) {
        args << QStringLiteral("-F") << m_host.sshConfig;
    }
    args << m_host.dest << QStringLiteral("--") << QStringLiteral("noisefloor") << QStringLiteral("--expect-version")
         << quoted(QStringLiteral(NF_VERSION));
    for (const auto& a : engineArgs) {
        args << quoted(a);
    }
    return args;
}

void RemoteEngine::fetch(const QString& remoteDb, qint64 remoteRun, const QString& localDb)
{
    m_queue.push_back({remoteDb, remoteRun, localDb});
    if (m_current == nullptr) {
        next();
    }
}

QString RemoteEngine::file() const
{
    return m_dir.filePath(QStringLiteral("run-%1.db").arg(m_current->remoteRun));
}

void RemoteEngine::next()
{
    if (m_queue.empty()) {
        m_current.reset();
        emit idle();
        return;
    }
    m_current = std::make_unique<Fetch>(m_queue.front());
    m_queue.pop_front();
    startExport();
}

void RemoteEngine::startExport()
{
    if (!m_dir.isValid()) {
        fail(tr("cannot make a temporary directory for the copy"));
        return;
    }
    QFile::remove(file());
    if (m_process != nullptr) {
        m_process->deleteLater();  // this may run inside one of its signals
    }
    m_process = new QProcess(this);
    m_process->setStandardOutputFile(file());
    connect(m_process, &QProcess::finished, this, &RemoteEngine::exported);
    connect(m_process, &QProcess::errorOccurred, this, [this](QProcess::ProcessError e) {
        if (e == QProcess::FailedToStart) {
            fail(tr("cannot start ssh (install openssh-client)"));
        }
    });
    QStringList args{QStringLiteral("--db"),     m_current->remoteDb,
                     QStringLiteral("export"),   QString::number(m_current->remoteRun),
                     QStringLiteral("--format"), QStringLiteral("sqlite")};
    m_process->start(QStringLiteral("ssh"), arguments(args));
}

void RemoteEngine::exported(int exitCode, QProcess::ExitStatus status)
{
    if (status != QProcess::NormalExit || exitCode != 0 || QFileInfo(file()).size() == 0) {
        fail(tr("copying run %1 from %2 failed: %3")
                 .arg(m_current->remoteRun)
                 .arg(m_host.dest, reasonOf(m_process, tr("ssh exited with status %1").arg(exitCode))));
        return;
    }
    auto* merge = new QProcess(this);
    QProcess* previous = m_process;
    m_process = merge;
    previous->deleteLater();
    connect(merge, &QProcess::finished, this, &RemoteEngine::merged);
    connect(merge, &QProcess::errorOccurred, this, [this](QProcess::ProcessError e) {
        if (e == QProcess::FailedToStart) {
            fail(tr("cannot start %1 to store the run here").arg(engineProgram()));
        }
    });
    merge->start(engineProgram(), {QStringLiteral("--db"), m_current->localDb, QStringLiteral("merge"), file(),
                                   QStringLiteral("--origin"), m_host.dest + ':' + m_current->remoteDb});
}

void RemoteEngine::merged(int exitCode, QProcess::ExitStatus status)
{
    const QString out = QString::fromUtf8(m_process->readAllStandardOutput());
    if (status != QProcess::NormalExit || exitCode != 0) {
        fail(tr("storing run %1 of %2 here failed: %3")
                 .arg(m_current->remoteRun)
                 .arg(m_host.dest, reasonOf(m_process, tr("noisefloor merge exited with status %1").arg(exitCode))));
        return;
    }
    // "run 1 of FILE merged as run 12", or "... not merged: already here as run 12"
    static const QRegularExpression asRun(QStringLiteral("(?:merged as|already here as) run (\\d+)"));
    const auto m = asRun.match(out);
    QFile::remove(file());
    if (!m.hasMatch() && out.contains(QStringLiteral("still running there")) && m_current->attempts < kAttempts) {
        // The stream ended (ssh dropped, or was ended) before the host finished recording the run.
        ++m_current->attempts;
        m_retry->start();
        return;
    }
    if (!m.hasMatch()) {
        fail(tr("run %1 of %2 was not copied here: %3")
                 .arg(m_current->remoteRun)
                 .arg(m_host.dest, out.section(QStringLiteral(": "), -1).trimmed()));
        return;
    }
    const qint64 remote = m_current->remoteRun;
    emit fetched(remote, m.captured(1).toLongLong(),
                 out.contains(QStringLiteral("already here")) ? tr("already here") : QString());
    next();
}

void RemoteEngine::fail(const QString& message)
{
    const qint64 remote = m_current != nullptr ? m_current->remoteRun : 0;
    if (m_current != nullptr) {
        QFile::remove(file());
    }
    emit fetchFailed(remote, message);
    next();
}

}  // namespace nf::ui
