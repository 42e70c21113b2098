#include "ui/history_panel.h"

#include <algorithm>

#include <QAction>
#include <QFont>
#include <QHBoxLayout>
#include <QHeaderView>
#include <QItemSelectionModel>
#include <QKeyEvent>
#include <QLabel>
#include <QLineEdit>
#include <QListWidget>
#include <QPushButton>
#include <QScrollBar>
#include <QSignalBlocker>
#include <QSplitter>
#include <QTableView>
#include <QTimer>
#include <QVBoxLayout>

#include "ui/repetition_plot.h"
#include "ui/run_list_model.h"

namespace nf::ui {

void RunFilterModel::setFilters(const QString& label, const QString& workload, const QString& kernel,
                                const QString& date)
{
    m_label = label.trimmed();
    m_workload = workload.trimmed();
    m_kernel = kernel.trimmed();
    m_date = date.trimmed();
    invalidateRowsFilter();
}

std::int64_t RunFilterModel::runIdOf(int sourceRow) const
{
    const auto* runs = qobject_cast<const RunListModel*>(sourceModel());
    const engine::RunRow* run = runs != nullptr ? runs->runAt(sourceRow) : nullptr;
    return run != nullptr ? run->id : -1;
}

bool RunFilterModel::filterAcceptsRow(int sourceRow, const QModelIndex& sourceParent) const
{
    return matchesFilters(sourceRow, sourceParent) ||
           std::find(m_pinned.begin(), m_pinned.end(), runIdOf(sourceRow)) != m_pinned.end();
}

std::vector<std::int64_t> RunFilterModel::pinnedOutsideFilter() const
{
    std::vector<std::int64_t> out;
    for (int row = 0; row < rowCount(); ++row) {
        const int source = mapToSource(index(row, 0)).row();
        if (!matchesFilters(source, {})) {
            out.push_back(runIdOf(source));
        }
    }
    return out;
}

QVariant RunFilterModel::data(const QModelIndex& index, int role) const
{
    if (role == Qt::FontRole && index.isValid() && !matchesFilters(mapToSource(index).row(), {})) {
        QFont italic;
        italic.setItalic(true);
        return italic;
    }
    return QSortFilterProxyModel::data(index, role);
}

bool RunFilterModel::matchesFilters(int sourceRow, const QModelIndex& sourceParent) const
{
    const auto matches = [&](int column, const QString& filter) {
        if (filter.isEmpty()) {
            return true;
        }
        const QString text = sourceModel()->index(sourceRow, column, sourceParent).data().toString();
        return text.contains(filter, Qt::CaseInsensitive);
    };
    return matches(RunListModel::Label, m_label) && matches(RunListModel::Workload, m_workload) &&
           matches(RunListModel::Kernel, m_kernel) && matches(RunListModel::Started, m_date);
}

HistoryPanel::HistoryPanel(RunListModel* model, QWidget* parent)
    : QWidget(parent),
      m_model(model),
      m_filter(new RunFilterModel(this)),
      m_table(new QTableView(this)),
      m_plot(new RepetitionPlot(this)),
      m_variantList(new QListWidget(this)),
      m_labelFilter(new QLineEdit(this)),
      m_workloadFilter(new QLineEdit(this)),
      m_kernelFilter(new QLineEdit(this)),
      m_dateFilter(new QLineEdit(this)),
      m_filterNote(new QLabel(this)),
      m_rerun(new QAction(tr("Run this again"), this)),
      m_rerunButton(new QPushButton(tr("Run this again"), this)),
      m_pinTimer(new QTimer(this)),
      m_autoScrollTimer(new QTimer(this))
{
    m_filter->setSourceModel(m_model);
    m_table->setModel(m_filter);
    m_table->setSelectionBehavior(QAbstractItemView::SelectRows);
    m_table->setSelectionMode(QAbstractItemView::ExtendedSelection);
    m_table->setEditTriggers(QAbstractItemView::NoEditTriggers);
    m_table->setAlternatingRowColors(true);
    m_table->setWordWrap(false);
    m_table->verticalHeader()->hide();
    m_table->horizontalHeader()->setSectionResizeMode(QHeaderView::ResizeToContents);
    m_table->horizontalHeader()->setSectionResizeMode(RunListModel::Label, QHeaderView::Stretch);
    m_table->viewport()->installEventFilter(this);
    m_table->setToolTip(tr("Select one run to compare its variants, or several (Ctrl/Shift) to compare across runs"));

    const std::pair<QLineEdit*, QString> filters[] = {{m_labelFilter, tr("label")},
                                                      {m_workloadFilter, tr("workload")},
                                                      {m_kernelFilter, tr("kernel")},
                                                      {m_dateFilter, tr("date, e.g. 2026-11-30")}};
    auto* filterRow = new QHBoxLayout;
    filterRow->addWidget(new QLabel(tr("Filter:"), this));
    for (const auto& [edit, hint] : filters) {
        edit->setPlaceholderText(hint);
        edit->setClearButtonEnabled(true);
        edit->installEventFilter(this);
        filterRow->addWidget(edit);
        connect(edit, &QLineEdit::textChanged, this, &HistoryPanel::applyFilters);
    }
    m_rerun->setToolTip(
        tr("Load the selected run's design (workload, parameters, variants, repetitions, "
           "duration, CPUs, label, stopping rule) into the Experiment tab, ready to run"));
    m_rerunButton->setToolTip(m_rerun->toolTip());
    connect(m_rerun, &QAction::triggered, this, [this] {
        if (m_order.size() == 1) {
            emit rerunRequested(m_order.front());
        }
    });
    connect(m_rerunButton, &QPushButton::clicked, m_rerun, &QAction::trigger);
    m_table->addAction(m_rerun);
    m_table->setContextMenuPolicy(Qt::ActionsContextMenu);
    filterRow->addWidget(m_rerunButton);
    updateRerun();
    m_variantList->setToolTip(tr("Tick the variants to compare across the selected runs"));
    m_variantList->setMaximumWidth(260);

    connect(m_table->selectionModel(), &QItemSelectionModel::selectionChanged, this, [this] {
        updateOrder();
        updateRerun();
        emit runsSelected(selectedRuns());
        // A run listed only because it was compared goes once it is no longer selected (after this
        // selection change is done: not while the view is still handling the click).
        m_pinTimer->start();
    });
    connect(m_variantList, &QListWidget::itemChanged, this, [this] {
        if (!m_updatingVariants) {
            emit variantsTicked(tickedVariants());
        }
    });

    auto* variants = new QWidget(this);
    auto* variantLayout = new QVBoxLayout(variants);
    variantLayout->setContentsMargins(0, 0, 0, 0);
    variantLayout->addWidget(new QLabel(tr("Variants to compare"), variants));
    variantLayout->addWidget(m_variantList);
    auto* bottom = new QSplitter(Qt::Horizontal, this);
    bottom->addWidget(m_plot);
    bottom->addWidget(variants);
    bottom->setStretchFactor(0, 4);
    auto* splitter = new QSplitter(Qt::Vertical, this);
    splitter->addWidget(m_table);
    splitter->addWidget(bottom);
    splitter->setStretchFactor(0, 1);
    splitter->setStretchFactor(1, 2);
    splitter->setChildrenCollapsible(false);
    m_pinTimer->setSingleShot(true);
    m_pinTimer->setInterval(0);
    connect(m_pinTimer, &QTimer::timeout, this, &HistoryPanel::refreshPins);
    m_autoScrollTimer->setSingleShot(true);
    m_autoScrollTimer->setInterval(0);
    connect(m_autoScrollTimer, &QTimer::timeout, this, [this] { m_table->setAutoScroll(true); });
    m_filterNote->setWordWrap(true);
    m_filterNote->setStyleSheet(QStringLiteral("color: #8a5a00;"));
    m_filterNote->hide();
    auto* layout = new QVBoxLayout(this);
    layout->addLayout(filterRow);
    layout->addWidget(m_filterNote);
    layout->addWidget(splitter, 1);
}

bool HistoryPanel::eventFilter(QObject* watched, QEvent* event)
{
    if (watched == m_table->viewport() && event->type() == QEvent::MouseButtonPress) {
        // A click on a row the view shows only in part would scroll it into view: the rows move
        // under the pointer between the clicks of a double click, or while one is aiming. The view
        // scrolls for the keyboard and for a drag past its edge, not for the click itself.
        m_table->setAutoScroll(false);
        m_autoScrollTimer->start();  // on again once the press is handled
        return false;
    }
    auto* edit = qobject_cast<QLineEdit*>(watched);
    if (edit != nullptr && (event->type() == QEvent::KeyPress || event->type() == QEvent::ShortcutOverride)) {
        const auto* key = static_cast<QKeyEvent*>(event);
        if (key->key() == Qt::Key_Escape && key->modifiers() == Qt::NoModifier) {
            if (event->type() == QEvent::KeyPress) {
                edit->clear();
            }
            event->accept();  // an override: the key comes here, not to a shortcut
            return true;
        }
    }
    return QWidget::eventFilter(watched, event);
}

void HistoryPanel::setFilters(const QString& label, const QString& workload, const QString& kernel, const QString& date)
{
    m_labelFilter->setText(label);
    m_workloadFilter->setText(workload);
    m_kernelFilter->setText(kernel);
    m_dateFilter->setText(date);
}

void HistoryPanel::applyFilters()
{
    // The compared runs stay listed (and selected) even when the new filter does not match them.
    m_filter->setPinned(m_order);
    m_filter->setFilters(m_labelFilter->text(), m_workloadFilter->text(), m_kernelFilter->text(), m_dateFilter->text());
    const QString note = filterNote();
    m_filterNote->setText(note);
    m_filterNote->setVisible(!note.isEmpty());
}

void HistoryPanel::refreshPins()
{
    const auto outside = m_filter->pinnedOutsideFilter();
    const bool stale = std::any_of(outside.begin(), outside.end(), [&](std::int64_t id) {
        return std::find(m_order.begin(), m_order.end(), id) == m_order.end();
    });
    if (stale) {
        applyFilters();
    }
}

void HistoryPanel::updateRerun()
{
    m_rerun->setEnabled(m_order.size() == 1);
    m_rerunButton->setEnabled(m_rerun->isEnabled());
}

QString HistoryPanel::filterNote() const
{
    const auto outside = m_filter->pinnedOutsideFilter();
    if (outside.empty()) {
        return {};
    }
    QStringList ids;
    for (auto id : outside) {
        ids << QString::number(id);
    }
    return tr("Still compared and listed (in italics) although the filter does not match: run %1. "
              "Select other runs to compare those instead.")
        .arg(ids.join(QStringLiteral(", ")));
}

void HistoryPanel::clearSelection()
{
    {
        const QSignalBlocker block(m_table->selectionModel());
        m_table->selectionModel()->clear();
    }
    m_order.clear();
    updateRerun();
    m_filter->setPinned({});
    applyFilters();
    m_updatingVariants = true;
    m_variantList->clear();
    m_updatingVariants = false;
}

std::vector<std::int64_t> HistoryPanel::selectedRuns() const
{
    return m_order;
}

void HistoryPanel::updateOrder()
{
    const auto shown = selectedInTable();
    std::erase_if(m_order, [&](std::int64_t id) { return std::find(shown.begin(), shown.end(), id) == shown.end(); });
    for (auto id : shown) {
        if (std::find(m_order.begin(), m_order.end(), id) == m_order.end()) {
            m_order.push_back(id);
        }
    }
}

std::vector<std::int64_t> HistoryPanel::selectedInTable() const
{
    std::vector<std::int64_t> ids;
    auto rows = m_table->selectionModel()->selectedRows();
    std::sort(rows.begin(), rows.end(), [](const QModelIndex& a, const QModelIndex& b) { return a.row() < b.row(); });
    for (const auto& index : rows) {
        if (const engine::RunRow* run = m_model->runAt(m_filter->mapToSource(index).row())) {
            ids.push_back(run->id);
        }
    }
    return ids;
}

bool HistoryPanel::revealRuns(const std::vector<std::int64_t>& ids)
{
    for (auto id : ids) {
        if (m_model->rowOf(id) < 0) {
            return false;
        }
    }
    m_order = ids;
    applyFilters();  // pins them: listed whatever the filter says
    return selectRuns(ids);
}

HistoryPanel::ViewPlace HistoryPanel::viewPlace() const
{
    ViewPlace place;
    const auto runAt = [this](const QModelIndex& index) -> std::int64_t {
        const engine::RunRow* run = index.isValid() ? m_model->runAt(m_filter->mapToSource(index).row()) : nullptr;
        return run != nullptr ? run->id : -1;
    };
    const QModelIndex top = m_table->indexAt(QPoint(0, 0));
    place.top = runAt(top);
    place.offset = top.isValid() ? -m_table->visualRect(top).top() : 0;
    place.current = runAt(m_table->currentIndex());
    return place;
}

void HistoryPanel::restoreViewPlace(const ViewPlace& place)
{
    const auto indexOf = [this](std::int64_t id) {
        return id < 0 ? QModelIndex() : m_filter->mapFromSource(m_model->index(m_model->rowOf(id), 0));
    };
    if (const QModelIndex current = indexOf(place.current); current.isValid()) {
        m_table->selectionModel()->setCurrentIndex(current, QItemSelectionModel::NoUpdate);
    }
    if (const QModelIndex top = indexOf(place.top); top.isValid()) {
        m_table->scrollTo(top, QAbstractItemView::PositionAtTop);
        if (place.offset != 0) {
            m_table->verticalScrollBar()->setValue(m_table->verticalScrollBar()->value() + place.offset);
        }
    }
}

bool HistoryPanel::selectRuns(const std::vector<std::int64_t>& ids, bool scroll)
{
    QItemSelection selection;
    bool all = true;
    QModelIndex first;
    for (auto id : ids) {
        const QModelIndex index = m_filter->mapFromSource(m_model->index(m_model->rowOf(id), 0));
        if (!index.isValid()) {
            all = false;
            continue;
        }
        first = first.isValid() ? first : index;
        selection.select(index, index);
    }
    const QSignalBlocker block(m_table->selectionModel());
    m_table->selectionModel()->select(selection, QItemSelectionModel::ClearAndSelect | QItemSelectionModel::Rows);
    m_order.clear();
    const auto shown = selectedInTable();
    for (auto id : ids) {
        if (std::find(shown.begin(), shown.end(), id) != shown.end()) {
            m_order.push_back(id);
        }
    }
    if (first.isValid() && scroll) {
        m_table->selectionModel()->setCurrentIndex(first, QItemSelectionModel::NoUpdate);
        m_table->scrollTo(first);
    }
    updateRerun();
    refreshPins();
    return all && !ids.empty();
}

void HistoryPanel::setVariants(const std::vector<std::pair<std::int64_t, QStringList>>& runs,
                               const RunSelection& ticked)
{
    m_updatingVariants = true;
    m_variantList->clear();
    for (const auto& [id, names] : runs) {
        for (const auto& name : names) {
            auto* item = new QListWidgetItem(tr("run %1: %2").arg(id).arg(name), m_variantList);
            item->setData(Qt::UserRole, QVariant::fromValue(static_cast<qlonglong>(id)));
            item->setData(Qt::UserRole + 1, name);
            item->setFlags(item->flags() | Qt::ItemIsUserCheckable);
            const bool on = ticked.empty() || std::any_of(ticked.begin(), ticked.end(), [&, runId = id](const auto& t) {
                                return t.first == runId && (t.second.isEmpty() || t.second == name);
                            });
            item->setCheckState(on ? Qt::Checked : Qt::Unchecked);
        }
    }
    m_updatingVariants = false;
}

RunSelection HistoryPanel::tickedVariants() const
{
    RunSelection out;
    for (int i = 0; i < m_variantList->count(); ++i) {
        const QListWidgetItem* item = m_variantList->item(i);
        if (item->checkState() == Qt::Checked) {
            out.emplace_back(item->data(Qt::UserRole).toLongLong(), item->data(Qt::UserRole + 1).toString());
        }
    }
    return out;
}

}  // namespace nf::ui
