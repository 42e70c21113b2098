// ExperimentEditor: checking the input in place and turning it into `noisefloor run` arguments.

#include <QComboBox>
#include <QDoubleSpinBox>
#include <QLabel>
#include <QLineEdit>
#include <QListWidget>
#include <QPushButton>
#include <QSpinBox>
#include <QTableWidget>

#include <set>

#include "experiment_editor.h"

namespace nf::ui {

namespace {

const QString kInvalidStyle = QStringLiteral("background-color: #ffd9d9;");

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

}  // namespace

QStringList ExperimentEditor::variantProblems(int row, const WorkloadInfoView& w)
{
    QStringList problems;
    const QString overrides = cellText(m_variants, row, 1);
    for (const auto& part : overrides.split(',', Qt::SkipEmptyParts)) {
        const qsizetype eq = part.indexOf('=');
        const QString key = part.left(eq).trimmed();
        const ParamInfo* p = eq > 0 ? w.param(key) : nullptr;
        if (eq <= 0) {
            problems << tr("'%1': expected key=value").arg(part.trimmed());
        } else if (p == nullptr) {
            problems << tr("%1 has no parameter '%2'").arg(w.name, key);
        } else if (const QString why = p->check(part.mid(eq + 1)); !why.isEmpty()) {
            problems << QStringLiteral("%1: %2").arg(key, why);
        }
    }
    return problems;
}

QString ExperimentEditor::sweepProblem(const WorkloadInfoView& w) const
{
    const QString text = m_sweep->text().trimmed();
    if (text.isEmpty()) {
        return {};
    }
    const qsizetype eq = text.indexOf('=');
    const ParamInfo* p = eq > 0 ? w.param(text.left(eq).trimmed()) : nullptr;
    if (eq <= 0) {
        return tr("sweep '%1': expected PARAM=v1,v2,...").arg(text);
    }
    if (p == nullptr) {
        return tr("sweep: %1 has no parameter '%2'").arg(w.name, text.left(eq).trimmed());
    }
    const QStringList values = text.mid(eq + 1).split(',', Qt::SkipEmptyParts);
    if (values.size() < 2) {
        return tr("sweep: give at least two values of %1").arg(p->name);
    }
    for (const auto& v : values) {
        if (const QString why = p->check(v); !why.isEmpty()) {
            return tr("sweep %1: %2").arg(p->name, why);
        }
    }
    for (int row = 0; row < m_variants->rowCount(); ++row) {
        if (cellText(m_variants, row, 1).contains(p->name + "=")) {
            return tr("sweep: variant %1 sets %2 itself; a sweep sets it for every variant")
                .arg(cellText(m_variants, row, 0), p->name);
        }
    }
    return {};
}

void ExperimentEditor::validate()
{
    m_problems.clear();
    const WorkloadInfoView* w = current();
    if (w == nullptr) {
        m_problems << tr("no workload: the engine's workload list could not be read");
    }
    for (std::size_t i = 0; w != nullptr && i < w->params.size() && i < m_paramFields.size(); ++i) {
        const QString value = paramValue(static_cast<int>(i));
        const QString why = value.isEmpty() ? QString() : w->params[i].check(value);
        mark(m_paramFields[i], why);
        if (!why.isEmpty()) {
            m_problems << QStringLiteral("%1: %2").arg(w->params[i].name, why);
        }
    }
    const QSignalBlocker block(m_variants);
    std::set<QString> names;
    if (m_variants->rowCount() == 0) {
        m_problems << tr("add at least one variant");
    }
    for (int row = 0; row < m_variants->rowCount(); ++row) {
        for (int column = 0; column < 2; ++column) {
            if (m_variants->item(row, column) == nullptr) {
                m_variants->setItem(row, column, new QTableWidgetItem);
            }
        }
        const QString name = cellText(m_variants, row, 0);
        QString nameProblem;
        if (name.isEmpty()) {
            nameProblem = tr("variant %1 has no name").arg(row + 1);
        } else if (name.contains(':') || name.contains(',') || name.contains(' ')) {
            nameProblem = tr("variant name '%1': no ':', ',' or spaces").arg(name);
        } else if (!names.insert(name).second) {
            nameProblem = tr("variant name '%1' is used twice").arg(name);
        }
        markItem(m_variants->item(row, 0), nameProblem);
        const QStringList overrideProblems = w != nullptr ? variantProblems(row, *w) : QStringList();
        markItem(m_variants->item(row, 1), overrideProblems.join('\n'));
        if (!nameProblem.isEmpty()) {
            m_problems << nameProblem;
        }
        for (const auto& p : overrideProblems) {
            m_problems << tr("variant %1: %2").arg(name.isEmpty() ? QString::number(row + 1) : name, p);
        }
    }
    const QString sweepWhy = w != nullptr ? sweepProblem(*w) : QString();
    mark(m_sweep, sweepWhy);
    if (!sweepWhy.isEmpty()) {
        m_problems << sweepWhy;
    }
    m_problemsLabel->setText(m_problems.join('\n'));
    m_command->setText(m_problems.isEmpty() ? QStringLiteral("$ ") + commandLine(QString()) : QString());
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
    const WorkloadInfoView* w = current();
    QStringList args;
    if (!dbPath.isEmpty()) {
        args << QStringLiteral("--db") << dbPath;
    }
    args << QStringLiteral("run") << (w != nullptr ? w->name : QString());
    for (std::size_t i = 0; w != nullptr && i < w->params.size() && i < m_paramFields.size(); ++i) {
        const QString value = paramValue(static_cast<int>(i));
        if (!value.isEmpty() && value != w->params[i].defaultValue) {
            args << QStringLiteral("-p") << w->params[i].name + "=" + value;
        }
    }
    for (int row = 0; row < m_variants->rowCount(); ++row) {
        QString variant = cellText(m_variants, row, 0);
        QStringList overrides;
        for (const auto& part : cellText(m_variants, row, 1).split(',', Qt::SkipEmptyParts)) {
            overrides << part.trimmed().remove(' ');
        }
        if (!overrides.isEmpty()) {
            variant += ":" + overrides.join(',');
        }
        args << QStringLiteral("--variant") << variant;
    }
    args << QStringLiteral("--reps") << QString::number(m_reps->value());
    args << QStringLiteral("--duration") << QString::number(m_duration->value(), 'g', 6);
    args << QStringLiteral("--warmup") << QString::number(m_warmup->value(), 'g', 6);
    args << QStringLiteral("--order") << m_order->currentText();
    QStringList cpus;
    for (int i = 0; i < m_cpus->count(); ++i) {
        if (m_cpus->item(i)->checkState() == Qt::Checked) {
            cpus << m_cpus->item(i)->data(Qt::UserRole).toString();
        }
    }
    if (!cpus.isEmpty()) {
        args << QStringLiteral("--cpu") << cpus.join(',');
    }
    if (!m_label->text().trimmed().isEmpty()) {
        args << QStringLiteral("--label") << m_label->text().trimmed();
    }
    if (isSweep()) {
        args << QStringLiteral("--sweep") << m_sweep->text().remove(' ');
    }
    return args;
}

QString ExperimentEditor::commandLine(const QString& dbPath) const
{
    QStringList words{QStringLiteral("noisefloor")};
    for (const auto& a : arguments(dbPath)) {
        words << shellQuote(a);
    }
    return words.join(' ');
}

}  // namespace nf::ui
