#include "ui/run_list_model.h"

#include <QBrush>
#include <QColor>
#include <QDateTime>

#include <algorithm>

namespace nf::ui {

namespace {

QString qs(const std::string& text)
{
    return QString::fromStdString(text);
}

}  // namespace

RunListModel::RunListModel(QObject* parent) : QAbstractTableModel(parent) {}

Result<void> RunListModel::load(data::Database& db)
{
    auto runs = data::listRuns(db);
    if (!runs) {
        clear();
        return runs.error();
    }
    setRuns(std::move(*runs));
    return {};
}

void RunListModel::setRuns(std::vector<engine::RunRow> runs)
{
    beginResetModel();
    m_runs = std::move(runs);
    m_sweepPoints.clear();
    std::map<std::string, int> last;  // highest point index + 1 of each sweep
    for (const auto& run : m_runs) {
        if (!run.sweepId.empty()) {
            ++m_sweepPoints[run.sweepId];
            int& end = last[run.sweepId];
            end = std::max(end, run.sweepIndex + 1);
        }
    }
    for (auto& [id, n] : m_sweepPoints) {
        n = std::max(n, last[id]);
    }
    endResetModel();
}

void RunListModel::clear()
{
    setRuns({});
}

const engine::RunRow* RunListModel::runAt(int row) const
{
    if (row < 0 || row >= static_cast<int>(m_runs.size())) {
        return nullptr;
    }
    return &m_runs[static_cast<std::size_t>(row)];
}

int RunListModel::rowOf(std::int64_t runId) const
{
    for (std::size_t i = 0; i < m_runs.size(); ++i) {
        if (m_runs[i].id == runId) {
            return static_cast<int>(i);
        }
    }
    return -1;
}

int RunListModel::rowCount(const QModelIndex& parent) const
{
    return parent.isValid() ? 0 : static_cast<int>(m_runs.size());
}

int RunListModel::columnCount(const QModelIndex& parent) const
{
    return parent.isValid() ? 0 : ColumnCount;
}

QVariant RunListModel::data(const QModelIndex& index, int role) const
{
    const engine::RunRow* run = index.isValid() ? runAt(index.row()) : nullptr;
    if (run == nullptr) {
        return {};
    }
    const int column = index.column();
    switch (role) {
        case Qt::DisplayRole: return displayText(*run, column);
        case Qt::TextAlignmentRole:
            if (column == Id || column == Variants || column == Reps) {
                return QVariant::fromValue(Qt::AlignRight | Qt::AlignVCenter);
            }
            return QVariant::fromValue(Qt::AlignLeft | Qt::AlignVCenter);
        case Qt::ForegroundRole:
            if (column == Status &&
                (run->status == engine::RunStatus::Failed || run->status == engine::RunStatus::Aborted)) {
                return QBrush(QColor(180, 30, 30));
            }
            return {};
        case Qt::ToolTipRole:
            if (column == Status && !run->statusReason.empty()) {
                return qs(run->statusReason);
            }
            if (column == Started) {
                return qs(run->startedAt) + (run->endedAt.empty() ? QString() : " - " + qs(run->endedAt));
            }
            if (column == Sweep && !run->sweepId.empty()) {
                return tr("sweep %1 (the Explore tab plots it)").arg(qs(run->sweepId));
            }
            if (column == Workload && !run->host.empty()) {
                return QStringLiteral("%1 on %2 (%3)").arg(qs(run->workload), qs(run->host), qs(run->cpuModel));
            }
            return {};
        default: return {};
    }
}

QVariant RunListModel::displayText(const engine::RunRow& run, int column) const
{
    switch (column) {
        case Id: return QVariant::fromValue(static_cast<qlonglong>(run.id));
        case Started: return displayTime(run.startedAt);
        case Status: return qs(std::string(engine::toString(run.status)));
        case Workload: return qs(run.workload);
        case Label: return qs(run.label);
        case Sweep: return sweepText(run);
        case Variants: return run.variants;
        case Reps: return run.repetitions;
        case Kernel: return run.kernel.empty() ? tr("unknown") : qs(run.kernel);  // an import that did not say
        default: return {};
    }
}

QVariant RunListModel::headerData(int section, Qt::Orientation orientation, int role) const
{
    if (orientation != Qt::Horizontal || role != Qt::DisplayRole) {
        return QAbstractTableModel::headerData(section, orientation, role);
    }
    switch (section) {
        case Id: return tr("id");
        case Started: return tr("started");
        case Status: return tr("status");
        case Workload: return tr("workload");
        case Label: return tr("label");
        case Sweep: return tr("sweep point");
        case Variants: return tr("variants");
        case Reps: return tr("reps");
        case Kernel: return tr("kernel");
        default: return {};
    }
}

QString RunListModel::sweepText(const engine::RunRow& run) const
{
    if (run.sweepId.empty()) {
        return {};
    }
    const auto points = m_sweepPoints.find(run.sweepId);
    // The points planned (a stopped sweep stored fewer), else those stored.
    const int stored = points != m_sweepPoints.end() ? points->second : run.sweepIndex + 1;
    const int n = std::max(run.sweepPoints, stored);
    return tr("%1 = %2 (point %3 of %4)").arg(qs(run.sweepParam), qs(run.sweepValue)).arg(run.sweepIndex + 1).arg(n);
}

QString RunListModel::displayTime(const std::string& isoUtc)
{
    const QDateTime time = QDateTime::fromString(qs(isoUtc), Qt::ISODate);
    if (!time.isValid()) {
        return qs(isoUtc);
    }
    return time.toLocalTime().toString(QStringLiteral("yyyy-MM-dd HH:mm:ss"));
}

}  // namespace nf::ui
