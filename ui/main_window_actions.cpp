// MainWindow: starting and stopping runs, and the exports (evidence report, CSV, plots).

#include <QClipboard>
#include <QGuiApplication>
#include <QSaveFile>
#include <QTabWidget>
#include <QTimer>

#include <algorithm>
#include <sstream>

#include "data/export.h"
#include "data/schema.h"
#include "ui/compare_panel.h"
#include "ui/engine_program.h"
#include "ui/event_client.h"
#include "ui/experiment_editor.h"
#include "ui/file_dialog.h"
#include "ui/live_panel.h"
#include "ui/main_window.h"

namespace nf::ui {

namespace {

constexpr int kRemoteStopGraceMs = 15000;  // Stop on a remote run: how long before ssh is ended

}  // namespace

bool MainWindow::startRun()
{
    if (m_client->running() || !m_editor->runEnabled()) {
        return false;
    }
    if (m_remoteStopGrace != nullptr) {
        m_remoteStopGrace->stop();  // a late Stop of the previous run must not end this one
    }
    m_live->starting();
    m_editor->setRunning(true);
    m_ownRun = true;
    m_sweepRun = m_editor->isSweep();
    if (m_remote != nullptr) {  // into the host's own database; copied here when it ends
        m_remoteDb.clear();
        m_client->start(QStringLiteral("ssh"), m_remote->arguments(m_editor->arguments(QString())
                                                                   << QStringLiteral("--stop-when-stdin-closes")));
        setStatus(tr("running on %1: %2").arg(m_remote->host().dest, m_editor->commandLine(QString())));
    } else {
        m_client->start(engineProgram(), m_editor->arguments(m_path));
        setStatus(tr("running: %1").arg(m_editor->commandLine(QString())));
    }
    m_tabs->setCurrentWidget(m_live);
    return true;
}

void MainWindow::stopRun()
{
    if (m_remote == nullptr) {
        m_client->stop();
        return;
    }
    // A signal would end ssh, not the run behind it: the run stops when its stdin closes, says so
    // and is copied here. Should the host not answer, ssh itself is ended.
    m_client->closeInput();
    m_remoteStopGrace->start();
}

void MainWindow::setRemoteHost(const RemoteHost& host)
{
    if (m_remote == nullptr) {
        connect(m_client, &EventClient::runStarted, this, [this](const LiveRunInfo& info) { m_remoteDb = info.db; });
    }
    delete m_remote;
    m_remote = new RemoteEngine(host, this);
    if (m_remoteStopGrace == nullptr) {
        m_remoteStopGrace = new QTimer(this);
        m_remoteStopGrace->setSingleShot(true);
        m_remoteStopGrace->setInterval(kRemoteStopGraceMs);
        connect(m_remoteStopGrace, &QTimer::timeout, m_client, &EventClient::stop);
    }
    connect(m_remote, &RemoteEngine::fetched, this, &MainWindow::onFetched);
    connect(m_remote, &RemoteEngine::fetchFailed, this, [this](qint64, const QString& message) { setStatus(message); });
    connect(m_remote, &RemoteEngine::idle, this, [this] {
        if (m_sweepRun && !m_client->running()) {
            onEngineEnded();
        }
    });
    setWindowTitle(tr("noisefloor - runs on %1").arg(host.dest));
}

void MainWindow::onFetched(qint64 remoteRun, qint64 localRun, const QString& note)
{
    if (m_store) {
        reload();
    } else {
        openDatabase(m_path);  // the merge made it
    }
    if (localRun > 0 && !m_sweepRun && selectRun(localRun)) {
        m_tabs->setCurrentWidget(m_compare);
    }
    setStatus(note.isEmpty()
                  ? tr("run %1 on %2 copied here as run %3").arg(remoteRun).arg(m_remote->host().dest).arg(localRun)
                  : tr("run %1 on %2: %3 as run %4").arg(remoteRun).arg(m_remote->host().dest, note).arg(localRun));
}

void MainWindow::onRunEnded(qint64 runId, const QString& status)
{
    if (m_remote != nullptr && m_ownRun && runId > 0 && !m_remoteDb.isEmpty()) {
        m_remote->fetch(m_remoteDb, runId, m_path);
        setStatus(tr("run %1 %2 on %3: copying it here").arg(runId).arg(status, m_remote->host().dest));
        m_ownRun = m_sweepRun;  // a sweep's later points still come
        return;
    }
    if (!m_ownRun || m_sweepRun) {
        return;  // a replayed stream (its run lives in another database), or a sweep point
    }
    m_ownRun = false;
    reload();
    if (runId > 0 && selectRun(runId)) {
        setStatus(tr("run %1 %2").arg(runId).arg(status));
        if (status == QLatin1String("complete")) {
            m_tabs->setCurrentWidget(m_compare);
        }
    }
}

void MainWindow::onEngineEnded()
{
    if (!m_ownRun || !m_sweepRun || (m_remote != nullptr && m_remote->busy())) {
        return;  // a remote sweep: shown once its runs are copied (RemoteEngine::idle)
    }
    m_ownRun = false;
    m_sweepRun = false;
    reload();
    if (m_store) {
        const auto sweeps = m_store->read([](data::Database& db) { return listSweeps(db); });
        if (!sweeps.empty()) {
            showSweep(sweeps.front().first);
        }
    }
}

void MainWindow::copyEvidenceReport()
{
    const QString report = m_compare->reportText();
    if (m_selection.empty() || report.isEmpty()) {
        setStatus(tr("Nothing to report: select a run in History first"));
        return;
    }
    QGuiApplication::clipboard()->setText(report);
    setStatus(tr("Evidence report copied to the clipboard (%1 lines)").arg(report.count('\n')));
}

void MainWindow::saveImage()
{
    const QString file = chooseFileToSave(this, tr("Save comparison plots"), QStringLiteral("compare.png"),
                                          tr("PNG image (*.png);;PDF document (*.pdf)"));
    if (file.isEmpty()) {
        return;
    }
    setStatus(m_compare->saveImage(file) ? tr("Saved %1").arg(file) : tr("Cannot write %1").arg(file));
}

namespace {

// The fields of one CSV line as written (quotes kept); the exports put no newline in a field.
QStringList csvFields(const QString& line)
{
    QStringList fields{QString()};
    bool quoted = false;
    for (const QChar c : line) {
        if (c == QLatin1Char('"')) {
            quoted = !quoted;
        }
        if (c == QLatin1Char(',') && !quoted) {
            fields << QString();
        } else {
            fields.back() += c;
        }
    }
    return fields;
}

QString unquoted(QString field)
{
    if (field.startsWith(QLatin1Char('"')) && field.endsWith(QLatin1Char('"')) && field.size() >= 2) {
        field = field.mid(1, field.size() - 2).replace(QStringLiteral("\"\""), QStringLiteral("\""));
    }
    return field;
}

// The samples of the chosen variants of every run in one table: the columns of all runs (a run
// without a column leaves it empty), the runs' comment lines (SIMULATED notes) first.
QString mergedCsv(const std::vector<std::shared_ptr<const engine::RunRecord>>& runs, const RunSelection& chosen)
{
    QStringList comments;
    QStringList columns;
    std::vector<std::pair<QStringList, QStringList>> rows;  // header of its run, fields
    for (const auto& run : runs) {
        std::ostringstream text;
        data::writeCsv(*run, text);
        QStringList header;
        for (const QString& line : QString::fromStdString(text.str()).split(QLatin1Char('\n'), Qt::SkipEmptyParts)) {
            if (line.startsWith(QLatin1Char('#'))) {
                if (!comments.contains(line)) {
                    comments << line;
                }
                continue;
            }
            const QStringList fields = csvFields(line);
            if (header.isEmpty()) {
                header = fields;
                for (const auto& column : header) {
                    if (!columns.contains(column)) {
                        columns << column;
                    }
                }
                continue;
            }
            const QString variant = unquoted(fields.value(1));
            const bool wanted = std::any_of(chosen.begin(), chosen.end(), [&](const auto& c) {
                return c.first == run->row.id && (c.second.isEmpty() || c.second == variant);
            });
            if (wanted) {
                rows.emplace_back(header, fields);
            }
        }
    }
    QStringList out = comments;
    out << columns.join(QLatin1Char(','));
    for (const auto& [header, fields] : rows) {
        QStringList line;
        for (const auto& column : columns) {
            const auto at = header.indexOf(column);
            line << (at >= 0 ? fields.value(at) : QString());
        }
        out << line.join(QLatin1Char(','));
    }
    return out.join(QLatin1Char('\n')) + QLatin1Char('\n');
}

}  // namespace

void MainWindow::exportCsv()
{
    if (m_loaded.empty()) {
        setStatus(tr("Nothing to export: select a run in History first"));
        return;
    }
    QStringList ids;
    for (const auto& run : m_loaded) {
        ids << QString::number(run->row.id);
    }
    ids.removeDuplicates();
    const QString file =
        chooseFileToSave(this, tr("Export samples as CSV"), QStringLiteral("run%1.csv").arg(ids.join(QLatin1Char('-'))),
                         tr("CSV (*.csv)"));
    if (file.isEmpty()) {
        return;
    }
    std::vector<std::shared_ptr<const engine::RunRecord>> runs;
    for (const auto& run : m_loaded) {
        if (std::none_of(runs.begin(), runs.end(), [&](const auto& r) { return r->row.id == run->row.id; })) {
            runs.push_back(run);
        }
    }
    QSaveFile out(file);
    if (!out.open(QIODevice::WriteOnly) || out.write(mergedCsv(runs, m_selection).toUtf8()) < 0 || !out.commit()) {
        setStatus(tr("Cannot write %1").arg(file));
        return;
    }
    setStatus(tr("Wrote %1 (runs %2)").arg(file, ids.join(QStringLiteral(", "))));
}

}  // namespace nf::ui
