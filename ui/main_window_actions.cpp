// MainWindow: starting and stopping runs, and the exports (evidence report, CSV, plots).

#include <QClipboard>
#include <QFileDialog>
#include <QGuiApplication>
#include <QRegularExpression>
#include <QTabWidget>

#include <fstream>

#include "data/export.h"
#include "data/schema.h"
#include "ui/compare_panel.h"
#include "ui/engine_program.h"
#include "ui/event_client.h"
#include "ui/experiment_editor.h"
#include "ui/live_panel.h"
#include "ui/main_window.h"

namespace nf::ui {

bool MainWindow::startRun()
{
    if (m_client->running() || !m_editor->runEnabled()) {
        return false;
    }
    const QStringList args = m_editor->arguments(m_path);
    m_live->clear();
    m_editor->setRunning(true);
    m_ownRun = true;
    m_sweepRun = m_editor->isSweep();
    m_client->start(engineProgram(), args);
    setStatus(tr("running: %1").arg(m_editor->commandLine(QString())));
    m_tabs->setCurrentWidget(m_live);
    return true;
}

void MainWindow::stopRun()
{
    m_client->stop();
}

void MainWindow::onRunEnded(qint64 runId, const QString& status)
{
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
    if (!m_ownRun || !m_sweepRun) {
        return;
    }
    m_ownRun = false;
    m_sweepRun = false;
    reload();
    if (auto db = data::openStore(m_path.toStdString(), data::Database::Mode::ReadOnly)) {
        const auto sweeps = listSweeps(*db);
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
    const QString file = QFileDialog::getSaveFileName(this, tr("Save comparison plots"), QStringLiteral("compare.png"),
                                                      tr("PNG image (*.png);;PDF document (*.pdf)"));
    if (file.isEmpty()) {
        return;
    }
    setStatus(m_compare->saveImage(file) ? tr("Saved %1").arg(file) : tr("Cannot write %1").arg(file));
}

void MainWindow::exportCsv()
{
    if (m_loaded.empty()) {
        setStatus(tr("Nothing to export: select a run in History first"));
        return;
    }
    const QString file =
        QFileDialog::getSaveFileName(this, tr("Export samples as CSV"),
                                     QStringLiteral("run%1.csv").arg(m_loaded.front()->row.id), tr("CSV (*.csv)"));
    if (file.isEmpty()) {
        return;
    }
    QStringList written;
    for (std::size_t i = 0; i < m_loaded.size(); ++i) {
        if (i > 0 && m_loaded[i]->row.id == m_loaded[i - 1]->row.id) {
            continue;
        }
        QString name = file;
        if (m_loaded.size() > 1) {
            name.replace(QRegularExpression(QStringLiteral("(\\.csv)?$")),
                         QStringLiteral("-run%1.csv").arg(m_loaded[i]->row.id));
        }
        std::ofstream out(name.toStdString());
        data::writeCsv(*m_loaded[i], out);
        if (!out) {
            setStatus(tr("Cannot write %1").arg(name));
            return;
        }
        written << name;
    }
    setStatus(tr("Wrote %1").arg(written.join(", ")));
}

}  // namespace nf::ui
