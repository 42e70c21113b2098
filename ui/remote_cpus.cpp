#include "ui/remote_cpus.h"

#include <QJsonArray>
#include <QJsonDocument>
#include <QJsonObject>
#include <QProcess>

#include "ui/remote_engine.h"

namespace nf::ui {

namespace {

std::vector<int> cpuList(const QJsonObject& o, const char* key, bool& ok)
{
    bool parsed = true;
    auto cpus = base::parseCpuList(o.value(QLatin1String(key)).toString().toStdString(), &parsed);
    ok = ok && parsed && o.value(QLatin1String(key)).isString();
    return cpus;
}

}  // namespace

bool cpuFactsFromJson(const QByteArray& json, base::SystemFacts& facts, QString& error)
{
    const QJsonObject o = QJsonDocument::fromJson(json).object();
    bool ok = o.value(QLatin1String("cpus")).isArray();
    base::SystemFacts read;
    read.onlineCpus = cpuList(o, "online", ok);
    read.allowedCpus = cpuList(o, "allowed", ok);
    for (const auto& item : o.value(QLatin1String("cpus")).toArray()) {
        const QJsonObject c = item.toObject();
        bool siblingsOk = true;
        read.cpus.push_back({.id = c.value(QLatin1String("id")).toInt(-1),
                             .core = c.value(QLatin1String("core")).toInt(-1),
                             .package = c.value(QLatin1String("package")).toInt(-1),
                             .siblings = cpuList(c, "siblings", siblingsOk),
                             .governor = {}});
        ok = ok && read.cpus.back().id >= 0;
    }
    if (!ok || read.cpus.empty()) {
        error = QObject::tr("not the CPU list of `noisefloor check --cpus`");
        return false;
    }
    facts = std::move(read);
    return true;
}

RemoteCpus::~RemoteCpus()
{
    if (m_process != nullptr && m_process->state() != QProcess::NotRunning) {
        m_process->disconnect(this);  // its end, which kill() signals at once, is no answer
        m_process->kill();
        m_process->waitForFinished(2000);
    }
}

void RemoteCpus::ask(const RemoteEngine& remote)
{
    if (m_process != nullptr) {
        m_process->disconnect(this);
        m_process->kill();
        m_process->waitForFinished(2000);
        m_process->deleteLater();
    }
    m_process = new QProcess(this);
    auto* process = m_process;
    connect(process, &QProcess::finished, this, [this, process](int code, QProcess::ExitStatus status) {
        base::SystemFacts facts;
        QString error;
        if (status == QProcess::NormalExit && code == 0 &&
            cpuFactsFromJson(process->readAllStandardOutput(), facts, error)) {
            emit answered(facts);
            return;
        }
        emit failed(reasonOf(process, error.isEmpty() ? tr("ssh ended with status %1").arg(code) : error));
    });
    connect(process, &QProcess::errorOccurred, this, [this, process](QProcess::ProcessError e) {
        if (e == QProcess::FailedToStart) {
            emit failed(tr("cannot start ssh: %1").arg(process->errorString()));
        }
    });
    process->start(QStringLiteral("ssh"), remote.arguments({QStringLiteral("check"), QStringLiteral("--cpus"),
                                                            QStringLiteral("--format"), QStringLiteral("json")}));
}

}  // namespace nf::ui
