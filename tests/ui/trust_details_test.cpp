// The smaller things a reviewer trusts the app by: a refused spec's reason in the Live headline,
// the last run's log and axes gone when a new run starts, Add variant never repeating a name, Tab
// leaving the variants table, exports that say what they show (PDF with vectors and text, PNG
// with a header) and a CSV across runs in the file the user chose with the variants ticked.

#include <gtest/gtest.h>

#include <QFile>
#include <QFileDialog>
#include <QFileInfo>
#include <QImage>
#include <QListWidget>
#include <QProcess>
#include <QPushButton>
#include <QRegularExpression>
#include <QSignalSpy>
#include <QTableWidget>
#include <QTest>
#include <QTimer>
#include <filesystem>
#include <string>

#include <qcustomplot.h>

#include "tests/support/temp_dir.h"
#include "tests/ui/ui_test_support.h"
#include "ui/compare_panel.h"
#include "ui/compare_plot.h"
#include "ui/event_client.h"
#include "ui/experiment_editor.h"
#include "ui/explore_panel.h"
#include "ui/file_dialog.h"
#include "ui/history_panel.h"
#include "ui/live_panel.h"
#include "ui/main_window.h"

namespace nf::ui {
namespace {

using nf::test::TempDir;

TEST(TrustDetails, ARefusedSpecSaysWhyAndTheNextRunStartsClean)
{
    test::application();
    EventClient client;
    LivePanel live;
    live.attach(&client);
    QSignalSpy ended(&client, &EventClient::processEnded);
    ASSERT_TRUE(client.start(QStringLiteral(NF_CLI_PATH), {"run", "spin", "--reps", "0"}));
    ASSERT_TRUE(ended.wait(60000));
    EXPECT_TRUE(live.statusText().contains("--reps 0")) << live.statusText().toStdString();
    EXPECT_FALSE(live.statusText().contains("exited with status")) << live.statusText().toStdString();
    EXPECT_FALSE(live.logText().isEmpty());

    live.customPlot()->xAxis->setRange(100, 200);
    live.clear();  // what starting a run does first (MainWindow::startRun)
    EXPECT_TRUE(live.logText().isEmpty()) << live.logText().toStdString();
    EXPECT_LT(live.customPlot()->xAxis->range().upper, 100);
    EXPECT_EQ(live.customPlot()->graphCount(), 0);
}

TEST(TrustDetails, AddVariantNeverRepeatsANameAndTabLeavesTheTable)
{
    test::application();
    ExperimentEditor editor;
    ASSERT_TRUE(editor.selectWorkload("spin"));
    editor.setVariants({{"a", ""}, {"c", "work=200"}});
    auto* add = editor.findChild<QPushButton*>(QStringLiteral("addVariant"));
    ASSERT_NE(add, nullptr);
    add->click();
    add->click();
    QTableWidget* table = editor.variantsTable();
    QStringList names;
    for (int r = 0; r < table->rowCount(); ++r) {
        names << table->item(r, 0)->text();
    }
    EXPECT_EQ(names, (QStringList{"a", "c", "b", "d"}));

    editor.setAttribute(Qt::WA_DontShowOnScreen);
    editor.show();
    editor.activateWindow();
    table->setFocus();
    table->setCurrentCell(0, 0);
    QTest::keyClick(table, Qt::Key_Tab);
    EXPECT_FALSE(table->hasFocus()) << "Tab stayed in the variants table";
    EXPECT_EQ(table->currentRow(), 0);
}

class ExportTest : public ::testing::Test {
protected:
    void SetUp() override
    {
        test::application();
        m_first = test::storeRun(m_db, "vanilla");
        m_second = test::storeRun(m_db, "patched");
        ASSERT_GT(m_second, 0);
    }
    TempDir m_dir;
    std::string m_db = m_dir.file("runs.db");
    std::int64_t m_first = 0;
    std::int64_t m_second = 0;
};

// The page content of a PDF, its Flate streams inflated.
QByteArray pdfContent(const QString& file)
{
    QFile in(file);
    if (!in.open(QIODevice::ReadOnly)) {
        return {};
    }
    const QByteArray pdf = in.readAll();
    QByteArray out = pdf;
    for (qsizetype at = pdf.indexOf("stream\n"); at >= 0; at = pdf.indexOf("stream\n", at + 1)) {
        const qsizetype begin = at + 7;
        const qsizetype end = pdf.indexOf("endstream", begin);
        if (end < 0) {
            break;
        }
        if (!pdf.mid(std::max<qsizetype>(0, at - 200), 200).contains("FlateDecode")) {
            continue;
        }
        QByteArray zlib = pdf.mid(begin, end - begin);
        while (zlib.endsWith('\n') || zlib.endsWith('\r')) {
            zlib.chop(1);
        }
        const quint32 big = 64U * 1024U * 1024U;
        zlib.prepend(QByteArray::fromHex(QByteArray::number(big, 16).rightJustified(8, '0')));
        out += qUncompress(zlib);
    }
    return out;
}

TEST_F(ExportTest, PlotsExportAsVectorsWithTextUnderAHeader)
{
    MainWindow window(QString::fromStdString(m_db));
    ASSERT_TRUE(window.compare({{m_first, QString()}, {m_second, QString()}}));
    window.waitForLoads();
    ComparePanel& compare = *window.comparePanel();
    const QStringList header = compare.exportHeader();
    // The header is the report `noisefloor compare` prints for the same runs, line by line: the
    // warnings, the metric lines and the notes included.
    QProcess cli;
    cli.start(QStringLiteral(NF_CLI_PATH),
              {"compare", QString::number(m_first), QString::number(m_second), "--db", QString::fromStdString(m_db)});
    ASSERT_TRUE(cli.waitForFinished(120000));
    ASSERT_EQ(cli.exitCode(), 0) << cli.readAllStandardError().toStdString();
    QString printed = QString::fromUtf8(cli.readAllStandardOutput());
    while (printed.endsWith('\n')) {
        printed.chop(1);
    }
    EXPECT_EQ(header.join('\n').toStdString(), printed.toStdString());
    EXPECT_EQ(header.join('\n') + '\n', compare.reportText());  // what "Copy evidence report" copies
    ASSERT_GE(header.size(), 3);
    EXPECT_TRUE(header[0].contains(QString::number(m_first)) && header[0].contains(QString::number(m_second)));
    EXPECT_TRUE(header.join('\n').contains("spin"));
    EXPECT_TRUE(header.join('\n').contains("kernel"));
    EXPECT_TRUE(header.join('\n').contains("\n! run-to-run variance not counted")) << header.join('\n').toStdString();
    // The primary metric: tsc_per_op, or tsc/op when its figures leave too few columns.
    EXPECT_TRUE(header.join('\n').contains("\n* tsc")) << header.join('\n').toStdString();

    const QString pdf = QString::fromStdString(m_dir.file("plots.pdf"));
    ASSERT_TRUE(compare.saveImage(pdf));
    const QByteArray content = pdfContent(pdf);
    EXPECT_FALSE(content.contains("/Subtype /Image")) << "the PDF holds a bitmap";
    EXPECT_TRUE(content.contains(" Tf")) << "the PDF sets no font: no text";
    EXPECT_TRUE(content.contains("Tj") || content.contains("TJ")) << "the PDF draws no text";
    EXPECT_GT(content.count(" l\n") + content.count(" l "), 50) << "the PDF draws few lines: not vectors";

    const QString png = QString::fromStdString(m_dir.file("plots.png"));
    ASSERT_TRUE(compare.saveImage(png));
    if (const QString keep = qEnvironmentVariable("NF_UI_EXPORT_DIR"); !keep.isEmpty()) {  // to look at them
        for (const QString& file : {pdf, png}) {
            const QString to = keep + "/" + QFileInfo(file).fileName();
            QFile::remove(to);  // QFile::copy keeps what is there
            QFile::copy(file, to);
        }
    }
    const QImage image(png);
    ASSERT_FALSE(image.isNull());
    EXPECT_GT(image.height(), compare.panel(0)->customPlot()->height() * 2 * 2);  // two rows, twice the pixels
    // The header band above the plots has text in it.
    EXPECT_GT(test::drawnPixels(image.copy(0, 0, image.width(), 40)), 20);
}

TEST_F(ExportTest, CsvAcrossRunsUsesTheChosenFileAndTheTickedVariants)
{
    MainWindow window(QString::fromStdString(m_db));
    ASSERT_TRUE(window.compare({{m_first, QStringLiteral("a")}, {m_second, QStringLiteral("b")}}));
    window.waitForLoads();
    const QString file = QString::fromStdString(m_dir.file("chosen.csv"));
    setFileDialogObserver([&](QFileDialog* dialog) {
        QTimer::singleShot(0, dialog, [dialog, file] {
            dialog->selectFile(file);
            static_cast<QDialog*>(dialog)->accept();  // public in QDialog
        });
    });
    emit window.comparePanel()->exportCsvRequested();
    setFileDialogObserver({});
    ASSERT_TRUE(std::filesystem::exists(file.toStdString())) << window.statusText().toStdString();
    int csvFiles = 0;
    for (const auto& entry : std::filesystem::directory_iterator(m_dir.path())) {
        csvFiles += entry.path().string().find(".csv") != std::string::npos ? 1 : 0;
    }
    EXPECT_EQ(csvFiles, 1) << "another file was written";
    QFile in(file);
    ASSERT_TRUE(in.open(QIODevice::ReadOnly));
    const QStringList lines = QString::fromUtf8(in.readAll()).split('\n', Qt::SkipEmptyParts);
    ASSERT_GT(lines.size(), 1);
    EXPECT_TRUE(lines[0].startsWith("run,variant,"));
    int first = 0;
    int second = 0;
    for (const auto& line : lines.mid(1)) {
        const QStringList f = line.split(',');
        if (f[0] == QString::number(m_first)) {
            EXPECT_EQ(f[1], "a") << line.toStdString();
            ++first;
        } else if (f[0] == QString::number(m_second)) {
            EXPECT_EQ(f[1], "b") << line.toStdString();
            ++second;
        } else {
            ADD_FAILURE() << line.toStdString();
        }
    }
    EXPECT_EQ(first, test::kReps * test::kSamplesPerRep);
    EXPECT_EQ(second, test::kReps * test::kSamplesPerRep);
}

TEST_F(ExportTest, ExploreExportsItsPlotAndTable)
{
    const engine::SweepPoint p0{.id = "sw1", .param = "work", .value = "100", .index = 0, .points = 2};
    test::storeRun(m_db, "sweep", p0);
    engine::SweepPoint p1 = p0;
    p1.value = "200";
    p1.index = 1;
    test::storeRun(m_db, "sweep", p1);
    MainWindow window(QString::fromStdString(m_db));
    ASSERT_TRUE(window.showSweep("sw1"));
    window.waitForLoads();
    ExplorePanel& explore = *window.explorePanel();
    ASSERT_EQ(explore.view().points.size(), 2U) << explore.view().error.toStdString();
    const QString csv = QString::fromStdString(m_dir.file("sweep.csv"));
    ASSERT_TRUE(explore.exportTo(csv));
    QFile in(csv);
    ASSERT_TRUE(in.open(QIODevice::ReadOnly));
    const QStringList lines = QString::fromUtf8(in.readAll()).split('\n', Qt::SkipEmptyParts);
    EXPECT_EQ(lines.size(), 1 + 2 * 2);  // header, 2 points x 2 variants
    EXPECT_TRUE(lines.value(1).startsWith("sw1,work,100,")) << lines.value(1).toStdString();
    const QString pdf = QString::fromStdString(m_dir.file("sweep.pdf"));
    ASSERT_TRUE(explore.exportTo(pdf));
    EXPECT_FALSE(pdfContent(pdf).contains("/Subtype /Image"));
    EXPECT_TRUE(explore.exportTo(QString::fromStdString(m_dir.file("sweep.png"))));
}

}  // namespace
}  // namespace nf::ui
