// The figures the plots print: tick labels with the digits that tell neighbours apart, percents
// that never read as zero when they are not, the +-margin band inside its axis rect (and so in a
// PDF), each difference's interval at the level of its verdict (Holm's, for a secondary metric),
// and the evidence flags (--report, --export-pdf) writing what the window shows, as valid PDF.

#include <gtest/gtest.h>

#include <QFile>
#include <QJsonArray>
#include <QJsonDocument>
#include <QJsonObject>
#include <QProcess>
#include <QRegularExpression>
#include <QSet>
#include <cmath>
#include <filesystem>
#include <string>

#include <qcustomplot.h>

#include "engine/report/evidence.h"
#include "tests/support/temp_dir.h"
#include "tests/ui/ui_test_support.h"
#include "ui/compare_panel.h"
#include "ui/compare_plot.h"
#include "ui/difference_plot.h"
#include "ui/explore_panel.h"
#include "ui/main_window.h"
#include "ui/si_format.h"
#include "ui/si_ticker.h"

namespace nf::ui {
namespace {

using nf::test::TempDir;
using nf::ui::test::application;
using nf::ui::test::cli;

// The labels a SiTicker gives the axis range low..high.
QStringList tickLabels(double low, double high)
{
    SiTicker ticker;
    QVector<double> ticks;
    QVector<double> subTicks;
    QVector<QString> labels;
    ticker.generate(QCPRange(low, high), QLocale::c(), QLatin1Char('g'), 6, ticks, &subTicks, &labels);
    return QStringList(labels.begin(), labels.end());
}

void expectDistinct(const QStringList& labels)
{
    ASSERT_GE(labels.size(), 3);
    EXPECT_EQ(QSet<QString>(labels.begin(), labels.end()).size(), labels.size()) << labels.join(", ").toStdString();
}

TEST(PlotFigures, TickLabelsTellNeighboursApart)
{
    // IPC in a narrow range, History's 133-134 k, and ticks on the halves.
    expectDistinct(tickLabels(1.2105, 1.2195));
    expectDistinct(tickLabels(133.1e3, 134.4e3));
    const QStringList halves = tickLabels(121, 129);
    expectDistinct(halves);
    EXPECT_TRUE(halves.contains("127.5") || halves.contains("128")) << halves.join(", ").toStdString();
    EXPECT_FALSE(halves.contains("128") && halves.contains("127.5"));
    if (tickLabels(121, 129).contains("122.5")) {
        EXPECT_FALSE(halves.contains("122"));
    }
    // Wide ranges keep their short labels.
    EXPECT_EQ(tickLabels(-0.5, 10.5).value(1), "2");
    EXPECT_TRUE(tickLabels(0, 1.2e7).contains("10 M")) << tickLabels(0, 1.2e7).join(", ").toStdString();
}

TEST(PlotFigures, DigitsToResolve)
{
    EXPECT_EQ(digitsToResolve(127.5, 2.5), 4);
    EXPECT_EQ(digitsToResolve(1.2125, 0.0025), 5);
    EXPECT_EQ(digitsToResolve(134000, 500), 4);
    EXPECT_EQ(digitsToResolve(10, 2), 3);  // never fewer than asked
    EXPECT_EQ(siNumber(127.5, digitsToResolve(127.5, 2.5)), "127.5");
    EXPECT_EQ(siNumber(122.5, digitsToResolve(122.5, 2.5)), "122.5");
}

TEST(PlotFigures, APercentReadsAsZeroOnlyWhenZero)
{
    EXPECT_EQ(percentText(-0.002), "-0.0020%");
    EXPECT_EQ(percentText(0.0004), "+0.00040%");
    EXPECT_EQ(percentText(1.234), "+1.23%");
    EXPECT_EQ(percentText(-12.5), "-12.50%");
    EXPECT_EQ(percentText(0), "+0.00%");
    EXPECT_EQ(percentText(0.002, false), "0.0020%");
    EXPECT_EQ(percentText(NAN), "");
}

// The content streams of `pdf`, inflated (QPdfWriter compresses them with zlib).
QList<QByteArray> pdfStreams(const QByteArray& pdf)
{
    QList<QByteArray> streams;
    qsizetype at = 0;
    while ((at = pdf.indexOf("stream\n", at)) >= 0) {
        const qsizetype begin = at + 7;
        const qsizetype end = pdf.indexOf("endstream", begin);
        if (end < 0) {
            break;
        }
        QByteArray sized(4, '\0');
        const quint32 hint = 64U << 20U;  // qUncompress's size header: an upper bound will do
        for (int i = 0; i < 4; ++i) {
            sized[i] = static_cast<char>((hint >> (24 - 8 * i)) & 0xffU);
        }
        const QByteArray inflated = qUncompress(sized + pdf.mid(begin, end - begin));
        streams << (inflated.isEmpty() ? pdf.mid(begin, end - begin) : inflated);
        // Past "endstream": its own "stream\n" would start a slice over the next object's header
        // and a font's binary data, whose bytes read as path operators now and then.
        at = end + 9;
    }
    return streams;
}

// Path operators in `pdf`'s content that close or paint a path that was never begun: what
// pdftoppm reports as "No current point in closepath".
int emptyPaths(const QByteArray& pdf)
{
    int found = 0;
    static const QRegularExpression number(QStringLiteral("^-?[0-9.]+$"));
    const QList<QByteArray> construct = {"m", "l", "c", "v", "y", "re"};
    for (const QByteArray& stream : pdfStreams(pdf)) {
        const QList<QByteArray> tokens = stream.simplified().split(' ');
        bool open = false;
        for (const QByteArray& token : tokens) {
            if (number.match(QString::fromLatin1(token)).hasMatch()) {
                continue;
            }
            if (construct.contains(token)) {
                open = true;
            } else if (token == "h" && !open) {
                ++found;
            } else if (token == "f" || token == "S" || token == "n" || token == "B" || token == "f*" || token == "b") {
                open = false;
            }
        }
    }
    return found;
}

PanelView tinyDifference()
{
    PanelView panel;
    panel.title = "IPC";
    panel.metric = "ipc";
    panel.marginPct = 1;
    for (const char* name : {"a", "b"}) {
        VariantView v;
        v.name = name;
        v.repetitions = {1.2101, 1.2102, 1.2103};
        v.mean = 1.2102;
        v.ciLow = 1.2100;
        v.ciHigh = 1.2104;
        panel.variants.push_back(v);
    }
    panel.differences.push_back({.candidate = "b",
                                 .baseline = "a",
                                 .design = "paired chunk log-ratios",
                                 .method = "median",
                                 .estimatePct = -0.002,
                                 .ciLowPct = -0.003,
                                 .ciHighPct = -0.001,
                                 .levelPct = 95,
                                 .level = "95%",
                                 .holmLevel = false,
                                 .verdict = "different",
                                 .layout = std::nullopt});
    return panel;
}

// The band is a finite rectangle inside the difference axis rect: a PDF draws it where the screen
// does (it once ran to x = -1e12, which overflowed in the PDF and was lost).
TEST(PlotFigures, MarginBandStaysInsideItsAxisRect)
{
    application();
    ComparePlot plot;
    plot.setAttribute(Qt::WA_DontShowOnScreen);
    plot.resize(640, 480);
    plot.show();
    plot.showPanel(tinyDifference());
    QApplication::processEvents();
    plot.customPlot()->replot();
    QCPItemRect* band = nullptr;
    for (int i = 0; i < plot.customPlot()->itemCount(); ++i) {
        if (auto* r = qobject_cast<QCPItemRect*>(plot.customPlot()->item(i))) {
            band = r;
        }
    }
    ASSERT_NE(band, nullptr);
    const QRect rect = band->clipAxisRect()->rect();
    const QPointF topLeft = band->topLeft->pixelPosition();
    const QPointF bottomRight = band->bottomRight->pixelPosition();
    EXPECT_NEAR(topLeft.x(), rect.left(), 1.5);
    EXPECT_NEAR(bottomRight.x(), rect.left() + rect.width(), 1.5);
    EXPECT_LT(topLeft.y(), bottomRight.y());
    EXPECT_GE(topLeft.y(), rect.top());
    EXPECT_LE(bottomRight.y(), rect.bottom() + 1);
    EXPECT_NEAR(band->topLeft->coords().y(), 1.0, 1e-12);
    // The figures beside the diamond: a real -0.002% is not "-0.00%".
    bool figure = false;
    for (int i = 0; i < plot.customPlot()->itemCount(); ++i) {
        if (auto* t = qobject_cast<QCPItemText*>(plot.customPlot()->item(i))) {
            figure = figure || t->text().contains("-0.0020%");
            EXPECT_FALSE(t->text().contains("-0.00%")) << t->text().toStdString();
        }
    }
    EXPECT_TRUE(figure);
}

// The figures a panel of `size` shows beside its differences.
QStringList figuresShown(const PanelView& panel, QSize size)
{
    ComparePlot plot;
    plot.setAttribute(Qt::WA_DontShowOnScreen);
    plot.resize(size);
    plot.show();
    plot.showPanel(panel);
    QApplication::processEvents();
    plot.customPlot()->replot();
    QApplication::processEvents();
    QStringList shown;
    for (int i = 0; i < plot.customPlot()->itemCount(); ++i) {
        if (auto* t = qobject_cast<QCPItemText*>(plot.customPlot()->item(i)); t != nullptr && t->visible()) {
            shown << t->text();
        }
    }
    return shown;
}

// A narrow panel (a 1024x700 window) shows each difference's estimate and verdict beside its
// diamond when the full figures do not fit, rather than nothing; a wide one the full figures.
TEST(PlotFigures, ANarrowPanelShowsTheShortFigures)
{
    application();
    for (const int width : {440, 900}) {
        const QStringList shown = figuresShown(tinyDifference(), QSize(width, 300));
        ASSERT_EQ(shown.size(), 1) << width << " px";
        EXPECT_TRUE(shown.front().startsWith("-0.0020%\n")) << shown.front().toStdString();
        EXPECT_TRUE(shown.front().endsWith("different")) << shown.front().toStdString();
        EXPECT_EQ(shown.front().contains("["), width > 600) << width << " px: " << shown.front().toStdString();
    }
}

// Two candidates, one of them inconclusive (the widest verdict word): at a 1600-pixel window's
// panel width each has its figures between its diamond and the next.
TEST(PlotFigures, TwoCandidatesKeepTheirFiguresAtAWideWindowsPanel)
{
    application();
    PanelView panel = tinyDifference();
    VariantView c = panel.variants.back();
    c.name = "c";
    panel.variants.push_back(c);
    DifferenceView inconclusive = panel.differences.front();
    inconclusive.candidate = "c";
    inconclusive.estimatePct = 0.19;
    inconclusive.ciLowPct = -0.05;
    inconclusive.ciHighPct = 0.43;
    inconclusive.verdict = "inconclusive";
    panel.differences.push_back(inconclusive);
    const QStringList shown = figuresShown(panel, QSize(690, 340));  // a panel of a 1600x1000 window
    ASSERT_EQ(shown.size(), 2) << shown.join(" | ").toStdString();
    EXPECT_TRUE(shown.back().endsWith("inconclusive")) << shown.back().toStdString();
}

TEST(PlotFigures, LevelCaptionNamesTheLevelAndHolm)
{
    DifferenceView at95;
    at95.level = "95%";
    DifferenceView holm;
    holm.level = "98.33%";
    holm.holmLevel = true;
    DifferenceView holm2;
    holm2.level = "97.5%";
    holm2.holmLevel = true;
    EXPECT_EQ(levelCaption({at95}), "95% CI");
    EXPECT_EQ(levelCaption({holm}), "98.33% CI, Holm-adjusted");
    EXPECT_EQ(levelCaption({holm, holm2}), "97.5%-98.33% CI, Holm-adjusted");
    EXPECT_EQ(levelCaption({}), "CI");  // never "nan% CI"
    EXPECT_EQ(levelCaption({DifferenceView{}}), "CI");
}

// A run with several metrics: the secondary ones are Holm-adjusted, and each panel shows the
// interval at the level of its adjusted p (the CLI's "h"), says so, and the left half says its
// repetition values come from the clean chunks the verdict's pairs use.
TEST(PlotFigures, SecondaryMetricsShowTheirHolmLevel)
{
    application();
    TempDir dir;
    const QString db = QString::fromStdString(dir.file("holm.db"));
    cli({"run", "spin", "--db", db, "--reps", "3", "--duration", "0.1", "--share-cpus", "--pmu",
         "simulated:running=0.75", "--variant", "a:work=1000", "--variant", "b:work=1010"});
    const auto doc = QJsonDocument::fromJson(cli({"--db", db, "compare", "1", "--format", "json"}));
    MainWindow window(db);
    ASSERT_TRUE(window.selectRun(1));
    window.waitForLoads();
    const ComparisonView& view = window.comparePanel()->view();
    int holm = 0;
    for (const auto& c : doc.object().value("comparisons").toArray()) {
        const auto o = c.toObject();
        if (!o.value("primary").toBool()) {
            continue;
        }
        const QString metric = o.value("metric").toString();
        const auto panel = std::find_if(view.metrics.begin(), view.metrics.end(),
                                        [&](const PanelView& p) { return p.metric == metric; });
        ASSERT_NE(panel, view.metrics.end()) << metric.toStdString();
        if (panel->source.contains("--metric") || panel->differences.empty()) {
            continue;  // a metric compared on its own (compare --metric NAME): at alpha
        }
        const DifferenceView& d = panel->differences.front();
        const double p = o.value("p").toDouble();
        const bool widened = o.value("p_adjusted").toDouble() > p * (1 + 1e-9) && p > 0 && std::isfinite(d.ciLowPct) &&
                             std::isfinite(d.ciHighPct);
        EXPECT_EQ(d.holmLevel, widened) << metric.toStdString();
        if (d.holmLevel) {
            ++holm;
            EXPECT_TRUE(levelCaption(panel->differences).contains("Holm-adjusted"));
            EXPECT_NE(d.level, "95%") << metric.toStdString();
            // The report's own line for the metric names the same level.
            EXPECT_TRUE(o.value("verdict_text").toString().contains(d.level) ||
                        o.value("verdict").toString() == "equivalent")
                << o.value("verdict_text").toString().toStdString() << " vs " << d.level.toStdString();
        }
    }
    EXPECT_GT(holm, 0) << "no Holm-adjusted metric to look at";
    // A panel on a Holm-adjusted metric says so under its difference side.
    for (int i = 0; i < 4; ++i) {
        const ComparePlot* plot = window.comparePanel()->panel(i);
        const auto& metrics = view.metrics;
        const auto shown = std::find_if(metrics.begin(), metrics.end(),
                                        [&](const PanelView& p) { return p.metric == plot->shownMetric(); });
        if (shown != metrics.end() && !shown->differences.empty() && shown->differences.front().holmLevel) {
            EXPECT_TRUE(plot->differenceTitle().contains("Holm-adjusted")) << plot->differenceTitle().toStdString();
        }
        if (shown != metrics.end() && !shown->differences.empty()) {
            EXPECT_FALSE(plot->differenceTitle().contains("nan")) << plot->differenceTitle().toStdString();
            EXPECT_TRUE(plot->customPlot()
                            ->axisRect()
                            ->axis(QCPAxis::atBottom)
                            ->label()
                            .simplified()
                            .contains("clean chunks") ||
                        plot->customPlot()->toolTip().contains("clean chunks"));
        }
    }
}

// noisefloor-gui --report and --export-pdf write what the window shows, without a display: the
// report is the one `noisefloor compare` prints ("Copy evidence report"), the PDF the plots.
TEST(PlotFigures, EvidenceFlagsWriteTheReportAndThePlots)
{
    TempDir dir;
    const std::string db = dir.file("fixture.db");
    std::filesystem::copy_file(NF_UI_FIXTURE_DB, db);
    const QString report = QString::fromStdString(dir.file("report.txt"));
    const QString pdf = QString::fromStdString(dir.file("plots.pdf"));
    QProcess gui;
    QProcessEnvironment env = QProcessEnvironment::systemEnvironment();
    env.remove("DISPLAY");
    env.remove("WAYLAND_DISPLAY");
    env.remove("QT_QPA_PLATFORM");
    gui.setProcessEnvironment(env);
    gui.start(QStringLiteral(NF_GUI_PATH), {"--db", QString::fromStdString(db), "--run", "1", "--size", "1024x700",
                                            "--report", report, "--export-pdf", pdf});
    ASSERT_TRUE(gui.waitForFinished(120000));
    ASSERT_EQ(gui.exitCode(), 0) << gui.readAllStandardError().toStdString();
    const QByteArray printed = cli({"--db", QString::fromStdString(db), "compare", "1", "--format", "text"});
    QFile written(report);
    ASSERT_TRUE(written.open(QIODevice::ReadOnly));
    EXPECT_EQ(written.readAll().toStdString(), printed.toStdString());
    QFile plots(pdf);
    ASSERT_TRUE(plots.open(QIODevice::ReadOnly));
    const QByteArray bytes = plots.readAll();
    EXPECT_TRUE(bytes.startsWith("%PDF-"));
    EXPECT_TRUE(bytes.trimmed().endsWith("%%EOF"));
    EXPECT_GT(bytes.size(), 10000);
    EXPECT_EQ(emptyPaths(bytes), 0);

    // Without a selection there is nothing to report: a usage error, nothing written.
    QProcess bare;
    bare.setProcessEnvironment(env);
    bare.start(QStringLiteral(NF_GUI_PATH), {"--db", QString::fromStdString(db), "--report", report + ".none"});
    ASSERT_TRUE(bare.waitForFinished(60000));
    EXPECT_EQ(bare.exitCode(), 2);
    EXPECT_FALSE(QFile::exists(report + ".none"));

    // --margin, --alpha and --drop-outliers are compare's: the same report; a margin out of range
    // is one line and exit 2.
    QProcess options;
    options.setProcessEnvironment(env);
    options.start(QStringLiteral(NF_GUI_PATH), {"--db", QString::fromStdString(db), "--run", "1", "--margin", "0.25",
                                                "--alpha", "0.02", "--drop-outliers", "--report", report + ".opt"});
    ASSERT_TRUE(options.waitForFinished(120000));
    ASSERT_EQ(options.exitCode(), 0) << options.readAllStandardError().toStdString();
    QFile withOptions(report + ".opt");
    ASSERT_TRUE(withOptions.open(QIODevice::ReadOnly));
    EXPECT_EQ(withOptions.readAll().toStdString(), cli({"--db", QString::fromStdString(db), "compare", "1", "--margin",
                                                        "0.25", "--alpha", "0.02", "--drop-outliers"})
                                                       .toStdString());
    QProcess badMargin;
    badMargin.setProcessEnvironment(env);
    badMargin.start(QStringLiteral(NF_GUI_PATH),
                    {"--db", QString::fromStdString(db), "--run", "1", "--margin", "0", "--report", report + ".bad"});
    ASSERT_TRUE(badMargin.waitForFinished(60000));
    EXPECT_EQ(badMargin.exitCode(), 2);
    // (Qt may say a word about XDG_RUNTIME_DIR first.)
    EXPECT_EQ(badMargin.readAllStandardError().trimmed().split('\n').back(),
              "noisefloor-gui: --margin '0': expected a percentage from 0.01 to 50");
    EXPECT_FALSE(QFile::exists(report + ".bad"));
}

// The Explore tab's export of a sweep (--sweep ID --export-pdf) is valid PDF: its thick 90% bars
// once left empty paths (a closepath with no current point) that PDF readers report as errors.
TEST(PlotFigures, SweepPdfHasNoEmptyPaths)
{
    TempDir dir;
    const QString db = QString::fromStdString(dir.file("sweep.db"));
    const QString printed = QString::fromUtf8(
        cli({"run", "page-pool", "--db", db, "--reps", "2", "--duration", "0.1", "--share-cpus", "--variant",
             "late:check=late", "--variant", "early:check=early", "--sweep", "pool_size=16,128"}));
    const auto match = QRegularExpression(QStringLiteral("Sweep (\\S+):")).match(printed);
    ASSERT_TRUE(match.hasMatch()) << printed.toStdString();
    const QString pdf = QString::fromStdString(dir.file("sweep.pdf"));
    QProcess gui;
    QProcessEnvironment env = QProcessEnvironment::systemEnvironment();
    env.remove("DISPLAY");
    env.remove("WAYLAND_DISPLAY");
    env.remove("QT_QPA_PLATFORM");
    gui.setProcessEnvironment(env);
    gui.start(QStringLiteral(NF_GUI_PATH), {"--db", db, "--sweep", match.captured(1), "--export-pdf", pdf});
    ASSERT_TRUE(gui.waitForFinished(120000));
    ASSERT_EQ(gui.exitCode(), 0) << gui.readAllStandardError().toStdString();
    QFile file(pdf);
    ASSERT_TRUE(file.open(QIODevice::ReadOnly));
    const QByteArray bytes = file.readAll();
    ASSERT_FALSE(pdfStreams(bytes).isEmpty());
    EXPECT_EQ(emptyPaths(bytes), 0);
}

// A swap shows everywhere: the title names which way the differences go, and the values side
// draws the new baseline's mean as a dashed line.
TEST(PlotFigures, SwapMovesTheTitleAndTheBaselineLine)
{
    application();
    TempDir dir;
    const QString db = QString::fromStdString(dir.file("swap.db"));
    cli({"run", "spin", "--db", db, "--reps", "3", "--duration", "0.1", "--share-cpus", "--variant", "a:work=1000",
         "--variant", "b:work=1010"});
    MainWindow window(db);
    ASSERT_TRUE(window.selectRun(1));
    window.waitForLoads();
    ComparePanel& compare = *window.comparePanel();
    EXPECT_TRUE(compare.titleText().endsWith("b against a")) << compare.titleText().toStdString();
    const auto mean = [&](const QString& variant) {
        for (const auto& v : compare.view().panels[0].variants) {
            if (v.name == variant) {
                return v.mean;
            }
        }
        return std::nan("");
    };
    EXPECT_DOUBLE_EQ(compare.panel(0)->drawnBaselineMean(), mean("a"));
    compare.swapBaseline();
    window.waitForLoads();
    EXPECT_EQ(compare.view().baseline, "b");
    EXPECT_TRUE(compare.titleText().endsWith("a against b")) << compare.titleText().toStdString();
    EXPECT_DOUBLE_EQ(compare.panel(0)->drawnBaselineMean(), mean("b"));
}

// A sweep stopped after its first point: the x axis spans that point's value either side, never
// below zero, and the legend sits above the values rather than over them.
TEST(PlotFigures, OnePointSweepKeepsItsAxisAndLegendClear)
{
    application();
    TempDir dir;
    const QString db = QString::fromStdString(dir.file("one.db"));
    // pool_size=16; zero_size_pct=0 (a sweep of 0,50,100 stopped after its first point read
    // -400 m..400 m).
    for (const auto& [sweep, value] : {std::pair{"pool_size=16", 16.0}, std::pair{"zero_size_pct=0", 0.0}}) {
        SCOPED_TRACE(sweep);
        const QString printed = QString::fromUtf8(
            cli({"run", "page-pool", "--db", db, "--reps", "2", "--duration", "0.1", "--share-cpus", "--variant",
                 "late:check=late", "--variant", "early:check=early", "--sweep", sweep}));
        const auto match = QRegularExpression(QStringLiteral("Sweep (\\S+):")).match(printed);
        ASSERT_TRUE(match.hasMatch()) << printed.toStdString();
        MainWindow window(db);
        window.resize(1024, 700);
        ASSERT_TRUE(window.showSweep(match.captured(1)));
        window.showTab("explore");
        window.setAttribute(Qt::WA_DontShowOnScreen);
        window.show();
        window.waitForLoads();
        QApplication::processEvents();
        QCustomPlot* plot = window.explorePanel()->customPlot();
        plot->replot();
        ASSERT_TRUE(window.explorePanel()->message().isEmpty()) << window.explorePanel()->message().toStdString();
        const QCPRange x = plot->xAxis->range();
        EXPECT_GE(x.lower, -0.04 * x.size());  // no negative axis; the variants sit 1% apart
        EXPECT_LE(x.lower, value);
        EXPECT_GT(x.upper, value);
        EXPECT_GE(x.upper - x.lower, 1);  // no milli-ticks around a whole parameter value
        // The legend is not inside the values' axis rect, and does not overlap it.
        EXPECT_FALSE(plot->axisRect()->insetLayout()->elements(false).contains(plot->legend));
        EXPECT_FALSE(plot->legend->outerRect().intersects(plot->axisRect()->rect())) << "legend over the values";
        // One point has no band to draw: each variant's interval is a bar, the variants apart.
        std::vector<double> barsAt;
        for (int i = 0; i < plot->plottableCount(); ++i) {
            auto* bars = qobject_cast<QCPErrorBars*>(plot->plottable(i));
            if (bars != nullptr && bars->keyAxis() == plot->xAxis) {  // not the differences' below
                ASSERT_EQ(bars->dataCount(), 1);
                EXPECT_GT(bars->data()->at(0).errorMinus + bars->data()->at(0).errorPlus, 0);
                barsAt.push_back(bars->dataPlottable()->interface1D()->dataMainKey(0));
            }
        }
        ASSERT_EQ(barsAt.size(), 2U);
        EXPECT_GT(std::abs(plot->xAxis->coordToPixel(barsAt[0]) - plot->xAxis->coordToPixel(barsAt[1])), 4)
            << "the two variants' bars on one another";
    }
}

// The Live difference plot's legend names everything drawn: the band of the margin and the
// detectable lines too (items, which a legend does not list by itself), and its band stays inside
// the axis rect.
TEST(PlotFigures, LiveDifferenceLegendNamesTheBandAndTheDetectableLines)
{
    application();
    DifferencePlot plot;
    plot.setAttribute(Qt::WA_DontShowOnScreen);
    plot.resize(600, 300);
    plot.show();
    for (int i = 1; i <= 5; ++i) {
        LiveLook look;
        look.elapsed = i;
        look.estimatePct = 0.5;
        look.lowPct = 0.5 - 2.0 / i;
        look.highPct = 0.5 + 2.0 / i;
        look.marginPct = 1;
        look.detectablePct = 1.5;
        plot.addLook(look);
    }
    plot.replot();
    QApplication::processEvents();
    const QStringList names = plot.legendNames();
    EXPECT_TRUE(names.filter("margin").size() == 1) << names.join(", ").toStdString();
    EXPECT_TRUE(names.filter("detectable").size() == 1) << names.join(", ").toStdString();
    QCPItemRect* band = nullptr;
    for (int i = 0; i < plot.customPlot()->itemCount(); ++i) {
        if (auto* r = qobject_cast<QCPItemRect*>(plot.customPlot()->item(i))) {
            band = r;
        }
    }
    ASSERT_NE(band, nullptr);
    const QRect rect = plot.customPlot()->axisRect()->rect();
    EXPECT_NEAR(band->topLeft->pixelPosition().x(), rect.left(), 1.5);
    EXPECT_NEAR(band->bottomRight->pixelPosition().x(), rect.left() + rect.width(), 1.5);
    EXPECT_EQ(plot.pointCount(), 5);  // the legend's entries hold no data of their own
}

// The verdict line the panels show (the engine's verdictSentence, as the report prints it): a real
// -0.002% is not "0.00% lower".
TEST(PlotFigures, VerdictSentenceNeverSaysZeroForANonzero)
{
    engine::MetricComparison c;
    c.metric = "ipc";
    c.baseline = "a";
    c.candidate = "b";
    c.higherIsBetter = true;
    c.result.verdict = engine::Verdict::Different;
    c.result.direction = -1;
    c.result.interval.estimatePct = -0.002;
    c.result.interval.ci.low = -0.0031;
    c.result.interval.ci.high = -0.0009;
    c.result.interval.level = 0.95;
    c.result.interval.nominalLevel = 0.95;
    c.result.p = c.result.pAdjusted = 0.001;
    const std::string sentence = engine::verdictSentence(c, engine::CompareOptions{});
    EXPECT_NE(sentence.find("b is 0.0020% lower"), std::string::npos) << sentence;
    EXPECT_NE(sentence.find("-0.0031..-0.00090%"), std::string::npos) << sentence;
    EXPECT_EQ(sentence.find("0.00%"), std::string::npos) << sentence;
}

}  // namespace
}  // namespace nf::ui
