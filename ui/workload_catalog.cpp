#include "workload_catalog.h"

#include <QCoreApplication>
#include <QDir>
#include <QFile>
#include <QFileInfo>
#include <QJsonDocument>
#include <QJsonObject>
#include <QProcess>
#include <QRegularExpression>

#include <cmath>

namespace nf::ui {

namespace {

QString readTrimmed(const QString& path)
{
    QFile f(path);
    if (!f.open(QIODevice::ReadOnly)) {
        return {};
    }
    return QString::fromUtf8(f.readAll()).trimmed();
}

QString number(double v)
{
    return QString::number(v, 'g', 12);
}

}  // namespace

QString ParamInfo::rangeText() const
{
    if (type == QLatin1String("choice")) {
        return choices.join('|');
    }
    if (type == QLatin1String("int") || type == QLatin1String("real")) {
        return number(min) + QStringLiteral("..") + number(max);
    }
    return {};
}

QString ParamInfo::check(const QString& value) const
{
    const QString v = value.trimmed();
    if (v.isEmpty()) {
        return QObject::tr("empty");
    }
    if (type == QLatin1String("choice")) {
        return choices.contains(v) ? QString() : QObject::tr("'%1' is not one of %2").arg(v, rangeText());
    }
    if (type == QLatin1String("int") || type == QLatin1String("real")) {
        bool ok = false;
        const double x = type == QLatin1String("int") ? static_cast<double>(v.toLongLong(&ok)) : v.toDouble(&ok);
        if (!ok || !std::isfinite(x)) {
            return QObject::tr("'%1' is not %2")
                .arg(v, type == QLatin1String("int") ? QObject::tr("an integer") : QObject::tr("a number"));
        }
        if (x < min || x > max) {
            return QObject::tr("%1 is out of range %2").arg(v, rangeText());
        }
    }
    return {};
}

const ParamInfo* WorkloadInfoView::param(const QString& paramName) const
{
    for (const auto& p : params) {
        if (p.name == paramName) {
            return &p;
        }
    }
    return nullptr;
}

std::vector<WorkloadInfoView> parseWorkloads(const QJsonArray& json)
{
    std::vector<WorkloadInfoView> out;
    for (const auto& item : json) {
        const QJsonObject w = item.toObject();
        WorkloadInfoView view{w.value("name").toString(),
                              w.value("summary").toString(),
                              w.value("description").toString(),
                              w.value("primary_metric").toString(),
                              {}};
        for (const auto& p : w.value("params").toArray()) {
            const QJsonObject o = p.toObject();
            ParamInfo info;
            info.name = o.value("name").toString();
            info.type = o.value("type").toString();
            info.defaultValue = o.value("default").toVariant().toString();
            info.description = o.value("description").toString();
            info.unit = o.value("unit").toString();
            info.min = o.value("min").toDouble();
            info.max = o.value("max").toDouble();
            for (const auto& c : o.value("choices").toArray()) {
                info.choices << c.toString();
            }
            view.params.push_back(std::move(info));
        }
        out.push_back(std::move(view));
    }
    return out;
}

std::vector<WorkloadInfoView> loadWorkloads(const QString& program, QString* error)
{
    QProcess process;
    process.start(program, {QStringLiteral("workloads"), QStringLiteral("--format"), QStringLiteral("json")});
    if (!process.waitForFinished(15000) || process.exitStatus() != QProcess::NormalExit || process.exitCode() != 0) {
        if (error != nullptr) {
            *error =
                QObject::tr("cannot list workloads with %1: %2 %3")
                    .arg(program, process.errorString(), QString::fromUtf8(process.readAllStandardError()).trimmed());
        }
        return {};
    }
    QJsonParseError parseError{};
    const auto doc = QJsonDocument::fromJson(process.readAllStandardOutput(), &parseError);
    if (!doc.isArray()) {
        if (error != nullptr) {
            *error = QObject::tr("unreadable workload list: %1").arg(parseError.errorString());
        }
        return {};
    }
    return parseWorkloads(doc.array());
}

QString engineProgram()
{
    QString fromEnv = qEnvironmentVariable("NOISEFLOOR_BIN");
    if (!fromEnv.isEmpty()) {
        return fromEnv;
    }
    QString beside = QDir(QCoreApplication::applicationDirPath()).filePath(QStringLiteral("noisefloor"));
    if (QFileInfo(beside).isExecutable()) {
        return beside;
    }
    return QStringLiteral("noisefloor");
}

std::vector<CpuInfo> readCpuTopology(const QString& sysRoot)
{
    std::vector<CpuInfo> out;
    const QDir root(sysRoot);
    static const QRegularExpression cpuName(QStringLiteral("^cpu(\\d+)$"));
    for (const auto& entry : root.entryList(QDir::Dirs)) {
        const auto match = cpuName.match(entry);
        if (!match.hasMatch()) {
            continue;
        }
        const QString topo = root.filePath(entry + QStringLiteral("/topology/"));
        CpuInfo info;
        info.cpu = match.captured(1).toInt();
        bool ok = false;
        info.core = readTrimmed(topo + QStringLiteral("core_id")).toInt(&ok);
        info.core = ok ? info.core : -1;
        info.package = readTrimmed(topo + QStringLiteral("physical_package_id")).toInt(&ok);
        info.package = ok ? info.package : -1;
        info.siblings = readTrimmed(topo + QStringLiteral("thread_siblings_list"));
        out.push_back(info);
    }
    std::sort(out.begin(), out.end(), [](const CpuInfo& a, const CpuInfo& b) { return a.cpu < b.cpu; });
    return out;
}

}  // namespace nf::ui
