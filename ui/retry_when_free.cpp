#include "ui/retry_when_free.h"

#include <QHBoxLayout>
#include <QJsonArray>
#include <QJsonDocument>
#include <QJsonObject>
#include <QLabel>
#include <QPushButton>
#include <QRegularExpression>
#include <QTimer>

namespace nf::ui {

RetryWhenFree::RetryWhenFree(QWidget* parent)
    : QWidget(parent),
      m_text(new QLabel(this)),
      m_retry(new QPushButton(tr("Retry when free"), this)),
      m_cancel(new QPushButton(tr("Cancel"), this)),
      m_next(new QTimer(this))
{
    setObjectName(QStringLiteral("retryWhenFree"));
    m_text->setWordWrap(true);
    m_text->setTextInteractionFlags(Qt::TextSelectableByMouse);
    m_retry->setToolTip(tr("Wait until no other run measures on this design's CPUs, then start it again"));
    m_cancel->setToolTip(tr("Stop waiting; the run is not started"));
    m_next->setSingleShot(true);
    m_next->setInterval(kLookEveryMs);
    connect(m_next, &QTimer::timeout, this, &RetryWhenFree::look);
    connect(m_retry, &QPushButton::clicked, this, &RetryWhenFree::wait);
    connect(m_cancel, &QPushButton::clicked, this,
            [this] { stopWaiting(tr("Stopped waiting for %1; the run was not started.").arg(m_holder)); });
    auto* row = new QHBoxLayout(this);
    row->setContentsMargins(0, 0, 0, 0);
    row->addWidget(m_text, 1);
    row->addWidget(m_retry);
    row->addWidget(m_cancel);
    m_cancel->hide();
    hide();
}

QString RetryWhenFree::heldBy(const QString& message)
{
    // engine/run/cpu_claim.cpp, claimCpus: "CPU <n> is measured by another run, <holder>; wait for it, ..."
    static const QRegularExpression refusal(QStringLiteral("CPU (\\d+) is measured by another run, (.+); wait for it"));
    const auto m = refusal.match(message);
    return m.hasMatch() ? tr("CPU %1: %2").arg(m.captured(1), m.captured(2)) : QString();
}

void RetryWhenFree::offer(const QStringList& arguments, const QString& refusal, Launcher launch)
{
    dropQuestion();
    m_arguments = arguments;
    m_holder = heldBy(refusal);
    m_launch = std::move(launch);
    stopWaiting(tr("%1 measures there. Retry when free starts the same design once no run measures on its CPUs.")
                    .arg(m_holder));
    show();
}

void RetryWhenFree::wait()
{
    if (m_waiting || m_arguments.isEmpty()) {
        return;
    }
    m_waiting = true;
    m_retry->hide();
    m_cancel->show();
    m_text->setText(
        tr("Waiting for %1 to end; looking every second, then starting the same design again.").arg(m_holder));
    show();
    look();
}

void RetryWhenFree::withdraw()
{
    m_waiting = false;
    dropQuestion();
    hide();
}

QString RetryWhenFree::text() const
{
    return m_text->text();
}

void RetryWhenFree::look()
{
    if (!m_waiting || m_engine != nullptr) {
        return;
    }
    const auto [program, args] =
        m_launch(QStringList(m_arguments)
                 << QStringLiteral("--dry-run") << QStringLiteral("--format") << QStringLiteral("json"));
    m_engine = new QProcess(this);
    connect(m_engine, &QProcess::finished, this, &RetryWhenFree::onAnswer);
    connect(m_engine, &QProcess::errorOccurred, this, [this](QProcess::ProcessError e) {
        if (e == QProcess::FailedToStart) {
            stopWaiting(tr("Cannot ask the engine which CPUs are in use: %1").arg(m_engine->errorString()));
        }
    });
    m_engine->start(program, args);
}

void RetryWhenFree::onAnswer(int exitCode, QProcess::ExitStatus status)
{
    auto* engine = m_engine;
    m_engine = nullptr;
    engine->deleteLater();
    if (!m_waiting) {
        return;
    }
    const QJsonObject answer = QJsonDocument::fromJson(engine->readAllStandardOutput()).object();
    if (status != QProcess::NormalExit || exitCode != 0 || !answer.contains(QStringLiteral("cpus_in_use"))) {
        const QString why = QString::fromUtf8(engine->readAllStandardError()).trimmed();
        stopWaiting(tr("Stopped waiting: the engine could not say which CPUs are in use (%1).")
                        .arg(why.isEmpty() ? tr("exit status %1").arg(exitCode) : why.section('\n', -1)));
        return;
    }
    const QJsonArray inUse = answer.value(QStringLiteral("cpus_in_use")).toArray();
    if (!inUse.isEmpty()) {
        m_holder = inUse.first().toString();
        m_text->setText(tr("Waiting for %1 to end%2; looking every second, then starting the same design again.")
                            .arg(m_holder, inUse.size() > 1 ? tr(" (and %1 more)").arg(inUse.size() - 1) : QString()));
        m_next->start();
        return;
    }
    m_waiting = false;
    m_cancel->hide();
    m_text->setText(tr("The CPUs are free: starting the same design again."));
    emit retry(m_arguments);
}

void RetryWhenFree::dropQuestion()
{
    m_next->stop();
    if (m_engine != nullptr) {
        m_engine->disconnect(this);
        m_engine->kill();
        m_engine->deleteLater();
        m_engine = nullptr;
    }
}

void RetryWhenFree::stopWaiting(const QString& text)
{
    m_waiting = false;
    dropQuestion();
    m_text->setText(text);
    m_cancel->hide();
    m_retry->show();
}

}  // namespace nf::ui
