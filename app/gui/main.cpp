// noisefloor-gui: browse the runs of a noisefloor database and plot them.
//
//   noisefloor-gui [--db FILE] [--screenshot FILE.png]

#include <QApplication>
#include <QCommandLineParser>
#include <QTextStream>

#include "main_window.h"
#include "nf_version.h"
#include "schema.h"

namespace {

// --help, --version and --screenshot need no display: without one (and without an explicit
// QT_QPA_PLATFORM) use the offscreen platform instead of failing to start.
void preferOffscreenWithoutDisplay(int argc, char* argv[])
{
    if (qEnvironmentVariableIsSet("QT_QPA_PLATFORM") || qEnvironmentVariableIsSet("DISPLAY") ||
        qEnvironmentVariableIsSet("WAYLAND_DISPLAY")) {
        return;
    }
    for (int i = 1; i < argc; ++i) {
        const QByteArray arg(argv[i]);
        if (arg == "-h" || arg == "--help" || arg == "-v" || arg == "--version" || arg.startsWith("--screenshot")) {
            qputenv("QT_QPA_PLATFORM", "offscreen");
            return;
        }
    }
}

}  // namespace

int main(int argc, char* argv[])
{
    preferOffscreenWithoutDisplay(argc, argv);
    QApplication app(argc, argv);
    QApplication::setApplicationName(QStringLiteral("noisefloor-gui"));
    QApplication::setApplicationVersion(QStringLiteral(NF_VERSION));

    QCommandLineParser parser;
    parser.setApplicationDescription(QStringLiteral("Browse and plot the runs of a noisefloor database."));
    parser.addHelpOption();
    parser.addVersionOption();
    const QCommandLineOption dbOption(
        QStringLiteral("db"),
        QStringLiteral("Database file (default: $NOISEFLOOR_DB, else ~/.local/share/noisefloor/runs.db)."),
        QStringLiteral("FILE"));
    const QCommandLineOption screenshotOption(
        QStringLiteral("screenshot"),
        QStringLiteral("Open the database, select the newest run, save the window as FILE (png) and exit."),
        QStringLiteral("FILE"));
    parser.addOption(dbOption);
    parser.addOption(screenshotOption);
    parser.process(app);

    const QString db =
        parser.isSet(dbOption) ? parser.value(dbOption) : QString::fromStdString(nf::data::defaultDatabasePath());
    nf::ui::MainWindow window(db);

    if (parser.isSet(screenshotOption)) {
        const QString file = parser.value(screenshotOption);
        window.selectNewestRun();
        QTextStream err(stderr);
        err << window.statusText() << '\n';
        if (!window.saveScreenshot(file)) {
            err << "noisefloor-gui: cannot write " << file << '\n';
            return 1;
        }
        return 0;
    }
    window.show();
    return QApplication::exec();
}
