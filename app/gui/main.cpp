// noisefloor-gui: design, run, watch and compare noisefloor experiments.
//
//   noisefloor-gui [--db FILE] [--run ID] [--compare ID[:VARIANT] ...] [--sweep ID] [--tab NAME] [--replay FILE.jsonl]
//                  [--screenshot FILE.png] [--report FILE] [--export-pdf FILE.pdf]

#include <QApplication>
#include <QCommandLineParser>
#include <QFile>
#include <QFileInfo>
#include <QRegularExpression>
#include <QTextStream>

#include <optional>

#include "data/schema.h"
#include "nf_version.h"
#include "ui/compare_panel.h"
#include "ui/event_client.h"
#include "ui/explore_panel.h"
#include "ui/main_window.h"

namespace {

// --help, --version, --screenshot, --report and --export-pdf need no display: without one (and without an explicit
// QT_QPA_PLATFORM) use the offscreen platform instead of failing to start.
void preferOffscreenWithoutDisplay(int argc, char* argv[])
{
    if (qEnvironmentVariableIsSet("QT_QPA_PLATFORM") || qEnvironmentVariableIsSet("DISPLAY") ||
        qEnvironmentVariableIsSet("WAYLAND_DISPLAY")) {
        return;
    }
    for (int i = 1; i < argc; ++i) {
        const QByteArray arg(argv[i]);
        if (arg == "-h" || arg == "--help" || arg == "-v" || arg == "--version" || arg.startsWith("--screenshot") ||
            arg.startsWith("--report") || arg.startsWith("--export-pdf")) {
            qputenv("QT_QPA_PLATFORM", "offscreen");
            return;
        }
    }
}

// --report and --export-pdf: what the window shows for the selection, written as the Compare tab's
// "Copy evidence report" and "Save plots" (or the Explore tab's export) write it, laid out at the
// window's size without a display. 0 when everything asked for was written.
int writeExports(nf::ui::MainWindow& window, const QString& report, const QString& pdf, bool comparing,
                 QTextStream& err)
{
    if (!window.isVisible()) {
        window.setAttribute(Qt::WA_DontShowOnScreen);
        window.show();
    }
    window.waitForLoads();
    QApplication::processEvents();  // let layouts and queued replots settle
    int status = 0;
    if (!report.isEmpty()) {
        const QString text = window.comparePanel()->reportText();
        if (text.isEmpty()) {
            err << "noisefloor-gui: no evidence report for this selection: " << window.statusText() << '\n';
            status = 1;
        } else if (report == QStringLiteral("-")) {
            QTextStream(stdout) << text;
        } else {
            QFile file(report);
            if (!file.open(QIODevice::WriteOnly | QIODevice::Truncate) || file.write(text.toUtf8()) < 0) {
                err << "noisefloor-gui: cannot write " << report << '\n';
                status = 1;
            }
        }
    }
    if (!pdf.isEmpty()) {
        const bool written = comparing ? window.comparePanel()->saveImage(pdf) : window.explorePanel()->exportTo(pdf);
        if (!written) {
            err << "noisefloor-gui: cannot write " << pdf << '\n';
            status = 1;
        }
    }
    return status;
}

}  // namespace

int main(int argc, char* argv[])
{
    preferOffscreenWithoutDisplay(argc, argv);
    QApplication app(argc, argv);
    QApplication::setApplicationName(QStringLiteral("noisefloor-gui"));
    QApplication::setApplicationVersion(QStringLiteral(NF_VERSION));

    QCommandLineParser parser;
    parser.setApplicationDescription(
        QStringLiteral("Design, run, watch and compare noisefloor experiments. Runs go through the `noisefloor` "
                       "engine (next to this program, or $NOISEFLOOR_BIN)."));
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
    const QCommandLineOption reportOption(
        QStringLiteral("report"),
        QStringLiteral("With --run or --compare: write the evidence report \"Copy evidence report\" gives for that "
                       "selection to FILE (- for standard output) and exit."),
        QStringLiteral("FILE"));
    const QCommandLineOption exportPdfOption(
        QStringLiteral("export-pdf"),
        QStringLiteral("Write the plots \"Save plots\" saves to FILE.pdf and exit: the Compare grid of --run or "
                       "--compare, else the Explore plots of --sweep."),
        QStringLiteral("FILE.pdf"));
    const QCommandLineOption runOption(QStringLiteral("run"), QStringLiteral("Select run ID and compare its variants."),
                                       QStringLiteral("ID"));
    const QCommandLineOption compareOption(
        QStringLiteral("compare"),
        QStringLiteral("Compare runs across (repeat it): ID for every variant of a run, ID:VARIANT for one."),
        QStringLiteral("ID[:VARIANT]"));
    const QCommandLineOption tabOption(
        QStringLiteral("tab"), QStringLiteral("Open this tab: %1.").arg(nf::ui::MainWindow::tabNames().join(", ")),
        QStringLiteral("NAME"));
    const QCommandLineOption replayOption(
        QStringLiteral("replay"),
        QStringLiteral("Show a recorded `noisefloor run --events jsonl` stream in the Live tab."),
        QStringLiteral("FILE"));
    const QCommandLineOption sweepOption(QStringLiteral("sweep"),
                                         QStringLiteral("Show sweep ID (from `run --sweep`) in the Explore tab."),
                                         QStringLiteral("ID"));
    const QCommandLineOption marginOption(
        QStringLiteral("margin"),
        QStringLiteral("Compare with this equivalence margin in percent, as `noisefloor compare --margin`."),
        QStringLiteral("PCT"));
    const QCommandLineOption alphaOption(
        QStringLiteral("alpha"), QStringLiteral("Compare at this significance level, as `noisefloor compare --alpha`."),
        QStringLiteral("ALPHA"));
    const QCommandLineOption dropOutliersOption(
        QStringLiteral("drop-outliers"),
        QStringLiteral("Compare without outliers, as `noisefloor compare --drop-outliers`."));
    const QCommandLineOption sizeOption(
        QStringLiteral("size"), QStringLiteral("Window size in pixels (default 1200x820)."), QStringLiteral("WxH"));
    const QCommandLineOption hostOption(
        QStringLiteral("host"),
        QStringLiteral("Run experiments on DEST (user@host or an ssh Host alias) through ssh: the engine there "
                       "measures, this window watches, and each finished run is copied into --db."),
        QStringLiteral("DEST"));
    const QCommandLineOption sshConfigOption(QStringLiteral("ssh-config"),
                                             QStringLiteral("With --host: ssh -F FILE instead of ~/.ssh/config."),
                                             QStringLiteral("FILE"));
    parser.addOption(dbOption);
    parser.addOption(hostOption);
    parser.addOption(sshConfigOption);
    parser.addOption(sizeOption);
    parser.addOption(sweepOption);
    parser.addOption(replayOption);
    parser.addOption(runOption);
    parser.addOption(compareOption);
    parser.addOption(marginOption);
    parser.addOption(alphaOption);
    parser.addOption(dropOutliersOption);
    parser.addOption(tabOption);
    parser.addOption(screenshotOption);
    parser.addOption(reportOption);
    parser.addOption(exportPdfOption);
    parser.process(app);

    QTextStream err(stderr);
    const auto usage = [&err](const QString& message) {
        err << "noisefloor-gui: " << message << '\n';
        return 2;
    };
    if (parser.isSet(tabOption) && !nf::ui::MainWindow::tabNames().contains(parser.value(tabOption).toLower())) {
        return usage(QStringLiteral("--tab '%1': expected one of %2")
                         .arg(parser.value(tabOption), nf::ui::MainWindow::tabNames().join(", ")));
    }
    nf::ui::RunSelection selection;
    for (const auto& text : parser.values(compareOption)) {
        bool ok = false;
        const auto id = text.section(':', 0, 0).toLongLong(&ok);
        if (!ok || id <= 0) {
            return usage(QStringLiteral("--compare '%1': expected a run id, optionally :VARIANT").arg(text));
        }
        selection.emplace_back(id, text.section(':', 1));
    }
    const QString host = parser.value(hostOption);
    if (parser.isSet(hostOption) &&
        (host.isEmpty() || host.startsWith('-') || host.contains(QRegularExpression("\\s")))) {
        return usage(QStringLiteral("--host '%1': expected what ssh accepts, user@host or a Host alias").arg(host));
    }
    if (parser.isSet(sshConfigOption) &&
        (!parser.isSet(hostOption) || !QFileInfo(parser.value(sshConfigOption)).isFile())) {
        return usage(parser.isSet(hostOption)
                         ? QStringLiteral("--ssh-config '%1': no such file").arg(parser.value(sshConfigOption))
                         : QStringLiteral("--ssh-config needs --host"));
    }
    qint64 runId = 0;
    if (parser.isSet(runOption)) {
        bool ok = false;
        runId = parser.value(runOption).toLongLong(&ok);
        if (!ok || runId <= 0) {
            return usage(QStringLiteral("--run '%1': expected a run id").arg(parser.value(runOption)));
        }
    }

    // The bounds of the Compare tab's boxes (within those of `noisefloor compare`).
    nf::ui::CompareSettings compareSettings;
    compareSettings.dropOutliers = parser.isSet(dropOutliersOption);
    const auto bounded = [&parser](const QCommandLineOption& option, double low, double high) -> std::optional<double> {
        bool ok = false;
        const double value = parser.value(option).toDouble(&ok);
        return ok && value >= low && value <= high ? std::optional(value) : std::nullopt;
    };
    compareSettings.marginPct = parser.isSet(marginOption) ? bounded(marginOption, 0.01, 50) : std::nullopt;
    compareSettings.alpha = parser.isSet(alphaOption) ? bounded(alphaOption, 0.001, 0.499) : std::nullopt;
    if (parser.isSet(marginOption) && !compareSettings.marginPct) {
        return usage(
            QStringLiteral("--margin '%1': expected a percentage from 0.01 to 50").arg(parser.value(marginOption)));
    }
    if (parser.isSet(alphaOption) && !compareSettings.alpha) {
        return usage(
            QStringLiteral("--alpha '%1': expected a level from 0.001 to 0.499").arg(parser.value(alphaOption)));
    }

    const bool comparing = runId > 0 || !selection.empty();
    if (parser.isSet(reportOption) && !comparing) {
        return usage(QStringLiteral("--report needs --run or --compare: the selection it reports on"));
    }
    if (parser.isSet(exportPdfOption) &&
        (!parser.value(exportPdfOption).endsWith(QStringLiteral(".pdf"), Qt::CaseInsensitive) ||
         (!comparing && !parser.isSet(sweepOption)))) {
        return usage(comparing || parser.isSet(sweepOption)
                         ? QStringLiteral("--export-pdf '%1': expected a file name ending in .pdf")
                               .arg(parser.value(exportPdfOption))
                         : QStringLiteral("--export-pdf needs --run, --compare or --sweep: the plots it writes"));
    }

    const QString db =
        parser.isSet(dbOption) ? parser.value(dbOption) : QString::fromStdString(nf::data::defaultDatabasePath());
    QSize size;
    if (parser.isSet(sizeOption)) {
        const QStringList wh = parser.value(sizeOption).split(QLatin1Char('x'));
        bool okW = false;
        bool okH = false;
        if (wh.size() == 2) {
            size = QSize(wh[0].toInt(&okW), wh[1].toInt(&okH));
        }
        if (!okW || !okH || size.width() < 200 || size.height() < 150 || size.width() > 10000 ||
            size.height() > 10000) {
            return usage(QStringLiteral("--size '%1': expected WIDTHxHEIGHT in pixels, e.g. 1024x700")
                             .arg(parser.value(sizeOption)));
        }
    }
    // A build without the measuring parts (-DNF_MEASURE=OFF) runs experiments only on --host.
    nf::ui::MainWindow window(db, nf::ui::kLocalEngine);
    if (parser.isSet(hostOption)) {
        window.setRemoteHost({host, parser.value(sshConfigOption)});
    }
    if (size.isValid()) {
        window.resize(size);
    }
    window.setCompareSettings(compareSettings);
    if (runId > 0 && !window.selectRun(runId)) {
        err << "noisefloor-gui: no run " << runId << " in " << db << '\n';
    }
    if (!selection.empty()) {
        window.compare(selection);
        window.showTab(QStringLiteral("compare"));
    } else if (runId > 0) {
        window.showTab(QStringLiteral("compare"));
    }
    if (parser.isSet(sweepOption) && !window.showSweep(parser.value(sweepOption))) {
        err << "noisefloor-gui: no sweep " << parser.value(sweepOption) << " in " << db << '\n';
    }
    if (parser.isSet(replayOption)) {
        QFile file(parser.value(replayOption));
        if (!file.open(QIODevice::ReadOnly)) {
            return usage(QStringLiteral("--replay '%1': %2").arg(file.fileName(), file.errorString()));
        }
        window.showTab(QStringLiteral("live"));
        window.eventClient()->feed(file.readAll());
    }
    if (parser.isSet(tabOption)) {
        window.showTab(parser.value(tabOption));
    }

    const bool exporting = parser.isSet(reportOption) || parser.isSet(exportPdfOption);
    if (parser.isSet(screenshotOption)) {
        const QString file = parser.value(screenshotOption);
        err << window.statusText() << '\n';
        if (!window.saveScreenshot(file)) {
            err << "noisefloor-gui: cannot write " << file << '\n';
            return 1;
        }
        if (!exporting) {
            return 0;
        }
    }
    if (exporting) {
        return writeExports(window, parser.value(reportOption), parser.value(exportPdfOption), comparing, err);
    }
    // The interactive window only: the form starts with the design of the last run started.
    window.setRememberDesign(true);
    window.show();
    return QApplication::exec();
}
