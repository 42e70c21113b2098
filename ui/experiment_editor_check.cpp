// ExperimentEditor: the form as the spec the engine checks and the `noisefloor run` arguments that
// give that spec, and the engine's problems marked where they are.

#include <QCheckBox>
#include <QComboBox>
#include <QDoubleSpinBox>
#include <QLabel>
#include <QLineEdit>
#include <QListWidget>
#include <QPushButton>
#include <QSpinBox>
#include <QTableWidget>

#include "ui/experiment_editor.h"

namespace nf::ui {

namespace {

const QString kInvalidStyle = QStringLiteral("background-color: #ffd9d9;");

QString qs(const std::string& s)
{
    return QString::fromStdString(s);
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

QString shellQuote(const QString& arg)
{
    static const QString safe =
        QStringLiteral("abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRSTUVWXYZ0123456789_-.,:=/+@%");
    const bool plain = !arg.isEmpty() && std::all_of(arg.begin(), arg.end(), [](QChar c) { return safe.contains(c); });
    return plain ? arg : "'" + QString(arg).replace("'", "'\\''") + "'";
}

QString cellText(const QTableWidget* table, int row, int column)
{
    const QTableWidgetItem* item = table->item(row, column);
    return item != nullptr ? item->text().trimmed() : QString();
}

// How the form names each field of the experiment in its problem lines.
QString fieldLabel(engine::SpecField field)
{
    switch (field) {
        case engine::SpecField::Workload: return QObject::tr("Workload");
        case engine::SpecField::Repetitions: return QObject::tr("Repetitions");
        case engine::SpecField::Duration: return QObject::tr("Duration");
        case engine::SpecField::Warmup: return QObject::tr("Warmup");
        case engine::SpecField::Interval: return QObject::tr("Interval");
        case engine::SpecField::Chunk: return QObject::tr("Chunk");
        case engine::SpecField::Variants: return QObject::tr("Variant name");
        case engine::SpecField::Param: return QObject::tr("Parameters");
        case engine::SpecField::Cpus: return QObject::tr("Worker CPU");
        case engine::SpecField::Counters: return QObject::tr("Counters");
        case engine::SpecField::Pmu: return QObject::tr("PMU");
        case engine::SpecField::Sweep: return QObject::tr("Sweep");
        case engine::SpecField::Until: return QObject::tr("Run until decided");
        case engine::SpecField::MaxTime: return QObject::tr("Max time");
        case engine::SpecField::Margin: return QObject::tr("Margin");
        case engine::SpecField::Alpha: return QObject::tr("Alpha");
    }
    return {};
}

// The seconds as the argument carries them, so the spec and the CLI read the same number.
QString seconds(double v)
{
    return QString::number(v, 'g', 6);
}

}  // namespace

QStringList ExperimentEditor::variantOverrides(int row) const
{
    QStringList overrides;
    for (const auto& part : cellText(m_variants, row, 1).split(',', Qt::SkipEmptyParts)) {
        const QString cleaned = part.trimmed().remove(' ');
        if (!cleaned.isEmpty()) {
            overrides << cleaned;
        }
    }
    return overrides;
}

ExperimentEditor::Request ExperimentEditor::request() const
{
    Request r;
    const engine::WorkloadDescriptor* w = current();
    auto& spec = r.spec;
    spec.workload = w != nullptr ? w->name : "";
    r.arguments << QStringLiteral("run") << qs(spec.workload);
    for (std::size_t i = 0; w != nullptr && i < w->params.size() && i < m_paramFields.size(); ++i) {
        const QString value = paramValue(static_cast<int>(i));
        if (!value.isEmpty() && value != qs(w->params[i].defaultValue)) {
            spec.params[w->params[i].name] = value.toStdString();
            r.arguments << QStringLiteral("-p") << qs(w->params[i].name) + "=" + value;
        }
    }
    for (int row = 0; row < m_variants->rowCount(); ++row) {
        const QString name = cellText(m_variants, row, 0);
        const QStringList overrides = variantOverrides(row);
        engine::VariantSpec v{name.toStdString(), {}};
        if (!overrides.isEmpty()) {
            auto parsed = engine::parseOverrides(overrides.join(',').toStdString());
            if (parsed) {
                v.overrides = std::move(*parsed);
            } else {
                r.syntaxProblems << tr("variant %1: %2")
                                        .arg(name.isEmpty() ? QString::number(row + 1) : name,
                                             qs(parsed.error().message));
                r.badRows.push_back(row);
            }
        }
        spec.variants.push_back(std::move(v));
        r.arguments << QStringLiteral("--variant") << (overrides.isEmpty() ? name : name + ":" + overrides.join(','));
    }
    spec.repetitions = m_reps->value();
    spec.duration = seconds(m_duration->value()).toDouble();
    spec.warmup = seconds(m_warmup->value()).toDouble();
    if (auto order = engine::parseOrder(m_order->currentText().toStdString())) {
        spec.order = *order;
    }
    r.arguments << QStringLiteral("--reps") << QString::number(spec.repetitions) << QStringLiteral("--duration")
                << seconds(spec.duration) << QStringLiteral("--warmup") << seconds(spec.warmup)
                << QStringLiteral("--order") << m_order->currentText();
    if (m_until->isChecked()) {
        spec.until = engine::UntilDecided{.maxTime = m_maxTime->value(), .marginPct = m_margin->value(), .alpha = 0.05};
        r.arguments << QStringLiteral("--until") << QStringLiteral("decided") << QStringLiteral("--max-time")
                    << QString::number(spec.until->maxTime, 'g', 12) << QStringLiteral("--margin")
                    << QString::number(spec.until->marginPct, 'g', 12);
    }
    if (m_pmu->currentData().toString() == QLatin1String("simulated")) {
        spec.pmu.simulated = true;
        r.arguments << QStringLiteral("--pmu") << QStringLiteral("simulated");
    }
    QStringList cpus;
    for (int i = 0; i < m_cpus->count(); ++i) {
        if (m_cpus->item(i)->checkState() == Qt::Checked) {
            spec.cpus.push_back(m_cpus->item(i)->data(Qt::UserRole).toInt());
            cpus << QString::number(spec.cpus.back());
        }
    }
    if (!cpus.isEmpty()) {
        r.arguments << QStringLiteral("--cpu") << cpus.join(',');
    }
    spec.label = m_label->text().trimmed().toStdString();
    if (!spec.label.empty()) {
        r.arguments << QStringLiteral("--label") << qs(spec.label);
    }
    const QString sweep = m_sweep->text().remove(' ');
    if (!sweep.isEmpty()) {
        r.arguments << QStringLiteral("--sweep") << sweep;
        if (auto parsed = engine::parseSweep(sweep.toStdString())) {
            r.sweep = std::move(*parsed);
        } else {
            r.syntaxProblems << tr("Sweep %1").arg(qs(parsed.error().message));
            r.badSweep = true;
        }
    }
    return r;
}

void ExperimentEditor::markProblems(const Request& r, const std::vector<engine::SpecProblem>& problems)
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
        const QString text = qs(engine::describe(p, fieldLabel(p.field).toStdString()));
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

void ExperimentEditor::validate()
{
    m_problems.clear();
    const QSignalBlocker block(m_variants);
    for (int row = 0; row < m_variants->rowCount(); ++row) {
        for (int column = 0; column < 2; ++column) {
            if (m_variants->item(row, column) == nullptr) {
                m_variants->setItem(row, column, new QTableWidgetItem);
            }
        }
    }
    const Request r = request();
    std::vector<engine::SpecProblem> problems;
    if (current() == nullptr) {
        m_problems << tr("no workload");
    } else if (m_variants->rowCount() == 0) {
        m_problems << tr("add at least one variant");
    } else if (r.syntaxProblems.isEmpty()) {
        problems = engine::checkExperiment(r.spec, r.sweep, m_facts).problems;
    }
    m_problems << r.syntaxProblems;
    for (const auto& p : problems) {
        m_problems << qs(engine::describe(p, fieldLabel(p.field).toStdString()));
    }
    markProblems(r, problems);
    m_problemsLabel->setText(m_problems.join('\n'));
    m_problemsLabel->setVisible(!m_problems.isEmpty());
    m_command->setText(m_problems.isEmpty() ? QStringLiteral("$ ") + commandLine(QString()) : QString());
    m_command->setVisible(m_problems.isEmpty());
    m_run->setEnabled(runEnabled());
}

bool ExperimentEditor::runEnabled() const
{
    return m_problems.isEmpty() && !m_running;
}

void ExperimentEditor::setRunning(bool running)
{
    m_running = running;
    m_run->setEnabled(runEnabled());
    m_stop->setEnabled(running);
}

QStringList ExperimentEditor::arguments(const QString& dbPath) const
{
    QStringList args;
    if (!dbPath.isEmpty()) {
        args << QStringLiteral("--db") << dbPath;
    }
    return args + request().arguments;
}

QString ExperimentEditor::commandLine(const QString& dbPath) const
{
    QStringList words{QStringLiteral("noisefloor")};
    for (const auto& a : arguments(dbPath)) {
        words << shellQuote(a);
    }
    return words.join(' ');
}

bool ExperimentEditor::isSweep() const
{
    return !m_sweep->text().trimmed().isEmpty();
}

}  // namespace nf::ui
