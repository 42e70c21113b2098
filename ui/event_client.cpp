#include "ui/event_client.h"

#include <QJsonArray>
#include <QJsonDocument>
#include <QJsonObject>

#include <cmath>
#include <limits>

namespace nf::ui {

namespace {

LiveRunInfo runInfo(const QJsonObject& o)
{
    LiveRunInfo info;
    info.runId = o.value(QStringLiteral("run")).toInteger();
    info.db = o.value(QStringLiteral("db")).toString();
    const QJsonObject spec = o.value(QStringLiteral("spec")).toObject();
    info.workload = spec.value(QStringLiteral("workload")).toString();
    info.label = spec.value(QStringLiteral("label")).toString();
    info.repetitions = spec.value(QStringLiteral("repetitions")).toInt();
    info.duration = spec.value(QStringLiteral("duration")).toDouble();
    for (const auto& v : o.value(QStringLiteral("variants")).toArray()) {
        info.variants << v.toObject().value(QStringLiteral("name")).toString();
    }
    const QJsonArray metrics = o.value(QStringLiteral("metrics")).toArray();
    if (!metrics.isEmpty()) {
        const QJsonObject m = metrics.first().toObject();
        info.primaryMetric = m.value(QStringLiteral("name")).toString();
        info.primaryUnit = m.value(QStringLiteral("unit")).toString();
        info.primaryHigherIsBetter = m.value(QStringLiteral("higher_is_better")).toBool();
    }
    for (const auto& line : o.value(QStringLiteral("not_measured")).toArray()) {
        info.notMeasured << line.toString();
    }
    info.simulatedCounters = o.value(QStringLiteral("simulated_counters")).toString();
    const QJsonObject sweep = spec.value(QStringLiteral("sweep")).toObject();
    if (!sweep.isEmpty()) {
        // index is 0-based in the spec; people count from 1.
        info.sweepPoint =
            EventClient::tr("sweep point %1 of %2: %3 = %4")
                .arg(sweep.value(QStringLiteral("index")).toInt() + 1)
                .arg(sweep.value(QStringLiteral("points")).toInt())
                .arg(sweep.value(QStringLiteral("param")).toString(), sweep.value(QStringLiteral("value")).toString());
    }
    return info;
}

std::vector<LiveSample> samples(const QJsonArray& array)
{
    std::vector<LiveSample> out;
    out.reserve(static_cast<std::size_t>(array.size()));
    for (const auto& item : array) {
        const QJsonObject s = item.toObject();
        const QJsonValue primary = s.value(QStringLiteral("primary"));
        out.push_back({s.value(QStringLiteral("variant")).toInt(), s.value(QStringLiteral("repetition")).toInt(),
                       s.value(QStringLiteral("start")).toDouble(), s.value(QStringLiteral("duration")).toDouble(),
                       primary.isDouble() ? primary.toDouble() : std::numeric_limits<double>::quiet_NaN()});
    }
    return out;
}

double numberOrNan(const QJsonObject& o, const char* key)
{
    const QJsonValue v = o.value(QLatin1String(key));
    return v.isDouble() ? v.toDouble() : std::numeric_limits<double>::quiet_NaN();
}

LiveLook look(const QJsonObject& o)
{
    return {.units = o.value(QStringLiteral("units")).toInt(),
            .elapsed = numberOrNan(o, "elapsed"),
            .estimatePct = numberOrNan(o, "estimate_pct"),
            .lowPct = numberOrNan(o, "low_pct"),
            .highPct = numberOrNan(o, "high_pct"),
            .marginPct = numberOrNan(o, "margin_pct"),
            .detectablePct = numberOrNan(o, "detectable_pct"),
            .secondsToDecision = numberOrNan(o, "seconds_to_decision"),
            .secondsLeft = numberOrNan(o, "seconds_left"),
            .decision = o.value(QStringLiteral("decision")).toString()};
}

}  // namespace

EventClient::EventClient(QObject* parent) : QObject(parent)
{
    qRegisterMetaType<nf::ui::LiveRunInfo>();
    qRegisterMetaType<nf::ui::LiveLook>();
}

EventClient::~EventClient()
{
    if (running()) {
        disconnect(m_process, nullptr, this, nullptr);
        m_process->terminate();
        if (!m_process->waitForFinished(3000)) {
            m_process->kill();
            m_process->waitForFinished(1000);
        }
    }
}

bool EventClient::start(const QString& program, const QStringList& args)
{
    if (running()) {
        return false;
    }
    delete m_process;
    m_process = new QProcess(this);
    m_pending.clear();
    m_stderr.clear();
    m_sawFinished = false;
    m_lines = 0;
    connect(m_process, &QProcess::readyReadStandardOutput, this, &EventClient::readStdout);
    connect(m_process, &QProcess::readyReadStandardError, this,
            [this] { m_stderr += QString::fromUtf8(m_process->readAllStandardError()); });
    connect(m_process, &QProcess::finished, this, &EventClient::processFinished);
    connect(m_process, &QProcess::errorOccurred, this, [this](QProcess::ProcessError e) {
        if (e == QProcess::FailedToStart) {
            emit engineFailed(tr("cannot start %1: %2").arg(m_process->program(), m_process->errorString()), m_stderr);
            emit processEnded(-1);
        }
    });
    m_process->start(program, QStringList(args) << QStringLiteral("--events") << QStringLiteral("jsonl"));
    return true;
}

void EventClient::stop()
{
    if (running()) {
        m_process->terminate();
    }
}

void EventClient::closeInput()
{
    if (running()) {
        m_process->closeWriteChannel();
    }
}

bool EventClient::running() const
{
    return m_process != nullptr && m_process->state() != QProcess::NotRunning;
}

void EventClient::readStdout()
{
    feed(m_process->readAllStandardOutput());
}

void EventClient::feed(const QByteArray& bytes)
{
    m_pending += bytes;
    qsizetype from = 0;
    for (qsizetype nl = m_pending.indexOf('\n', from); nl >= 0; nl = m_pending.indexOf('\n', from)) {
        handleLine(m_pending.mid(from, nl - from));
        from = nl + 1;
    }
    m_pending.remove(0, from);
}

void EventClient::handleLine(const QByteArray& line)
{
    if (line.trimmed().isEmpty()) {
        return;
    }
    ++m_lines;
    QJsonParseError parseError{};
    const QJsonDocument doc = QJsonDocument::fromJson(line, &parseError);
    if (!doc.isObject()) {
        emit warning(tr("unreadable event line %1: %2").arg(m_lines).arg(parseError.errorString()));
        return;
    }
    const QJsonObject o = doc.object();
    const QString event = o.value(QStringLiteral("event")).toString();
    if (event == QLatin1String("run_started")) {
        m_partialSeen.clear();
        emit runStarted(runInfo(o));
    } else if (event == QLatin1String("partial_samples")) {
        auto batch = samples(o.value(QStringLiteral("samples")).toArray());
        m_partialSeen[o.value(QStringLiteral("repetition")).toInt()] += static_cast<int>(batch.size());
        emit samplesArrived(batch);
    } else if (event == QLatin1String("samples")) {
        // The repetition's samples repeat those its partial_samples events already brought.
        auto batch = samples(o.value(QStringLiteral("samples")).toArray());
        const auto seen = m_partialSeen.extract(o.value(QStringLiteral("repetition")).toInt());
        if (!seen.empty()) {
            batch.erase(batch.begin(), batch.begin() + std::min<std::ptrdiff_t>(seen.mapped(), std::ssize(batch)));
        }
        emit samplesArrived(batch);
    } else if (event == QLatin1String("look")) {
        emit lookArrived(look(o));
    } else if (event == QLatin1String("repetition_done")) {
        emit repetitionDone(o.value(QStringLiteral("repetition")).toInt(), o.value(QStringLiteral("start")).toDouble(),
                            o.value(QStringLiteral("end")).toDouble());
    } else if (event == QLatin1String("progress")) {
        const QJsonValue left = o.value(QStringLiteral("seconds_left"));
        emit progress(o.value(QStringLiteral("done")).toInt(), o.value(QStringLiteral("total")).toInt(),
                      left.isDouble() ? left.toDouble() : std::nan(""));
    } else if (event == QLatin1String("warning")) {
        emit warning(o.value(QStringLiteral("message")).toString());
    } else if (event == QLatin1String("finished")) {
        m_sawFinished = true;
        emit finished(o.value(QStringLiteral("status")).toString(), o.value(QStringLiteral("reason")).toString());
    } else if (event == QLatin1String("error")) {
        emit error(o.value(QStringLiteral("message")).toString());
    }
}

void EventClient::processFinished(int exitCode, QProcess::ExitStatus status)
{
    feed(m_process->readAllStandardOutput());
    m_stderr += QString::fromUtf8(m_process->readAllStandardError());
    if (!m_pending.isEmpty()) {
        feed("\n");  // a last line without its newline
    }
    if (status == QProcess::CrashExit) {
        emit engineFailed(tr("the engine crashed (%1)").arg(m_process->errorString()), m_stderr);
    } else if (!m_sawFinished) {
        emit engineFailed(tr("the engine exited with status %1 before the run finished").arg(exitCode), m_stderr);
    }
    emit processEnded(status == QProcess::CrashExit ? -1 : exitCode);
}

}  // namespace nf::ui
