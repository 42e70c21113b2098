#include "ui/main_window.h"

#include <QAbstractItemView>
#include <QAbstractSpinBox>
#include <QAction>
#include <QApplication>
#include <QComboBox>
#include <QFileInfo>
#include <QKeyEvent>
#include <QLabel>
#include <QLineEdit>
#include <QMenuBar>
#include <QMessageBox>
#include <QPlainTextEdit>
#include <QSettings>
#include <QStatusBar>
#include <QTabWidget>
#include <QTextEdit>
#include <QTimer>

#include <qcustomplot.h>
#include <nlohmann/json.hpp>

#include "data/run_store.h"
#include "data/schema.h"
#include "ui/compare_exports.h"
#include "ui/compare_panel.h"
#include "ui/environment_panel.h"
#include "ui/experiment_editor.h"
#include "ui/explore_panel.h"
#include "ui/file_dialog.h"
#include "ui/live_panel.h"
#include "ui/remote_cpus.h"
#include "ui/repetition_plot.h"
#include "ui/run_controller.h"
#include "ui/run_list_model.h"
#include "ui/start_page.h"

namespace nf::ui {

namespace {

constexpr int kPollMs = 400;  // how soon a commit by another process shows

// Where the last design started is kept (setRememberDesign()).
QSettings designSettings()
{
    return {QSettings::IniFormat, QSettings::UserScope, QStringLiteral("noisefloor"), QStringLiteral("noisefloor-gui")};
}

}  // namespace

MainWindow::MainWindow(const QString& databasePath, LocalEngine local, QWidget* parent)
    : QMainWindow(parent),
      m_model(new RunListModel(this)),
      m_tabs(new QTabWidget(this)),
      m_editor(new ExperimentEditor(this)),
      m_live(new LivePanel(this)),
      m_compare(new ComparePanel(this)),
      m_history(new HistoryPanel(m_model, this)),
      m_environment(new EnvironmentPanel(this)),
      m_explore(new ExplorePanel(this)),
      m_runs(new RunController(m_editor, m_live, local, this)),
      m_exports(new CompareExports(m_compare, this)),
      m_loader(new RunLoader(this)),
      m_poll(new QTimer(this)),
      m_status(new QLabel(this))
{
    // The form scrolls rather than force the window wider (a workload with many fields).
    m_tabs->addTab(m_editor, tr("Experiment"));  // its form scrolls inside it, Run stays in view
    m_tabs->addTab(m_live, tr("Live"));
    m_tabs->addTab(m_compare, tr("Compare"));
    m_tabs->addTab(m_explore, tr("Explore"));
    m_tabs->addTab(m_history, tr("History"));
    m_tabs->addTab(m_environment, tr("Environment"));
    setCentralWidget(m_tabs);

    if (local == LocalEngine::NotBuilt) {
        m_environment->refuseChecks(notBuiltToMeasure());
    }

    connect(m_tabs, &QTabWidget::currentChanged, this, [this] {
        if (m_tabs->currentWidget() == m_environment && !m_environment->loaded()) {
            m_environment->refresh();
        }
    });
    connect(m_editor, &ExperimentEditor::runRequested, this, [this] { startRun(); });
    connect(m_editor, &ExperimentEditor::stopRequested, this, &MainWindow::requestStop);
    connect(m_live, &LivePanel::stopRequested, this, &MainWindow::requestStop);
    connect(m_runs, &RunController::started, this, [this] {
        m_tabs->setCurrentWidget(m_live);
        if (m_rememberDesign) {
            QSettings settings = designSettings();
            settings.setValue(QStringLiteral("experiment/spec"),
                              QString::fromStdString(engine::toJson(m_editor->designSpec()).dump()));
            settings.setValue(QStringLiteral("experiment/repetitions"), m_editor->designSpec().repetitions);
            settings.setValue(QStringLiteral("experiment/sweep"), m_editor->sweepText());
        }
    });
    connect(m_runs, &RunController::status, this, &MainWindow::setStatus);
    connect(m_runs, &RunController::runStored, this, &MainWindow::showStoredRun);
    connect(m_runs, &RunController::runCopied, this, &MainWindow::showCopiedRun);
    connect(m_runs, &RunController::sweepStored, this, &MainWindow::showNewestSweep);
    connect(m_history, &HistoryPanel::runsSelected, this, [this](const std::vector<std::int64_t>& ids) {
        RunSelection selection;
        for (auto id : ids) {
            selection.emplace_back(id, QString());
        }
        requestLoad(selection);
    });
    connect(m_history, &HistoryPanel::variantsTicked, this, [this](const RunSelection& s) { requestLoad(s); });
    connect(m_history, &HistoryPanel::rerunRequested, this, &MainWindow::loadDesignOf);
    connect(m_loader, &RunLoader::loaded, this, &MainWindow::onLoaded);
    connect(m_loader, &RunLoader::sweepLoaded, m_explore,
            [this](std::uint64_t, const SweepView& sweep) { m_explore->showSweep(sweep); });
    connect(m_explore, &ExplorePanel::sweepRequested, this, [this](const QString& id, const QString& metric) {
        if (m_store) {
            m_loader->requestSweep(m_store, id, metric);
        }
    });
    connect(m_explore, &ExplorePanel::status, this, &MainWindow::setStatus);
    connect(m_compare, &ComparePanel::copyReportRequested, this,
            [this] { m_exports->copyEvidenceReport(m_selection); });
    connect(m_compare, &ComparePanel::saveImageRequested, m_exports, &CompareExports::saveImage);
    connect(m_compare, &ComparePanel::exportCsvRequested, this,
            [this] { m_exports->exportCsv(m_loaded, m_selection); });
    connect(m_exports, &CompareExports::status, this, &MainWindow::setStatus);
    connect(m_compare, &ComparePanel::settingsRequested, this, [this](const CompareSettings& settings) {
        m_settings = settings;
        requestLoad(m_selection);
    });

    m_status->setTextInteractionFlags(Qt::TextSelectableByMouse);
    statusBar()->addWidget(m_status, 1);
    createMenus();
    resize(1200, 820);
    m_tabs->setCurrentWidget(m_history);
    m_poll->setInterval(kPollMs);
    connect(m_poll, &QTimer::timeout, this, &MainWindow::pollDatabase);
    m_poll->start();
    openDatabase(databasePath);
}

MainWindow::~MainWindow() = default;

void MainWindow::createMenus()
{
    QMenu* file = menuBar()->addMenu(tr("&File"));
    QAction* open = file->addAction(tr("&Open database..."), this, [this] { chooseDatabase(); });
    open->setShortcut(QKeySequence::Open);
    QAction* reloadAction = file->addAction(tr("&Reload"), this, [this] { reload(); });
    reloadAction->setShortcut(QKeySequence::Refresh);
    file->addSeparator();
    QAction* quit = file->addAction(tr("&Quit"), this, [this] { close(); });
    quit->setShortcut(QKeySequence::Quit);
    QMenu* runMenu = menuBar()->addMenu(tr("&Run"));
    QAction* run = runMenu->addAction(tr("&Run the experiment"), this, [this] { startRun(); });
    run->setShortcuts({QKeySequence(Qt::CTRL | Qt::Key_Return), QKeySequence(Qt::CTRL | Qt::Key_Enter)});
    // Esc is not a shortcut: a shortcut would fire from a filter field or an open drop-down too
    // (keyPressEvent() takes the Esc no widget wanted).
    QAction* stop = runMenu->addAction(tr("&Stop the run\tEsc"), this, [this] { requestStop(); });
    stop->setShortcut(QKeySequence(Qt::CTRL | Qt::Key_Period));
    QMenu* exportMenu = menuBar()->addMenu(tr("&Export"));
    exportMenu->addAction(tr("Copy evidence report (text for a mail)"), this,
                          [this] { m_exports->copyEvidenceReport(m_selection); });
    exportMenu->addAction(tr("Samples as CSV..."), this, [this] { m_exports->exportCsv(m_loaded, m_selection); });
    exportMenu->addAction(tr("Comparison plots as PNG or PDF..."), this, [this] { m_exports->saveImage(); });
}

void MainWindow::chooseDatabase()
{
    const QString dir = m_path.isEmpty() ? QString() : QFileInfo(m_path).absolutePath();
    const QString path = chooseFileToOpen(this, tr("Open noisefloor database"), dir,
                                          tr("SQLite databases (*.db *.sqlite);;All files (*)"));
    if (!path.isEmpty()) {
        openDatabase(path);
    }
}

bool MainWindow::openDatabase(const QString& path)
{
    std::shared_ptr<Store> opened;
    QString failure;
    if (QFileInfo::exists(path)) {
        if (auto store = Store::open(path)) {
            opened = std::move(*store);
        } else {
            failure = QString::fromStdString(store.error().message);
        }
    }
    // A file that is no noisefloor database leaves the open one in use, all of it: the window, the
    // runs it shows, what it exports and the database new runs go to.
    if (!failure.isEmpty() && m_store) {
        setStatus(tr("Cannot open %1: %2 - still showing %3").arg(path, failure, m_path));
        return false;
    }
    m_path = path;
    m_runs->setDatabase(path);
    m_store.reset();
    m_dataVersion.reset();
    setWindowTitle(tr("noisefloor - %1").arg(path));
    m_selection.clear();  // another database: its run ids name other runs
    m_loaded.clear();
    m_settings.baseline.clear();
    if (m_history != nullptr) {
        m_history->clearSelection();
    }
    if (!failure.isEmpty()) {
        m_model->clear();
        m_compare->showMessage(tr("cannot open the database"));
        plot()->showMessage(QString(), tr("cannot open the database"));
        setStatus(tr("Cannot open %1: %2").arg(path, failure));
        return false;
    }
    if (!opened) {
        showStartPage(path);
        m_model->clear();
        plot()->showMessage(QString(), tr("no database"));
        setStatus(tr("No database at %1 - design a run in the Experiment tab, or use File > Open database.").arg(path));
        return false;
    }
    m_store = std::move(opened);
    m_dataVersion = m_store->dataVersion();
    hideStartPage();
    reload();
    return true;
}

void MainWindow::reload()
{
    if (!m_store) {
        openDatabase(m_path);  // it may exist by now
        return;
    }
    const auto keep = m_history->selectedRuns();
    const auto place = m_history->viewPlace();
    if (auto loaded = m_store->read([this](data::Database& db) { return m_model->load(db); }); !loaded) {
        plot()->showMessage(QString(), tr("cannot read the run list"));
        setStatus(tr("Cannot read runs from %1: %2").arg(m_path, QString::fromStdString(loaded.error().message)));
        return;
    }
    m_explore->setSweeps(m_store->read([](data::Database& db) { return listSweeps(db); }));
    const int runs = m_model->rowCount();
    if (runs == 0) {
        plot()->showMessage(QString(), tr("no runs yet"));
        setStatus(tr("No runs in %1 yet - design one in the Experiment tab").arg(m_path));
        return;
    }
    setStatus((runs == 1 ? tr("1 run in %1") : tr("%1 runs in %2").arg(runs)).arg(m_path));
    if (keep.empty() || !m_history->selectRuns(keep, false)) {
        selectNewestRun();
    } else {
        m_history->restoreViewPlace(place);  // where the user browsed to, not back to the selection
        // The same runs: keep the ticked variants and the baseline.
        std::vector<std::int64_t> shown;
        for (const auto& [id, variant] : m_selection) {
            if (std::find(shown.begin(), shown.end(), id) == shown.end()) {
                shown.push_back(id);
            }
        }
        RunSelection selection = m_selection;
        if (shown != keep) {
            selection.clear();
            for (auto id : keep) {
                selection.emplace_back(id, QString());
            }
        }
        requestLoad(selection);
    }
}

bool MainWindow::selectRun(std::int64_t runId)
{
    if (!m_history->revealRuns({runId})) {  // a filter that hides it names it
        return false;
    }
    requestLoad({{runId, QString()}});
    return true;
}

void MainWindow::selectNewestRun()
{
    if (const engine::RunRow* newest = m_model->runAt(0)) {
        selectRun(newest->id);
    }
}

bool MainWindow::compare(const RunSelection& selection)
{
    std::vector<std::int64_t> ids;
    for (const auto& [id, variant] : selection) {
        if (m_model->rowOf(id) < 0) {
            setStatus(tr("No run %1 in %2").arg(id).arg(m_path));
            return false;
        }
        ids.push_back(id);
    }
    m_history->selectRuns(ids);
    requestLoad(selection);
    return !selection.empty();
}

void MainWindow::setCompareSettings(const CompareSettings& settings)
{
    m_compare->setSettings(settings);
    const QString baseline = m_settings.baseline;
    m_settings = settings;
    m_settings.baseline = baseline;
    requestLoad(m_selection);
}

QStringList MainWindow::tabNames()
{
    return {QStringLiteral("experiment"), QStringLiteral("live"),    QStringLiteral("compare"),
            QStringLiteral("explore"),    QStringLiteral("history"), QStringLiteral("environment"),
            QStringLiteral("profile")};
}

bool MainWindow::showTab(const QString& name)
{
    // "profile": Compare, showing a profiled run's Profile view.
    QWidget* const tabs[] = {m_editor, m_live, m_compare, m_explore, m_history, m_environment, m_compare};
    const int index = static_cast<int>(tabNames().indexOf(name.toLower()));
    if (index < 0) {
        return false;
    }
    m_compare->setProfileShown(name.toLower() == QStringLiteral("profile"));
    m_tabs->setCurrentWidget(tabs[index]);
    return true;
}

void MainWindow::showStartPage(const QString& path)
{
    delete m_start;
    m_start = new StartPage(path, this);
    connect(m_start, &StartPage::designRequested, this, [this] { m_tabs->setCurrentWidget(m_editor); });
    connect(m_start, &StartPage::openRequested, this, [this] { chooseDatabase(); });
    m_tabs->insertTab(0, m_start, tr("Start"));
    m_tabs->setCurrentWidget(m_start);
}

void MainWindow::hideStartPage()
{
    delete m_start;  // removes its tab
    m_start = nullptr;
}

bool MainWindow::showSweep(const QString& id)
{
    if (!m_explore->selectSweep(id)) {
        setStatus(tr("No sweep %1 in %2").arg(id, m_path));
        return false;
    }
    m_tabs->setCurrentWidget(m_explore);
    return true;
}

void MainWindow::requestLoad(const RunSelection& selection)
{
    if (selection != m_selection) {
        m_settings.baseline.clear();  // another choice of runs: its first is the baseline again
    }
    m_selection = selection;
    if (selection.empty()) {
        return;
    }
    std::vector<std::int64_t> ids;
    QStringList variants;
    for (const auto& [id, variant] : selection) {
        ids.push_back(id);
        variants << variant;
    }
    if (!m_store) {
        return;
    }
    m_loader->request(m_store, ids, variants, m_settings);
}

void MainWindow::onLoaded(std::uint64_t /*generation*/, const LoadedRuns& result)
{
    if (!result.error.isEmpty()) {
        plot()->showMessage(QString(), tr("cannot load: %1").arg(result.error));
        m_compare->showMessage(tr("cannot load: %1").arg(result.error));
        return;
    }
    m_loaded = result.runs;
    m_compare->showComparison(result.comparison);
    if (result.runs.size() == 1 && !result.comparison.metrics.empty()) {  // the Live tab's run, once compared
        m_live->settle(result.runs.front()->row.id, result.comparison.metrics.front().verdicts.join('\n'),
                       result.comparison.marginPct);
    }
    std::vector<std::pair<std::int64_t, QStringList>> variants;
    for (const auto& run : result.runs) {
        if (std::none_of(variants.begin(), variants.end(), [&](const auto& v) { return v.first == run->row.id; })) {
            QStringList names;
            for (const auto& n : run->data.variantNames) {
                names << QString::fromStdString(n);
            }
            variants.emplace_back(run->row.id, names);
        }
    }
    m_history->setVariants(variants, m_selection);
    // The plot shows what the list ticks: each loaded run's ticked variants.
    const RunSelection ticked = m_history->tickedVariants();
    std::vector<PlottedRun> plotted;
    for (const auto& run : result.runs) {
        if (std::any_of(plotted.begin(), plotted.end(), [&](const auto& p) { return p.id == run->row.id; })) {
            continue;
        }
        PlottedRun p{run->row.id,
                     QString::fromStdString(run->row.label),
                     QString::fromStdString(run->row.workload),
                     &run->data,
                     {}};
        for (const auto& [id, variant] : ticked) {
            if (id == run->row.id) {
                p.variants << variant;
            }
        }
        if (!p.variants.isEmpty()) {
            plotted.push_back(std::move(p));
        }
    }
    plot()->showRuns(plotted);
}

void MainWindow::pollDatabase()
{
    if (!m_store) {
        if (!m_path.isEmpty() && QFileInfo::exists(m_path) && !m_runs->running()) {
            openDatabase(m_path);  // created since (stat only; the store opens it once)
        }
        return;
    }
    const auto version = m_store->dataVersion();
    if (version && version != m_dataVersion) {
        m_dataVersion = version;
        reload();
    }
}

bool MainWindow::startRun()
{
    return m_runs->startRun();
}

void MainWindow::stopRun()
{
    m_runs->stopRun();
}

bool MainWindow::requestStop()
{
    if (!m_runs->running()) {
        return false;
    }
    const qint64 ms = m_runs->runningMs();
    if (ms > m_confirmStopAfterMs) {
        QMessageBox ask(QMessageBox::Question, tr("Stop the run?"),
                        tr("The run has been going for %1 min. Stop it now? It is stored as aborted, "
                           "with the repetitions measured so far.")
                            .arg(static_cast<double>(ms) / 60000, 0, 'f', 1),
                        QMessageBox::Yes | QMessageBox::No, this);
        ask.setObjectName(QStringLiteral("confirmStop"));
        ask.setDefaultButton(QMessageBox::No);
        ask.setEscapeButton(QMessageBox::No);
        ask.button(QMessageBox::Yes)->setText(tr("Stop the run"));
        ask.button(QMessageBox::No)->setText(tr("Keep running"));
        if (ask.exec() != QMessageBox::Yes || !m_runs->running()) {
            return false;
        }
    }
    stopRun();
    return true;
}

bool MainWindow::escapeStops() const
{
    if (QApplication::activePopupWidget() != nullptr) {
        return false;
    }
    if (QWidget* modal = QApplication::activeModalWidget(); modal != nullptr && modal != this) {
        return false;
    }
    QWidget* focus = focusWidget();
    if (focus == nullptr) {
        return true;
    }
    if (const auto* text = qobject_cast<QPlainTextEdit*>(focus)) {
        return text->isReadOnly();  // the engine's log
    }
    if (const auto* text = qobject_cast<QTextEdit*>(focus)) {
        return text->isReadOnly();
    }
    return qobject_cast<QLineEdit*>(focus) == nullptr && qobject_cast<QAbstractSpinBox*>(focus) == nullptr &&
           qobject_cast<QComboBox*>(focus) == nullptr && qobject_cast<QAbstractItemView*>(focus) == nullptr;
}

void MainWindow::keyPressEvent(QKeyEvent* event)
{
    // Only an Esc that no widget took arrives here: a popup or a dialog is a window of its own.
    if (event->key() == Qt::Key_Escape && event->modifiers() == Qt::NoModifier && m_runs->running() && escapeStops()) {
        event->accept();
        requestStop();
        return;
    }
    QMainWindow::keyPressEvent(event);
}

void MainWindow::setRemoteHost(const RemoteHost& host)
{
    m_runs->setRemoteHost(host);
    m_environment->checkOn(m_runs->remoteEngine());
    // The Experiment tab offers the host's CPUs, never this machine's.
    const QString where = tr("host %1").arg(host.dest);
    if (m_remoteCpus == nullptr) {
        m_remoteCpus = new RemoteCpus(this);
    }
    m_remoteCpus->disconnect(this);
    connect(m_remoteCpus, &RemoteCpus::answered, this,
            [this, where](const base::SystemFacts& facts) { m_editor->setMachine(facts, where); });
    connect(m_remoteCpus, &RemoteCpus::failed, this,
            [this, where](const QString& why) { m_editor->awaitMachine(where, why); });
    m_editor->awaitMachine(where);
    m_remoteCpus->ask(*m_runs->remoteEngine());
    setWindowTitle(tr("noisefloor - runs on %1").arg(host.dest));
}

RemoteEngine* MainWindow::remoteEngine() const
{
    return m_runs->remoteEngine();
}

EventClient* MainWindow::eventClient() const
{
    return m_runs->eventClient();
}

void MainWindow::showStoredRun(qint64 runId, const QString& runStatus)
{
    reload();
    if (runId > 0 && selectRun(runId)) {
        setStatus(tr("run %1 %2").arg(runId).arg(runStatus));
        // What was measured opens in Compare, a stopped run's repetitions too; a failed run stays
        // on Live, where the engine's reason is.
        if (runStatus == QLatin1String("complete") || runStatus == QLatin1String("aborted")) {
            m_tabs->setCurrentWidget(m_compare);
        }
    }
}

void MainWindow::showCopiedRun(qint64 localRun, bool ofSweep)
{
    if (m_store) {
        reload();
    } else {
        openDatabase(m_path);  // the merge made it
    }
    if (localRun > 0 && !ofSweep && selectRun(localRun)) {
        m_tabs->setCurrentWidget(m_compare);
    }
}

void MainWindow::showNewestSweep()
{
    reload();
    if (m_store) {
        const auto sweeps = m_store->read([](data::Database& db) { return listSweeps(db); });
        if (!sweeps.empty()) {
            showSweep(sweeps.front().first);
        }
    }
}

void MainWindow::setRememberDesign(bool on)
{
    m_rememberDesign = on;
    if (!on) {
        return;
    }
    const QSettings settings = designSettings();
    const auto json = nlohmann::json::parse(settings.value(QStringLiteral("experiment/spec")).toString().toStdString(),
                                            nullptr, false);
    if (json.is_discarded()) {
        return;  // nothing remembered yet (or not readable): the form's defaults
    }
    auto spec = engine::experimentSpecFromJson(json);
    if (!spec) {
        return;
    }
    m_editor->setDesign(*spec);
    // Until decided, setDesign() leaves the field alone; here it is the form's own value.
    m_editor->setRepetitions(settings.value(QStringLiteral("experiment/repetitions"), spec->repetitions).toInt());
    m_editor->setSweep(settings.value(QStringLiteral("experiment/sweep")).toString());
}

bool MainWindow::loadDesignOf(std::int64_t runId)
{
    // The selected run is usually loaded already (for Compare); else it is read now.
    std::optional<engine::ExperimentSpec> spec;
    for (const auto& run : m_loaded) {
        if (run && run->row.id == runId) {
            spec = run->spec;
        }
    }
    if (!spec && m_store) {
        auto run = m_store->read([runId](data::Database& db) { return data::loadRun(db, runId); });
        if (!run) {
            setStatus(tr("Cannot read run %1: %2").arg(runId).arg(QString::fromStdString(run.error().message)));
            return false;
        }
        spec = std::move(run->spec);
    }
    if (!spec) {
        return false;
    }
    const QStringList lost = m_editor->setDesign(*spec);
    m_tabs->setCurrentWidget(m_editor);
    setStatus(lost.isEmpty()
                  ? tr("Run %1's design is in the Experiment tab: Run runs it again").arg(runId)
                  : tr("Run %1's design is in the Experiment tab, except: %2").arg(runId).arg(lost.join("; ")));
    return true;
}

void MainWindow::setStatus(const QString& text)
{
    m_status->setText(text);
}

QString MainWindow::statusText() const
{
    return m_status->text();
}

QTableView* MainWindow::runTable() const
{
    return m_history->table();
}

RepetitionPlot* MainWindow::plot() const
{
    return m_history->plot();
}

void MainWindow::waitForLoads()
{
    m_loader->waitForIdle();
}

bool MainWindow::saveScreenshot(const QString& file)
{
    if (!isVisible()) {
        // Lay the window out at its real size without mapping it on a display.
        setAttribute(Qt::WA_DontShowOnScreen);
        show();
    }
    if (m_tabs->currentWidget() == m_environment && !m_environment->loaded()) {
        m_environment->refresh();
    }
    m_environment->waitForCheck();
    waitForLoads();
    QApplication::processEvents();  // let layouts and queued replots settle
    for (auto* p : findChildren<QCustomPlot*>()) {
        if (p->isVisible()) {
            p->replot();
        }
    }
    return grab().save(file);
}

}  // namespace nf::ui
