// The window beside a real `noisefloor` writer: every file dialog opened and cancelled while the
// CLI commits runs into the same database leaves the window's SQLite locks in place (/proc/locks)
// and no deleted -wal/-shm open (/proc/self/fd); the window notices each new run by itself and
// never reports corruption; a running run becomes complete without a reload.

#include <gtest/gtest.h>

#include <sys/stat.h>
#include <sys/sysmacros.h>
#include <unistd.h>

#include <QAction>
#include <QCoreApplication>
#include <QElapsedTimer>
#include <QFileDialog>
#include <QMenuBar>
#include <QProcess>
#include <QPushButton>
#include <QThread>
#include <QTimer>
#include <filesystem>
#include <fstream>
#include <functional>
#include <sstream>
#include <string>

#include "tests/support/temp_dir.h"
#include "tests/ui/ui_test_support.h"
#include "ui/compare_panel.h"
#include "ui/file_dialog.h"
#include "ui/main_window.h"
#include "ui/run_list_model.h"

namespace nf::ui {
namespace {

using nf::test::TempDir;

// Lines of /proc/locks held by this process on the file at `path`.
int locksOn(const std::string& path)
{
    struct stat st {};
    if (::stat(path.c_str(), &st) != 0) {
        return 0;
    }
    char device[64];
    std::snprintf(device, sizeof device, "%02x:%02x:%llu", major(st.st_dev), minor(st.st_dev),
                  static_cast<unsigned long long>(st.st_ino));
    std::ifstream in("/proc/locks");
    const std::string pid = std::to_string(::getpid());
    int held = 0;
    for (std::string line; std::getline(in, line);) {
        std::istringstream fields(line);
        std::string n, kind, advisory, mode, owner, file;
        fields >> n >> kind;
        if (kind == "->") {
            continue;  // a waiter
        }
        fields >> advisory >> mode >> owner >> file;
        if (owner == pid && file == device) {
            ++held;
        }
    }
    return held;
}

// The -wal or -shm files this process holds open although they were deleted.
std::string deletedWalOrShm()
{
    std::string out;
    for (const auto& entry : std::filesystem::directory_iterator("/proc/self/fd")) {
        std::error_code ec;
        const std::string target = std::filesystem::read_symlink(entry.path(), ec).string();
        if (target.find("(deleted)") != std::string::npos &&
            (target.find("-wal") != std::string::npos || target.find("-shm") != std::string::npos)) {
            out += target + " ";
        }
    }
    return out;
}

void spin(int ms)
{
    QElapsedTimer timer;
    timer.start();
    while (timer.elapsed() < ms) {
        QCoreApplication::processEvents(QEventLoop::AllEvents, 10);
        QThread::msleep(5);
    }
}

// Runs `noisefloor run spin` into `db` and serves the event loop until it exits.
int runWriter(const std::string& db, const QString& label, int reps = 2)
{
    QProcess cli;
    cli.start(
        QStringLiteral(NF_CLI_PATH),
        {"run", "spin", "--db", QString::fromStdString(db), "--reps", QString::number(reps), "--duration", "0.05",
         "--warmup", "0.01", "--share-cpus", "--label", label, "--variant", "a:work=100", "--variant", "b:work=110"});
    if (!cli.waitForStarted()) {
        return -1;
    }
    while (cli.state() != QProcess::NotRunning) {
        QCoreApplication::processEvents(QEventLoop::AllEvents, 10);
        cli.waitForFinished(10);
    }
    return cli.exitCode();
}

bool waitFor(const std::function<bool()>& done, int ms)
{
    QElapsedTimer timer;
    timer.start();
    while (!done()) {
        if (timer.elapsed() > ms) {
            return false;
        }
        QCoreApplication::processEvents(QEventLoop::AllEvents, 10);
        QThread::msleep(5);
    }
    return true;
}

QAction* menuAction(MainWindow& window, const QString& text)
{
    for (QAction* action : window.menuBar()->findChildren<QAction*>()) {
        if (action->text() == text) {
            return action;
        }
    }
    return nullptr;
}

class LiveDatabaseTest : public ::testing::Test {
protected:
    void SetUp() override
    {
        test::application();
        ASSERT_EQ(runWriter(m_db, "first"), 0);
    }
    void TearDown() override { setFileDialogObserver({}); }

    TempDir m_dir;
    std::string m_db = m_dir.file("runs.db");
};

TEST_F(LiveDatabaseTest, DialogsLeaveTheConnectionWholeWhileTheCliWrites)
{
    MainWindow window(QString::fromStdString(m_db));
    window.setAttribute(Qt::WA_DontShowOnScreen);
    window.show();
    window.selectNewestRun();
    window.waitForLoads();
    ASSERT_EQ(window.runModel()->rowCount(), 1);
    ASSERT_GT(locksOn(m_db), 0) << "the window's connection holds no lock to lose";

    const std::vector<QString> dialogs = {QStringLiteral("&Open database..."), QStringLiteral("Samples as CSV..."),
                                          QStringLiteral("Comparison plots as PNG or PDF..."),
                                          QStringLiteral("Explore: export")};
    int runs = 1;
    for (const auto& name : dialogs) {
        SCOPED_TRACE(name.toStdString());
        const QString label = QStringLiteral("after-dialog-%1").arg(runs);
        int writerStatus = -1;
        bool shown = false;
        setFileDialogObserver([&](QFileDialog* dialog) {
            shown = true;
            dialog->setDirectory(QString::fromStdString(m_dir.path()));  // lists runs.db, -wal, -shm
            QTimer::singleShot(0, dialog, [&, dialog] {
                writerStatus = runWriter(m_db, label);  // commits while the dialog lists the files
                spin(300);
                dialog->reject();
            });
        });
        if (name.startsWith("Explore")) {
            auto* button = window.findChild<QPushButton*>(QStringLiteral("exploreExport"));
            ASSERT_NE(button, nullptr);
            button->click();
        } else {
            QAction* action = menuAction(window, name);
            ASSERT_NE(action, nullptr);
            action->trigger();
        }
        ASSERT_TRUE(shown);
        ASSERT_EQ(writerStatus, 0);
        ++runs;
        // The writer closed its connection: had the window's locks gone, it would have deleted
        // the WAL under the window.
        EXPECT_GT(locksOn(m_db), 0) << "the window lost its locks on the database";
        EXPECT_GT(locksOn(m_db + "-shm"), 0) << "the window lost its locks on the -shm";
        EXPECT_EQ(deletedWalOrShm(), "");
        EXPECT_TRUE(waitFor([&] { return window.runModel()->rowCount() == runs; }, 1000))
            << "the new run did not appear within a second: " << window.runModel()->rowCount() << " rows";
        window.selectNewestRun();
        window.waitForLoads();
        EXPECT_TRUE(window.comparePanel()->view().error.isEmpty()) << window.comparePanel()->view().error.toStdString();
        EXPECT_FALSE(window.statusText().contains("malformed")) << window.statusText().toStdString();
        EXPECT_TRUE(window.comparePanel()->titleText().contains(label))
            << window.comparePanel()->titleText().toStdString();
    }
}

TEST_F(LiveDatabaseTest, ARunningRunBecomesCompleteWithoutReload)
{
    MainWindow window(QString::fromStdString(m_db));
    QProcess cli;
    cli.start(QStringLiteral(NF_CLI_PATH), {"run", "spin", "--db", QString::fromStdString(m_db), "--reps", "8",
                                            "--duration", "0.25", "--share-cpus", "--label", "long"});
    ASSERT_TRUE(cli.waitForStarted());
    auto newestStatus = [&] {
        const QModelIndex index = window.runModel()->index(0, RunListModel::Status);
        return window.runModel()->rowCount() == 2 ? window.runModel()->data(index).toString() : QString();
    };
    EXPECT_TRUE(waitFor([&] { return newestStatus() == "running"; }, 8000)) << newestStatus().toStdString();
    while (cli.state() != QProcess::NotRunning) {
        QCoreApplication::processEvents(QEventLoop::AllEvents, 10);
        cli.waitForFinished(10);
    }
    ASSERT_EQ(cli.exitCode(), 0) << cli.readAllStandardError().toStdString();
    EXPECT_TRUE(waitFor([&] { return newestStatus() == "complete"; }, 1000)) << newestStatus().toStdString();
}

}  // namespace
}  // namespace nf::ui
