#pragma once
// The workloads the engine offers, as `noisefloor workloads --format json` describes them, and a
// check of one parameter value against its spec (type and range) for the editor.

#include <QJsonArray>
#include <QString>
#include <QStringList>

#include <vector>

namespace nf::ui {

struct ParamInfo {
    QString name;
    QString type;  // int, real, choice, text
    QString defaultValue;
    QString description;
    QString unit;
    double min = 0;
    double max = 0;
    QStringList choices;

    // "" when `value` is acceptable, else why not ("out of range 1..1000000").
    QString check(const QString& value) const;
    QString rangeText() const;
};

struct WorkloadInfoView {
    QString name;
    QString summary;
    QString description;
    QString primaryMetric;
    std::vector<ParamInfo> params;
    const ParamInfo* param(const QString& paramName) const;
};

std::vector<WorkloadInfoView> parseWorkloads(const QJsonArray& json);

// Runs `program workloads --format json`; on failure returns nothing and sets `error`.
std::vector<WorkloadInfoView> loadWorkloads(const QString& program, QString* error);

// The `noisefloor` binary the GUI drives: $NOISEFLOOR_BIN, else the one next to this program,
// else `noisefloor` on the PATH.
QString engineProgram();

// One logical CPU with its core and SMT siblings, as /sys describes them.
struct CpuInfo {
    int cpu = 0;
    int core = -1;
    int package = -1;
    QString siblings;  // thread_siblings_list, e.g. "0,4"
};
std::vector<CpuInfo> readCpuTopology(const QString& sysRoot = QStringLiteral("/sys/devices/system/cpu"));

}  // namespace nf::ui
