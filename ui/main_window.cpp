#include "main_window.h"

#include <QAction>
#include <QApplication>
#include <QFileDialog>
#include <QFileInfo>
#include <QHeaderView>
#include <QItemSelectionModel>
#include <QLabel>
#include <QMenuBar>
#include <QPixmap>
#include <QSplitter>
#include <QStatusBar>
#include <QTableView>

#include <qcustomplot.h>

#include "repetition_plot.h"
#include "run_list_model.h"
#include "schema.h"

namespace nf::ui {

MainWindow::MainWindow(const QString& databasePath, QWidget* parent)
    : QMainWindow(parent),
      m_model(new RunListModel(this)),
      m_table(new QTableView(this)),
      m_plot(new RepetitionPlot(this)),
      m_status(new QLabel(this))
{
    m_table->setModel(m_model);
    m_table->setSelectionBehavior(QAbstractItemView::SelectRows);
    m_table->setSelectionMode(QAbstractItemView::SingleSelection);
    m_table->setEditTriggers(QAbstractItemView::NoEditTriggers);
    m_table->setAlternatingRowColors(true);
    m_table->setWordWrap(false);
    m_table->verticalHeader()->hide();
    m_table->horizontalHeader()->setStretchLastSection(false);
    m_table->horizontalHeader()->setSectionResizeMode(QHeaderView::ResizeToContents);
    m_table->horizontalHeader()->setSectionResizeMode(RunListModel::Label, QHeaderView::Stretch);
    connect(m_table->selectionModel(), &QItemSelectionModel::currentRowChanged, this, [this] { showSelectedRun(); });

    auto* splitter = new QSplitter(Qt::Vertical, this);
    splitter->addWidget(m_table);
    splitter->addWidget(m_plot);
    splitter->setStretchFactor(0, 1);
    splitter->setStretchFactor(1, 2);
    splitter->setChildrenCollapsible(false);
    setCentralWidget(splitter);

    m_status->setTextInteractionFlags(Qt::TextSelectableByMouse);
    statusBar()->addWidget(m_status, 1);
    createMenus();
    resize(1000, 760);
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
}

void MainWindow::chooseDatabase()
{
    const QString dir = m_path.isEmpty() ? QString() : QFileInfo(m_path).absolutePath();
    const QString path = QFileDialog::getOpenFileName(this, tr("Open noisefloor database"), dir,
                                                      tr("SQLite databases (*.db *.sqlite);;All files (*)"));
    if (!path.isEmpty()) {
        openDatabase(path);
    }
}

bool MainWindow::openDatabase(const QString& path)
{
    m_path = path;
    m_db.reset();
    setWindowTitle(tr("noisefloor - %1").arg(path));
    if (!QFileInfo::exists(path)) {
        m_model->clear();
        m_plot->showMessage(QString(), tr("no database"));
        setStatus(tr("No database at %1 - record a run with `noisefloor run` or use File > Open database.").arg(path));
        return false;
    }
    auto db = data::openStore(path.toStdString(), data::Database::Mode::ReadOnly);
    if (!db) {
        m_model->clear();
        m_plot->showMessage(QString(), tr("cannot open the database"));
        setStatus(tr("Cannot open %1: %2").arg(path, QString::fromStdString(db.error().message)));
        return false;
    }
    m_db.emplace(std::move(*db));
    reload();
    return m_db.has_value();
}

void MainWindow::reload()
{
    if (!m_db) {
        openDatabase(m_path);  // it may exist by now
        return;
    }
    const data::RunRow* current = m_model->runAt(m_table->currentIndex().row());
    const std::int64_t keep = current != nullptr ? current->id : 0;
    if (auto loaded = m_model->load(*m_db); !loaded) {
        m_plot->showMessage(QString(), tr("cannot read the run list"));
        setStatus(tr("Cannot read runs from %1: %2").arg(m_path, QString::fromStdString(loaded.error().message)));
        return;
    }
    const int runs = m_model->rowCount();
    if (runs == 0) {
        m_plot->showMessage(QString(), tr("no runs yet"));
        setStatus(tr("No runs in %1 yet").arg(m_path));
        return;
    }
    setStatus((runs == 1 ? tr("1 run in %1") : tr("%1 runs in %2").arg(runs)).arg(m_path));
    if (keep == 0 || !selectRun(keep)) {
        selectNewestRun();
    }
}

bool MainWindow::selectRun(std::int64_t runId)
{
    const int row = m_model->rowOf(runId);
    if (row < 0) {
        return false;
    }
    m_table->setCurrentIndex(m_model->index(row, 0));
    m_table->selectRow(row);
    showSelectedRun();  // also when the row was already current
    return true;
}

void MainWindow::selectNewestRun()
{
    if (const data::RunRow* newest = m_model->runAt(0)) {
        selectRun(newest->id);
    }
}

void MainWindow::showSelectedRun()
{
    const data::RunRow* row = m_model->runAt(m_table->currentIndex().row());
    if (row == nullptr || !m_db) {
        m_plot->showMessage(QString(), tr("no run selected"));
        return;
    }
    const QString title = tr("run %1: %2").arg(row->id).arg(QString::fromStdString(row->workload));
    auto run = data::loadRun(*m_db, row->id);
    if (!run) {
        m_plot->showMessage(title, tr("cannot load this run: %1").arg(QString::fromStdString(run.error().message)));
        return;
    }
    m_plot->showRun(title, run->data);
}

void MainWindow::setStatus(const QString& text)
{
    m_status->setText(text);
}

QString MainWindow::statusText() const
{
    return m_status->text();
}

bool MainWindow::saveScreenshot(const QString& file)
{
    if (!isVisible()) {
        // Lay the window out at its real size without mapping it on a display.
        setAttribute(Qt::WA_DontShowOnScreen);
        show();
    }
    QApplication::processEvents();  // let layouts and queued replots settle
    m_plot->customPlot()->replot();
    return grab().save(file);
}

}  // namespace nf::ui
