#pragma once
// `noisefloor-gui --host DEST`: the engine runs on the device under test, reached with the real
// ssh client (BatchMode: the user's keys and ssh config, never a password prompt), while this app
// stays an unprivileged reader on the engineer's machine. A run streams its events back through
// ssh (`noisefloor --expect-version V run ... --events jsonl` on DEST, into DEST's own database);
// when it ends, each run is exported there as a one-run database over ssh and merged here by the
// local `noisefloor merge` (the app never writes its database itself: ui/store.h).

#include <QObject>
#include <QProcess>
#include <QString>
#include <QStringList>
#include <QTemporaryDir>

class QTimer;

#include <deque>
#include <memory>

namespace nf::ui {

struct RemoteHost {
    QString dest;       // what ssh accepts: user@host, or a Host alias of the ssh config
    QString sshConfig;  // ssh -F FILE; "" = the user's own
};

class RemoteEngine : public QObject {
    Q_OBJECT

public:
    explicit RemoteEngine(RemoteHost host, QObject* parent = nullptr);
    ~RemoteEngine() override;

    const RemoteHost& host() const { return m_host; }
    // ssh's arguments that run `noisefloor --expect-version THIS engineArgs...` on the host: every
    // word shell-quoted for the remote shell, so a value with spaces stays one argument.
    QStringList arguments(const QStringList& engineArgs) const;

    // Copies run `remoteRun` of the host's database `remoteDb` into `localDb`; queued after any
    // copy still going. fetched() or fetchFailed() follows, on the event loop.
    void fetch(const QString& remoteDb, qint64 remoteRun, const QString& localDb);
    bool busy() const { return m_current != nullptr || !m_queue.empty(); }

signals:
    void fetched(qint64 remoteRun, qint64 localRun, const QString& note);
    void fetchFailed(qint64 remoteRun, const QString& message);
    void idle();  // the queue is empty again

private:
    struct Fetch {
        QString remoteDb;
        qint64 remoteRun = 0;
        QString localDb;
        int attempts = 0;
    };
    void next();
    void startExport();
    void exported(int exitCode, QProcess::ExitStatus status);
    void merged(int exitCode, QProcess::ExitStatus status);
    void fail(const QString& message);
    QString file() const;

    RemoteHost m_host;
    QTemporaryDir m_dir;  // the exported run databases, until merged
    std::deque<Fetch> m_queue;
    std::unique_ptr<Fetch> m_current;
    QProcess* m_process = nullptr;
    QTimer* m_retry = nullptr;
};

// The last non-empty line of a finished process's stderr (the engine's and ssh's one-line reason),
// `fallback` when it wrote none. Reads the stderr it has not read yet.
QString reasonOf(QProcess* p, const QString& fallback);

}  // namespace nf::ui
