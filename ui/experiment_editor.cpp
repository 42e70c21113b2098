#include "ui/experiment_editor.h"

#include <QCheckBox>
#include <QComboBox>
#include <QDoubleSpinBox>
#include <QFormLayout>
#include <QGroupBox>
#include <QHBoxLayout>
#include <QHeaderView>
#include <QLabel>
#include <QLineEdit>
#include <QListWidget>
#include <QPushButton>
#include <QScrollArea>
#include <QSpinBox>
#include <QTableWidget>
#include <QTimer>
#include <QVBoxLayout>

#include <algorithm>
#include <map>
#include <string>

namespace nf::ui {

namespace {

const QString kInvalidStyle = QStringLiteral("background-color: #ffd9d9;");

QString qs(const std::string& s)
{
    return QString::fromStdString(s);
}

QString cellText(const QTableWidget* table, int row, int column)
{
    const QTableWidgetItem* item = table->item(row, column);
    return item != nullptr ? item->text().trimmed() : QString();
}

void mark(QWidget* w, const QString& problem)
{
    w->setStyleSheet(problem.isEmpty() ? QString() : kInvalidStyle);
    w->setProperty("invalid", !problem.isEmpty());
    w->setToolTip(problem.isEmpty() ? w->property("help").toString() : problem);
}

void markItem(QTableWidgetItem* item, const QString& problem)
{
    item->setBackground(problem.isEmpty() ? QBrush() : QBrush(QColor(0xff, 0xd9, 0xd9)));
    item->setToolTip(problem);
}

}  // namespace

ExperimentEditor::ExperimentEditor(QWidget* parent)
    : QWidget(parent),
      m_workload(new QComboBox(this)),
      m_description(new QLabel(this)),
      m_paramBox(new QGroupBox(tr("Parameters (empty: the default)"), this)),
      m_variants(new QTableWidget(0, 2, this)),
      m_cpus(new QListWidget(this)),
      m_reps(new QSpinBox(this)),
      m_duration(new QDoubleSpinBox(this)),
      m_warmup(new QDoubleSpinBox(this)),
      m_order(new QComboBox(this)),
      m_pmu(new QComboBox(this)),
      m_label(new QLineEdit(this)),
      m_sweep(new QLineEdit(this)),
      m_until(new QCheckBox(tr("decided"), this)),
      m_maxTime(new QDoubleSpinBox(this)),
      m_margin(new QDoubleSpinBox(this)),
      m_refusalLabel(new QLabel(this)),
      m_problemsLabel(new QLabel(this)),
      m_command(new QLabel(this)),
      m_estimate(new QLabel(this)),
      m_estimateTimer(new QTimer(this)),
      m_run(new QPushButton(tr("Run"), this)),
      m_stop(new QPushButton(tr("Stop"), this))
{
    m_description->setWordWrap(true);
    // The workload's long summary must not make the form wider than a 1024 px window.
    m_workload->setSizeAdjustPolicy(QComboBox::AdjustToMinimumContentsLengthWithIcon);
    m_workload->setMinimumContentsLength(30);
    m_paramForm = new QFormLayout(m_paramBox);
    m_variants->setHorizontalHeaderLabels({tr("variant"), tr("overrides (key=value, ...)")});
    m_variants->horizontalHeader()->setStretchLastSection(true);
    m_variants->verticalHeader()->hide();
    m_reps->setRange(1, 10000);
    m_reps->setValue(5);
    m_duration->setRange(0.01, 3600);
    m_duration->setDecimals(2);
    m_duration->setSuffix(tr(" s"));
    m_duration->setValue(1.0);
    m_warmup->setRange(0, 600);
    m_warmup->setDecimals(2);
    m_warmup->setSuffix(tr(" s"));
    m_warmup->setValue(0.2);
    m_order->addItems({QStringLiteral("interleaved"), QStringLiteral("random"), QStringLiteral("blocked")});
    m_order->setToolTip(tr("interleaved: A B B A ...; random: seeded shuffle; blocked: all of A, then all of B"));
    m_pmu->addItem(tr("perf (the kernel's counters)"), QStringLiteral("perf"));
    m_pmu->addItem(tr("SIMULATED (tests the counter path only)"), QStringLiteral("simulated"));
    m_pmu->setToolTip(
        tr("Where cycles, instructions and branch misses come from: the PMU through perf, or counts "
           "made up from the TSC to test noisefloor on a machine without a PMU (--pmu simulated)"));
    m_until->setToolTip(tr(
        "Alternate the two variants until the primary metric is different, or equivalent within the "
        "margin, by a confidence sequence that stays valid however often it is looked at; or until the "
        "max time of measuring has passed (then inconclusive). Repetitions is then as many as fit in the max time."));
    m_maxTime->setRange(1, 7 * 86400);
    m_maxTime->setDecimals(0);
    m_maxTime->setSuffix(tr(" s at most"));
    m_maxTime->setValue(600);
    m_margin->setRange(0.01, 50);
    m_margin->setDecimals(2);
    m_margin->setPrefix(QStringLiteral("\u00b1"));
    m_margin->setSuffix(QStringLiteral(" %"));
    m_margin->setValue(1);
    m_margin->setToolTip(tr("Equivalence margin: 'equivalent' when the whole interval lies inside it"));
    for (auto* spin : {m_maxTime, m_margin}) {
        spin->setEnabled(false);
    }
    m_label->setPlaceholderText(tr("e.g. patched-v2 (to find the run again)"));
    m_cpus->setToolTip(tr("Worker CPUs; none ticked: the engine picks the last allowed CPU"));
    m_cpus->setMaximumHeight(110);
    m_refusalLabel->setWordWrap(true);
    m_refusalLabel->setObjectName(QStringLiteral("refusal"));
    m_refusalLabel->setVisible(false);
    m_problemsLabel->setWordWrap(true);
    m_problemsLabel->setStyleSheet(QStringLiteral("color: #b00020;"));
    m_command->setWordWrap(true);
    m_command->setTextInteractionFlags(Qt::TextSelectableByMouse);
    m_command->setStyleSheet(QStringLiteral("font-family: monospace; color: #444;"));
    m_stop->setEnabled(false);
    // How long the design takes, as `run --dry-run` says it, beside Run; settled a moment after the
    // last edit, so that it does not flicker while a field is typed in.
    m_estimate->setObjectName(QStringLiteral("estimate"));
    m_estimate->setWordWrap(true);
    m_estimate->setTextInteractionFlags(Qt::TextSelectableByMouse);
    m_estimateTimer->setSingleShot(true);
    m_estimateTimer->setInterval(kEstimateSettleMs);
    connect(m_estimateTimer, &QTimer::timeout, this, [this] { m_estimate->setText(m_estimateText); });

    m_variants->setTabKeyNavigation(false);  // Tab moves on to the next field, not the next cell
    auto* addVariant = new QPushButton(tr("Add variant"), this);
    addVariant->setObjectName(QStringLiteral("addVariant"));
    auto* removeVariant = new QPushButton(tr("Remove variant"), this);
    connect(addVariant, &QPushButton::clicked, this, [this] {
        // The first of a..z, then v27, v28, ... that no variant has: never a duplicate name.
        QStringList taken;
        for (int r = 0; r < m_variants->rowCount(); ++r) {
            if (const auto* item = m_variants->item(r, 0)) {
                taken << item->text().trimmed();
            }
        }
        QString name;
        for (int n = 0; name.isEmpty() || taken.contains(name); ++n) {
            name = n < 26 ? QString(QChar('a' + n)) : QStringLiteral("v%1").arg(n + 1);
        }
        const int row = m_variants->rowCount();
        m_variants->insertRow(row);
        m_variants->setItem(row, 0, new QTableWidgetItem(name));
        m_variants->setItem(row, 1, new QTableWidgetItem);
    });
    connect(removeVariant, &QPushButton::clicked, this, [this] {
        if (m_variants->rowCount() > 1) {
            m_variants->removeRow(m_variants->currentRow() >= 0 ? m_variants->currentRow()
                                                                : m_variants->rowCount() - 1);
        }
    });
    auto* variantButtons = new QHBoxLayout;
    variantButtons->addWidget(addVariant);
    variantButtons->addWidget(removeVariant);
    variantButtons->addStretch(1);

    auto* schedule = new QFormLayout;
    schedule->addRow(tr("Repetitions"), m_reps);
    schedule->addRow(tr("Duration per variant"), m_duration);
    schedule->addRow(tr("Warmup"), m_warmup);
    schedule->addRow(tr("Order"), m_order);
    schedule->addRow(tr("Hardware counters"), m_pmu);
    schedule->addRow(tr("Label"), m_label);
    schedule->addRow(tr("Sweep (optional)"), m_sweep);
    auto* until = new QHBoxLayout;
    until->addWidget(m_until);
    until->addWidget(m_maxTime);
    until->addWidget(m_margin);
    schedule->addRow(tr("Stop when"), until);
    m_cpusLabel = new QLabel(tr("Worker CPUs"), this);
    schedule->addRow(m_cpusLabel, m_cpus);
    m_shareCpus = new QCheckBox(tr("share CPUs another run measures on (--share-cpus)"), this);
    m_shareCpus->setToolTip(
        tr("Without it a run on a CPU another run holds is refused. With it the run goes "
           "ahead and its figures carry the other run's load, which the run's warnings name."));
    schedule->addRow(QString(), m_shareCpus);

    auto* left = new QVBoxLayout;
    left->addWidget(new QLabel(tr("Workload"), this));
    left->addWidget(m_workload);
    left->addWidget(m_description);
    left->addWidget(m_paramBox);
    left->addStretch(1);
    auto* right = new QVBoxLayout;
    right->addWidget(new QLabel(tr("Variants (each row: a name and the parameters it changes)"), this));
    right->addWidget(m_variants, 1);
    right->addLayout(variantButtons);
    right->addLayout(schedule);
    // The form scrolls; the messages, Run and Stop below it stay in view at any window size.
    auto* form = new QWidget;
    auto* columns = new QHBoxLayout(form);
    columns->setContentsMargins(0, 0, 0, 0);
    columns->addLayout(left, 1);
    columns->addLayout(right, 1);
    auto* formArea = new QScrollArea(this);
    formArea->setWidget(form);
    formArea->setWidgetResizable(true);
    formArea->setFrameShape(QFrame::NoFrame);
    // Why this machine runs nothing (when it does not), then the problems, or the command when
    // there are none, in a box of fixed height that scrolls: a new error line never moves Run,
    // Stop or a field under the pointer.
    auto* messages = new QWidget;
    auto* messageLines = new QVBoxLayout(messages);
    messageLines->setContentsMargins(2, 2, 2, 2);
    messageLines->addWidget(m_refusalLabel);
    messageLines->addWidget(m_problemsLabel);
    messageLines->addWidget(m_command);
    messageLines->addStretch(1);
    m_messages = new QScrollArea(this);
    m_messages->setObjectName(QStringLiteral("messages"));
    m_messages->setWidget(messages);
    m_messages->setWidgetResizable(true);
    m_messages->setFrameShape(QFrame::NoFrame);
    m_messages->setHorizontalScrollBarPolicy(Qt::ScrollBarAlwaysOff);
    m_messages->setFixedHeight(fontMetrics().lineSpacing() * 4 + 8);
    auto* buttons = new QHBoxLayout;
    buttons->addWidget(m_estimate, 1);
    buttons->addWidget(m_run);
    buttons->addWidget(m_stop);
    auto* layout = new QVBoxLayout(this);
    layout->addWidget(formArea, 1);
    layout->addWidget(m_messages);
    layout->addLayout(buttons);

    connect(m_workload, &QComboBox::currentIndexChanged, this, [this] { buildParamForm(); });
    connect(m_variants, &QTableWidget::itemChanged, this, [this] { validate(); });
    connect(m_variants->model(), &QAbstractItemModel::rowsRemoved, this, [this] { validate(); });
    for (auto* spin : {static_cast<QAbstractSpinBox*>(m_reps), static_cast<QAbstractSpinBox*>(m_duration),
                       static_cast<QAbstractSpinBox*>(m_warmup)}) {
        connect(spin, &QAbstractSpinBox::editingFinished, this, [this] { validate(); });
    }
    connect(m_order, &QComboBox::currentIndexChanged, this, [this] { validate(); });
    connect(m_pmu, &QComboBox::currentIndexChanged, this, [this] { validate(); });
    connect(m_label, &QLineEdit::textChanged, this, [this] { validate(); });
    connect(m_sweep, &QLineEdit::textChanged, this, [this] { validate(); });
    connect(m_until, &QCheckBox::toggled, this, [this](bool on) {
        m_maxTime->setEnabled(on);
        m_margin->setEnabled(on);
        // Until decided, the engine plans as many repetitions as fit in the max time.
        m_reps->setEnabled(!on);
        m_reps->setToolTip(on ? tr("Set by the max time: as many repetitions as fit in it") : QString());
        validate();
    });
    for (auto* spin : {m_maxTime, m_margin}) {
        connect(spin, &QAbstractSpinBox::editingFinished, this, [this] { validate(); });
    }
    watchNumber(m_reps, tr("Repetitions"));
    watchNumber(m_duration, tr("Duration per variant"));
    watchNumber(m_warmup, tr("Warmup"));
    watchNumber(m_maxTime, tr("Max time"));
    watchNumber(m_margin, tr("Margin"));
    m_sweep->setPlaceholderText(tr("PARAM=v1,v2,... e.g. zero_size_pct=0,1,10,50 (one run per value)"));
    m_sweep->setProperty("help", tr("Runs every variant at each value; the Explore tab plots the metric against it"));
    connect(m_cpus, &QListWidget::itemChanged, this, [this] { validate(); });
    connect(m_shareCpus, &QCheckBox::toggled, this, [this] { validate(); });
    connect(m_run, &QPushButton::clicked, this, [this] {
        if (runEnabled()) {
            emit runRequested(arguments(QString()));
        }
    });
    connect(m_stop, &QPushButton::clicked, this, &ExperimentEditor::stopRequested);
    setVariants({{QStringLiteral("a"), QString()}, {QStringLiteral("b"), QString()}});
    {
        const QSignalBlocker block(m_workload);
        for (const auto& w : engine::workloadCatalog()) {
            m_workloads.push_back(&w);
            m_workload->addItem(qs(w.name) + QStringLiteral(" - ") + qs(w.summary), qs(w.name));
        }
    }
    setMachine(base::readCpuFacts());
    buildParamForm();
    m_estimateTimer->stop();  // the form as it opens: its estimate at once
    m_estimate->setText(m_estimateText);
}

void ExperimentEditor::awaitMachine(const QString& where, const QString& why)
{
    m_facts = {};
    m_cpusLabel->setText(tr("Worker CPUs of %1").arg(where));
    const QSignalBlocker block(m_cpus);
    m_cpus->clear();
    auto* item = new QListWidgetItem(why.isEmpty() ? tr("asking %1 for its CPUs...").arg(where)
                                                   : tr("%1's CPUs could not be read (%2): the engine there picks "
                                                        "its last allowed CPU")
                                                         .arg(where, why),
                                     m_cpus);
    item->setFlags(Qt::NoItemFlags);
    validate();
}

QString ExperimentEditor::cpusLabel() const
{
    return m_cpusLabel->text();
}

void ExperimentEditor::setMachine(const base::SystemFacts& facts, const QString& where)
{
    m_facts = facts;
    m_cpusLabel->setText(where.isEmpty() ? tr("Worker CPUs") : tr("Worker CPUs of %1").arg(where));
    const QSignalBlocker block(m_cpus);
    m_cpus->clear();
    for (const auto& c : facts.cpus) {
        const bool allowed =
            std::find(facts.allowedCpus.begin(), facts.allowedCpus.end(), c.id) != facts.allowedCpus.end();
        auto* item = new QListWidgetItem(tr("CPU %1 - core %2, package %3, SMT siblings %4%5")
                                             .arg(c.id)
                                             .arg(c.core)
                                             .arg(c.package)
                                             .arg(c.siblings.empty() ? tr("?") : qs(base::formatCpuList(c.siblings)))
                                             .arg(allowed ? QString() : tr(" (not allowed to this process)")),
                                         m_cpus);
        item->setData(Qt::UserRole, c.id);
        item->setFlags(item->flags() | Qt::ItemIsUserCheckable);
        item->setCheckState(Qt::Unchecked);
    }
    validate();
}

bool ExperimentEditor::setCpuSelection(const std::vector<int>& cpus)
{
    std::size_t found = 0;
    {
        const QSignalBlocker block(m_cpus);
        for (int i = 0; i < m_cpus->count(); ++i) {
            auto* item = m_cpus->item(i);
            if (!item->data(Qt::UserRole).isValid()) {
                continue;  // the line that stands for a host's CPUs not known yet
            }
            const bool tick = std::find(cpus.begin(), cpus.end(), item->data(Qt::UserRole).toInt()) != cpus.end();
            item->setCheckState(tick ? Qt::Checked : Qt::Unchecked);
            found += tick ? 1 : 0;
        }
    }
    validate();
    return found == cpus.size();
}

const engine::WorkloadDescriptor* ExperimentEditor::current() const
{
    const int i = m_workload->currentIndex();
    return i >= 0 && i < static_cast<int>(m_workloads.size()) ? m_workloads[static_cast<std::size_t>(i)] : nullptr;
}

bool ExperimentEditor::selectWorkload(const QString& name)
{
    const int i = m_workload->findData(name);
    if (i < 0) {
        return false;
    }
    m_workload->setCurrentIndex(i);
    return true;
}

void ExperimentEditor::buildParamForm()
{
    while (m_paramForm->rowCount() > 0) {
        m_paramForm->removeRow(0);
    }
    m_paramFields.clear();
    const engine::WorkloadDescriptor* w = current();
    m_description->setText(w != nullptr ? qs(w->description) + tr(" Primary metric: %1.").arg(qs(w->primaryMetric))
                                        : QString());
    if (w == nullptr) {
        validate();
        return;
    }
    for (const auto& p : w->params) {
        QWidget* field = nullptr;
        const QString range = qs(p.rangeText());
        const QString help = QStringLiteral("%1 (%2%3, default %4)")
                                 .arg(qs(p.description), qs(std::string(engine::toString(p.type))),
                                      range.isEmpty() ? QString() : " " + range, qs(p.defaultValue));
        if (p.type == engine::ParamType::Choice) {
            auto* combo = new QComboBox(m_paramBox);
            for (const auto& c : p.choices) {
                combo->addItem(qs(c));
            }
            combo->setCurrentText(qs(p.defaultValue));
            connect(combo, &QComboBox::currentIndexChanged, this, [this] { validate(); });
            field = combo;
        } else {
            auto* edit = new QLineEdit(m_paramBox);
            edit->setPlaceholderText(qs(p.defaultValue) + (range.isEmpty() ? QString() : "   (" + range + ")"));
            edit->setObjectName(qs(p.name));
            connect(edit, &QLineEdit::textChanged, this, [this] { validate(); });
            field = edit;
        }
        field->setProperty("help", help);
        field->setToolTip(help);
        m_paramForm->addRow(p.unit.empty() ? qs(p.name) : QStringLiteral("%1 (%2)").arg(qs(p.name), qs(p.unit)), field);
        m_paramFields.push_back(field);
    }
    // Made after the rest of the form: Tab goes from the workload through its parameters to the
    // variants, not from the last field of the form back to the parameters.
    QWidget* previous = m_workload;
    for (QWidget* field : m_paramFields) {
        setTabOrder(previous, field);
        previous = field;
    }
    setTabOrder(previous, m_variants);
    validate();
}

QString ExperimentEditor::paramValue(int index) const
{
    QWidget* field = m_paramFields.at(static_cast<std::size_t>(index));
    if (auto* combo = qobject_cast<QComboBox*>(field)) {
        return combo->currentText();
    }
    return qobject_cast<QLineEdit*>(field)->text().trimmed();
}

ExperimentForm ExperimentEditor::form() const
{
    ExperimentForm f;
    f.workload = current();
    for (std::size_t i = 0; i < m_paramFields.size(); ++i) {
        f.params << paramValue(static_cast<int>(i));
    }
    for (int row = 0; row < m_variants->rowCount(); ++row) {
        f.variants.emplace_back(cellText(m_variants, row, 0), cellText(m_variants, row, 1));
    }
    f.repetitions = m_reps->value();
    f.duration = m_duration->value();
    f.warmup = m_warmup->value();
    f.order = m_order->currentText();
    f.simulatedPmu = m_pmu->currentData().toString() == QLatin1String("simulated");
    f.untilDecided = m_until->isChecked();
    f.maxTime = m_maxTime->value();
    f.marginPct = m_margin->value();
    for (int i = 0; i < m_cpus->count(); ++i) {
        if (m_cpus->item(i)->checkState() == Qt::Checked) {
            f.cpus.push_back(m_cpus->item(i)->data(Qt::UserRole).toInt());
        }
    }
    f.shareCpus = m_shareCpus->isChecked();
    f.label = m_label->text();
    f.sweep = m_sweep->text();
    return f;
}

void ExperimentEditor::validate()
{
    const QSignalBlocker block(m_variants);
    for (int row = 0; row < m_variants->rowCount(); ++row) {
        for (int column = 0; column < 2; ++column) {
            if (m_variants->item(row, column) == nullptr) {
                m_variants->setItem(row, column, new QTableWidgetItem);
            }
        }
    }
    const ExperimentForm f = form();
    const ExperimentRequest r = experimentRequest(f);
    const RequestProblems problems = requestProblems(f, r, m_facts);
    m_problems = problems.lines;
    markProblems(r, problems.checked);
    showProblems();
    m_command->setText(m_problems.isEmpty() ? QStringLiteral("$ ") + ui::commandLine(runArguments(r, m_database))
                                            : QString());
    m_command->setVisible(m_problems.isEmpty());
    m_run->setEnabled(runEnabled());
    const QString estimate =
        problems.plan ? tr("Takes %1").arg(qs(engine::planTimeText(*problems.plan)))
        : m_problems.isEmpty()
            ? QString()
            : tr("No time estimate: %1%2")
                  .arg(m_problems.front(),
                       m_problems.size() > 1 ? tr(" (and %1 more above)").arg(m_problems.size() - 1) : QString());
    if (estimate != m_estimateText || m_estimateTimer->isActive()) {
        m_estimateText = estimate;
        if (m_estimate->text().isEmpty()) {
            m_estimate->setText(estimate);  // the first: at once
        } else {
            m_estimateTimer->start();
        }
    }
}

void ExperimentEditor::showProblems()
{
    QStringList lines;
    for (const auto& [spin, note] : m_numberNotes) {
        lines << note;
    }
    lines << m_problems;
    m_problemsLabel->setText(lines.join('\n'));
    m_problemsLabel->setVisible(!lines.isEmpty());
}

void ExperimentEditor::watchNumber(QAbstractSpinBox* spin, const QString& name)
{
    auto* edit = spin->findChild<QLineEdit*>();
    if (edit == nullptr) {
        return;
    }
    const auto range = [spin] {
        if (const auto* d = qobject_cast<QDoubleSpinBox*>(spin)) {
            return tr("%1 to %2").arg(d->minimum()).arg(d->maximum());
        }
        const auto* i = qobject_cast<QSpinBox*>(spin);
        return i != nullptr ? tr("%1 to %2").arg(i->minimum()).arg(i->maximum()) : QString();
    };
    const auto bare = [spin](QString text) {  // without the field's " s" or "±"
        const QString prefix = spin->property("prefix").toString();
        const QString suffix = spin->property("suffix").toString();
        if (!prefix.isEmpty() && text.startsWith(prefix)) {
            text.remove(0, prefix.size());
        }
        if (!suffix.isEmpty() && text.endsWith(suffix)) {
            text.chop(suffix.size());
        }
        return text.trimmed();
    };
    connect(edit, &QLineEdit::textEdited, this, [this, spin, name, range, bare](const QString& text) {
        if (spin->hasAcceptableInput()) {
            m_numberNotes.erase(spin);
        } else {
            m_numberNotes[spin] = tr("%1: \"%2\" is not taken (%3); leaving the field keeps the last good value")
                                      .arg(name, bare(text), range());
        }
        showProblems();
    });
    connect(spin, &QAbstractSpinBox::editingFinished, this, [this, spin, name, range] {
        if (auto it = m_numberNotes.find(spin); it != m_numberNotes.end()) {
            it->second = tr("%1: that value was not taken (%2); it is %3 again").arg(name, range(), spin->text());
            showProblems();
        }
    });
}

void ExperimentEditor::markProblems(const ExperimentRequest& r, const std::vector<engine::SpecProblem>& problems)
{
    const engine::WorkloadDescriptor* w = current();
    QStringList fieldProblems(static_cast<qsizetype>(m_paramFields.size()));
    std::vector<QStringList> nameProblems(static_cast<std::size_t>(m_variants->rowCount()));
    std::vector<QStringList> overrideProblems(nameProblems.size());
    QString sweepProblem = r.badSweep ? r.syntaxProblems.join('\n') : QString();
    QString cpuProblem;
    QString untilProblem;
    for (int row : r.badRows) {
        overrideProblems[static_cast<std::size_t>(row)] << tr("expected key=value[,key=value...]");
    }
    auto rowOf = [&](const std::string& variant) {
        for (int row = 0; row < m_variants->rowCount(); ++row) {
            if (cellText(m_variants, row, 0).toStdString() == variant) {
                return row;
            }
        }
        return -1;
    };
    for (const auto& p : problems) {
        const QString text = problemText(p);
        if (p.field == engine::SpecField::Variants) {
            for (int row = 0; row < m_variants->rowCount(); ++row) {
                if (cellText(m_variants, row, 0).toStdString() == p.value) {
                    nameProblems[static_cast<std::size_t>(row)] << text;
                }
            }
        } else if (p.field == engine::SpecField::Sweep) {
            sweepProblem += (sweepProblem.isEmpty() ? "" : "\n") + text;
        } else if (p.field == engine::SpecField::Until || p.field == engine::SpecField::MaxTime ||
                   p.field == engine::SpecField::Margin || p.field == engine::SpecField::Alpha) {
            untilProblem += (untilProblem.isEmpty() ? "" : "\n") + text;
        } else if (p.field == engine::SpecField::Cpus) {
            cpuProblem += (cpuProblem.isEmpty() ? "" : "\n") + text;
        } else if (p.field == engine::SpecField::Param && w != nullptr) {
            // The variant's cell when it sets the parameter, else the form's field.
            const int row = p.variant.empty() && r.spec.variants.size() == 1 ? 0 : rowOf(p.variant);
            const auto& overrides = row >= 0 ? r.spec.variants[static_cast<std::size_t>(row)].overrides
                                             : std::map<std::string, std::string>{};
            const auto* spec = w->param(p.param);
            const bool setByRow = !p.param.empty() && overrides.contains(p.param);
            if (row >= 0 && (setByRow || spec == nullptr)) {
                overrideProblems[static_cast<std::size_t>(row)] << text;
            } else if (spec != nullptr) {
                fieldProblems[static_cast<qsizetype>(spec - w->params.data())] += text;
            }
        }
    }
    for (std::size_t i = 0; i < m_paramFields.size(); ++i) {
        mark(m_paramFields[i], fieldProblems[static_cast<qsizetype>(i)]);
    }
    for (int row = 0; row < m_variants->rowCount(); ++row) {
        markItem(m_variants->item(row, 0), nameProblems[static_cast<std::size_t>(row)].join('\n'));
        markItem(m_variants->item(row, 1), overrideProblems[static_cast<std::size_t>(row)].join('\n'));
    }
    mark(m_sweep, sweepProblem);
    mark(m_cpus, cpuProblem);
    mark(m_until, untilProblem);
}

bool ExperimentEditor::runEnabled() const
{
    return m_problems.isEmpty() && !m_running && m_refusal.isEmpty();
}

void ExperimentEditor::refuseRuns(const QString& why)
{
    m_refusal = why;
    m_refusalLabel->setText(why);
    m_refusalLabel->setVisible(!why.isEmpty());
    m_run->setEnabled(runEnabled());
}

void ExperimentEditor::setRunning(bool running)
{
    m_running = running;
    m_run->setEnabled(runEnabled());
    m_stop->setEnabled(running);
}

QStringList ExperimentEditor::arguments(const QString& dbPath) const
{
    return runArguments(experimentRequest(form()), dbPath);
}

QString ExperimentEditor::commandLine(const QString& dbPath) const
{
    return ui::commandLine(arguments(dbPath));
}

void ExperimentEditor::setDatabase(const QString& path)
{
    m_database = path;
    validate();
}

QString ExperimentEditor::sweepText() const
{
    return m_sweep->text();
}

bool ExperimentEditor::isSweep() const
{
    return !m_sweep->text().trimmed().isEmpty();
}

QLineEdit* ExperimentEditor::paramField(const QString& name) const
{
    const engine::WorkloadDescriptor* w = current();
    for (std::size_t i = 0; w != nullptr && i < w->params.size(); ++i) {
        if (qs(w->params[i].name) == name) {
            return qobject_cast<QLineEdit*>(m_paramFields[i]);
        }
    }
    return nullptr;
}

bool ExperimentEditor::setParam(const QString& name, const QString& value)
{
    const engine::WorkloadDescriptor* w = current();
    for (std::size_t i = 0; w != nullptr && i < w->params.size(); ++i) {
        if (qs(w->params[i].name) == name) {
            if (auto* combo = qobject_cast<QComboBox*>(m_paramFields[i])) {
                combo->setCurrentText(value.isEmpty() ? qs(w->params[i].defaultValue) : value);
            } else {
                qobject_cast<QLineEdit*>(m_paramFields[i])->setText(value);
            }
            return true;
        }
    }
    return false;
}

void ExperimentEditor::setVariants(const std::vector<std::pair<QString, QString>>& variants)
{
    const QSignalBlocker block(m_variants);
    m_variants->setRowCount(0);
    for (const auto& [name, overrides] : variants) {
        const int row = m_variants->rowCount();
        m_variants->insertRow(row);
        m_variants->setItem(row, 0, new QTableWidgetItem(name));
        m_variants->setItem(row, 1, new QTableWidgetItem(overrides));
    }
    validate();
}

void ExperimentEditor::setRepetitions(int reps)
{
    m_reps->setValue(reps);
    validate();
}

void ExperimentEditor::setUntilDecided(bool on, double maxTime, double marginPct)
{
    m_maxTime->setValue(maxTime);
    m_margin->setValue(marginPct);
    if (m_until->isChecked() == on) {
        validate();
    }
    m_until->setChecked(on);
}

void ExperimentEditor::setDuration(double seconds)
{
    m_duration->setValue(seconds);
    validate();
}

void ExperimentEditor::setSweep(const QString& text)
{
    m_sweep->setText(text);
}

void ExperimentEditor::setShareCpus(bool share)
{
    m_shareCpus->setChecked(share);
}

void ExperimentEditor::setLabel(const QString& label)
{
    m_label->setText(label);
}

void ExperimentEditor::setWarmup(double seconds)
{
    m_warmup->setValue(seconds);
    validate();
}

void ExperimentEditor::setOrder(const QString& order)
{
    m_order->setCurrentText(order);
}

void ExperimentEditor::setPmu(const QString& pmu)
{
    m_pmu->setCurrentIndex(std::max(0, m_pmu->findData(pmu)));
}

QStringList ExperimentEditor::setDesign(const engine::ExperimentSpec& spec)
{
    QStringList lost;
    if (!selectWorkload(qs(spec.workload))) {
        return {tr("workload %1 is not in this build's catalogue: the form is unchanged").arg(qs(spec.workload))};
    }
    const engine::WorkloadDescriptor* w = current();
    for (const auto& p : w->params) {
        const auto it = spec.params.find(p.name);
        setParam(qs(p.name), it != spec.params.end() ? qs(it->second) : QString());
    }
    for (const auto& [name, value] : spec.params) {
        if (w->param(name) == nullptr) {
            lost << tr("parameter %1=%2: not a parameter of %3 in this build").arg(qs(name), qs(value), qs(w->name));
        }
    }
    std::vector<std::pair<QString, QString>> variants;
    for (const auto& v : spec.variants) {
        QStringList overrides;
        for (const auto& [key, value] : v.overrides) {
            overrides << qs(key) + "=" + qs(value);
        }
        variants.emplace_back(qs(v.name), overrides.join(','));
    }
    setVariants(variants);
    if (!spec.until) {
        // Until decided, the stored count is the engine's plan for the max time, not a field's.
        setRepetitions(spec.repetitions);
    }
    setDuration(spec.duration);
    setWarmup(spec.warmup);
    setOrder(qs(std::string(engine::toString(spec.order))));
    setPmu(spec.pmu.simulated ? QStringLiteral("simulated") : QStringLiteral("perf"));
    if (spec.pmu.simulated && qs(engine::toString(spec.pmu)) != QLatin1String("simulated")) {
        lost << tr("--pmu %1: the form runs the simulated PMU with its default settings")
                    .arg(qs(engine::toString(spec.pmu)));
    }
    if (spec.until) {
        setUntilDecided(true, spec.until->maxTime, spec.until->marginPct);
    } else {
        setUntilDecided(false, m_maxTime->value(), m_margin->value());
    }
    if (!setCpuSelection(spec.cpus)) {
        lost << tr("CPUs %1: not all of them are offered here; none of those is ticked")
                    .arg(qs(base::formatCpuList(spec.cpus)));
    }
    setLabel(qs(spec.label));
    setSweep(QString());
    // What the form has no field for: the engine's own choice applies unless the run asked for
    // something else.
    const auto checked = engine::checkExperiment(experimentRequest(form()).spec, std::nullopt, m_facts);
    const auto& points = checked.experiment.points;
    const std::optional<double> chunk = points.empty() ? std::optional(w->defaultChunk) : points.front().chunk;
    if (spec.chunk && chunk != spec.chunk) {
        lost << tr("--chunk %1: the form leaves the chunk to the engine").arg(*spec.chunk);
    }
    m_shareCpus->setChecked(spec.shareCpus);
    if (!spec.housekeeping.empty()) {
        lost << tr("--housekeeping %1: the form leaves the harness's CPUs to the engine")
                    .arg(qs(base::formatCpuList(spec.housekeeping)));
    }
    if (spec.setups && !points.empty() && points.front().setups != spec.setups) {
        lost << tr("--setups %1: the form leaves the setups to the engine").arg(*spec.setups);
    }
    if (!spec.primaryMetric.empty() && spec.primaryMetric != w->primaryMetric) {
        lost << tr("--primary %1: the form uses the workload's primary metric").arg(qs(spec.primaryMetric));
    }
    return lost;
}

}  // namespace nf::ui
