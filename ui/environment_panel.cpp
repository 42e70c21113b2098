#include "ui/environment_panel.h"

#include <QHBoxLayout>
#include <QHeaderView>
#include <QJsonArray>
#include <QJsonDocument>
#include <QJsonObject>
#include <QLabel>
#include <QProcess>
#include <QPushButton>
#include <QTableWidget>
#include <QVBoxLayout>

#include "ui/engine_program.h"
#include "ui/remote_engine.h"

namespace nf::ui {

EnvironmentPanel::EnvironmentPanel(QWidget* parent)
    : QWidget(parent),
      m_table(new QTableWidget(0, 4, this)),
      m_summary(new QLabel(this)),
      m_again(new QPushButton(tr("Check again"), this))
{
    m_table->setHorizontalHeaderLabels({tr("level"), tr("check"), tr("finding"), tr("fix")});
    m_table->verticalHeader()->hide();
    m_table->setEditTriggers(QAbstractItemView::NoEditTriggers);
    m_table->setWordWrap(true);
    m_table->horizontalHeader()->setSectionResizeMode(0, QHeaderView::ResizeToContents);
    m_table->horizontalHeader()->setSectionResizeMode(1, QHeaderView::ResizeToContents);
    m_table->horizontalHeader()->setSectionResizeMode(2, QHeaderView::Stretch);
    m_table->horizontalHeader()->setSectionResizeMode(3, QHeaderView::Stretch);
    m_summary->setWordWrap(true);
    connect(m_again, &QPushButton::clicked, this, &EnvironmentPanel::refresh);
    auto* top = new QHBoxLayout;
    top->addWidget(m_summary, 1);
    top->addWidget(m_again);
    auto* layout = new QVBoxLayout(this);
    layout->addLayout(top);
    layout->addWidget(m_table, 1);
    m_summary->setText(tr("What this machine can measure and what adds noise (`noisefloor check`)."));
}

void EnvironmentPanel::refuseChecks(const QString& why)
{
    m_refusal = why;
    m_summary->setText(why);
    m_again->setVisible(false);
    m_loaded = true;
}

void EnvironmentPanel::checkOn(const RemoteEngine* remote)
{
    m_remote = remote;
    m_loaded = false;
    m_table->setRowCount(0);
    m_again->setVisible(m_remote != nullptr || m_refusal.isEmpty());
    m_summary->setText(m_remote == nullptr && !m_refusal.isEmpty()
                           ? m_refusal
                           : tr("What %1 can measure and what adds noise (`noisefloor check`).").arg(where()));
}

QString EnvironmentPanel::where() const
{
    return m_remote == nullptr ? tr("this machine") : tr("host %1 (over ssh)").arg(m_remote->host().dest);
}

void EnvironmentPanel::refresh()
{
    if (m_remote == nullptr && !m_refusal.isEmpty()) {
        return;  // refuseChecks said why
    }
    if (m_process != nullptr && m_process->state() != QProcess::NotRunning) {
        return;
    }
    delete m_process;
    m_process = new QProcess(this);
    m_summary->setText(tr("checking %1...").arg(where()));
    connect(m_process, &QProcess::finished, this, [this](int code, QProcess::ExitStatus status) {
        const QByteArray out = m_process->readAllStandardOutput();
        if (status != QProcess::NormalExit || code != 0 || !showCheckOutput(out)) {
            m_summary->setText(tr("`noisefloor check` on %1 failed: %2")
                                   .arg(where(), QString::fromUtf8(m_process->readAllStandardError()).trimmed()));
        }
        m_loaded = true;
    });
    connect(m_process, &QProcess::errorOccurred, this, [this](QProcess::ProcessError e) {
        if (e == QProcess::FailedToStart) {
            m_summary->setText(tr("cannot start %1: %2").arg(m_process->program(), m_process->errorString()));
            m_loaded = true;
        }
    });
    m_loaded = false;
    const QStringList check = {QStringLiteral("check"), QStringLiteral("--format"), QStringLiteral("json")};
    if (m_remote != nullptr) {
        m_process->start(QStringLiteral("ssh"), m_remote->arguments(check));
    } else {
        m_process->start(engineProgram(), check);
    }
}

bool EnvironmentPanel::showCheckOutput(const QByteArray& json)
{
    const QJsonDocument doc = QJsonDocument::fromJson(json);
    if (!doc.isArray()) {
        return false;
    }
    m_table->setRowCount(0);
    m_warnings = 0;
    int failures = 0;
    for (const auto& item : doc.array()) {
        const QJsonObject c = item.toObject();
        const QString level = c.value("level").toString();
        const int row = m_table->rowCount();
        m_table->insertRow(row);
        const QStringList cells = {level, c.value("name").toString(), c.value("detail").toString(),
                                   c.value("fix").toString()};
        QColor background;
        if (level == QLatin1String("warn")) {
            background = QColor(0xff, 0xf0, 0xc0);
            ++m_warnings;
        } else if (level == QLatin1String("fail")) {
            background = QColor(0xff, 0xd0, 0xd0);
            ++failures;
        }
        for (int column = 0; column < cells.size(); ++column) {
            auto* cell = new QTableWidgetItem(cells[column]);
            if (background.isValid()) {
                cell->setBackground(background);
            }
            if (column == 0 && background.isValid()) {
                QFont bold = cell->font();
                bold.setBold(true);
                cell->setFont(bold);
            }
            m_table->setItem(row, column, cell);
        }
    }
    m_table->resizeRowsToContents();
    m_summary->setText(tr("%1: %2 checks, %3 warning(s) and %4 failure(s), highlighted; each comes with its fix.")
                           .arg(where().left(1).toUpper() + where().mid(1))
                           .arg(m_table->rowCount())
                           .arg(m_warnings)
                           .arg(failures));
    return true;
}

QString EnvironmentPanel::summaryText() const
{
    return m_summary->text();
}

void EnvironmentPanel::waitForCheck(int timeoutMs)
{
    if (m_process != nullptr && m_process->state() != QProcess::NotRunning) {
        m_process->waitForFinished(timeoutMs);
    }
}

}  // namespace nf::ui
