// One colour per variant, the same in every tab: the palette (ui/variant_palette.h) keyed by the
// variant's index in its run, read back from what Live, Compare (values and differences), the
// repetition plot and Explore actually drew; samples drawn so that one variant does not cover
// another.

#include <gtest/gtest.h>

#include <QComboBox>
#include <QFile>
#include <QJsonArray>
#include <QJsonDocument>
#include <QJsonObject>
#include <QSet>
#include <QTest>
#include <array>

#include <qcustomplot.h>

#include "tests/support/temp_dir.h"
#include "tests/ui/ui_test_support.h"
#include "ui/compare_panel.h"
#include "ui/compare_plot.h"
#include "ui/difference_plot.h"
#include "ui/event_client.h"
#include "ui/explore_panel.h"
#include "ui/live_panel.h"
#include "ui/main_window.h"
#include "ui/repetition_plot.h"
#include "ui/variant_palette.h"

namespace nf::ui {
namespace {

QRgb rgb(const QColor& c)
{
    return c.rgb();  // without alpha
}

QRgb scatterColour(QCPGraph* g)
{
    return rgb(g->scatterStyle().pen().color());
}

TEST(Palette, TwentyVariantsHaveTwentyColours)
{
    QSet<QRgb> seen;
    for (int v = 0; v < 20; ++v) {
        seen.insert(rgb(variantColour(v)));
        EXPECT_EQ(variantColour(v, 90).alpha(), 90);
        EXPECT_EQ(rgb(variantColour(v, 90)), rgb(variantColour(v)));
    }
    EXPECT_EQ(seen.size(), 20);
    EXPECT_EQ(rgb(variantColour(-1)), rgb(variantColour(0)));  // never out of range
}

class PaletteTest : public ::testing::Test {
protected:
    void SetUp() override
    {
        test::application();
        qputenv("NOISEFLOOR_BIN", NF_CLI_PATH);
        m_run = test::storeRun(m_dbPath, "three", std::nullopt, 3);
        ASSERT_GT(m_run, 0);
    }

    nf::test::TempDir m_dir;
    std::string m_dbPath = m_dir.file("runs.db");
    QString m_db = QString::fromStdString(m_dbPath);
    std::int64_t m_run = 0;
};

TEST_F(PaletteTest, CompareAndTheRepetitionPlotColourEachVariantByItsIndexInTheRun)
{
    MainWindow window(m_db);
    ASSERT_TRUE(window.selectRun(m_run));
    window.waitForLoads();
    // Compare, values side: dots then mean, per variant in the run's order.
    ComparePlot* panel = window.comparePanel()->panel(3);
    QCustomPlot* plot = panel->customPlot();
    ASSERT_GE(plot->graphCount(), 3 * 2 + 1 + 2) << panel->message().toStdString();
    for (int v = 0; v < 3; ++v) {
        EXPECT_EQ(scatterColour(plot->graph(2 * v)), rgb(variantColour(v))) << "dots of variant " << v;
        EXPECT_EQ(scatterColour(plot->graph(2 * v + 1)), rgb(variantColour(v))) << "mean of variant " << v;
    }
    // Differences: each candidate's diamond filled with that candidate's colour.
    for (int g = 2 * 3 + 1; g < plot->graphCount(); ++g) {
        const QString name = plot->graph(g)->name();
        const int v = name == "b" ? 1 : name == "c" ? 2 : -1;
        ASSERT_GE(v, 1) << name.toStdString();
        EXPECT_EQ(rgb(plot->graph(g)->scatterStyle().brush().color()), rgb(variantColour(v)));
    }
    // The repetition plot in History.
    QCustomPlot* reps = window.plot()->customPlot();
    ASSERT_EQ(reps->graphCount(), 3);
    for (int v = 0; v < 3; ++v) {
        EXPECT_EQ(scatterColour(reps->graph(v)), rgb(variantColour(v)));
    }
}

TEST_F(PaletteTest, AnotherBaselineKeepsEveryVariantsColour)
{
    MainWindow window(m_db);
    ASSERT_TRUE(window.selectRun(m_run));
    window.waitForLoads();
    QComboBox* picker = window.comparePanel()->baselinePicker();
    const int c = picker->findText("c");
    ASSERT_GE(c, 0);
    picker->setCurrentIndex(c);
    emit picker->activated(c);
    window.waitForLoads();
    ASSERT_EQ(window.comparePanel()->view().baseline, "c");
    QCustomPlot* plot = window.comparePanel()->panel(3)->customPlot();
    ASSERT_GE(plot->graphCount(), 7);
    for (int v = 0; v < 3; ++v) {
        EXPECT_EQ(scatterColour(plot->graph(2 * v)), rgb(variantColour(v))) << "variant " << v;
    }
    for (int g = 7; g < plot->graphCount(); ++g) {
        const QString name = plot->graph(g)->name();
        EXPECT_EQ(rgb(plot->graph(g)->scatterStyle().brush().color()), rgb(variantColour(name == "a" ? 0 : 1)))
            << name.toStdString();
    }
}

TEST_F(PaletteTest, ExploreColoursEachVariantLikeCompare)
{
    const std::string id = "20261201T010000-0c0ffee0";
    for (int i = 0; i < 3; ++i) {
        ASSERT_GT(
            test::storeRun(m_dbPath, "sweep", engine::SweepPoint{id, "work", std::to_string(100 * (i + 1)), i, 3}, 3),
            0);
    }
    MainWindow window(m_db);
    ASSERT_TRUE(window.showSweep(QString::fromStdString(id)));
    window.waitForLoads();
    QCustomPlot* plot = window.explorePanel()->customPlot();
    ASSERT_EQ(plot->graphCount(), 3 * 3 + 2);
    for (int v = 0; v < 3; ++v) {
        EXPECT_EQ(rgb(plot->graph(3 * v + 2)->pen().color()), rgb(variantColour(v))) << "variant " << v;
        EXPECT_EQ(rgb(plot->graph(3 * v + 1)->brush().color()), rgb(variantColour(v)));
    }
    // Each candidate's differences from the baseline, below, in the candidate's colour.
    for (int v = 1; v < 3; ++v) {
        EXPECT_EQ(rgb(plot->graph(3 * 3 + v - 1)->scatterStyle().brush().color()), rgb(variantColour(v)))
            << "candidate " << v;
    }
    if (const QByteArray shots = qgetenv("NF_UI_SHOTS"); !shots.isEmpty()) {  // to look at it
        window.resize(1024, 700);
        window.saveScreenshot(QString::fromUtf8(shots) + "/explore-three-variants.png");
    }
}

TEST(PaletteLive, SamplesAreHollowAndTranslucentInTheVariantsColour)
{
    test::application();
    QFile file(QStringLiteral(NF_UI_TEST_DATA "/spin_run.jsonl"));
    ASSERT_TRUE(file.open(QIODevice::ReadOnly));
    const QByteArray header = file.readLine();
    ASSERT_TRUE(header.contains("\"run_started\""));
    EventClient client;
    LivePanel live;
    live.attach(&client);
    client.feed(header);
    QCustomPlot* plot = live.customPlot();
    ASSERT_GE(plot->graphCount(), 2);
    for (int v = 0; v < 2; ++v) {
        const QCPScatterStyle style = plot->graph(v)->scatterStyle();
        EXPECT_EQ(rgb(style.pen().color()), rgb(variantColour(v)));
        EXPECT_LT(style.pen().color().alpha(), 255) << "variant " << v << " would cover the one under it";
        EXPECT_TRUE(style.brush().style() == Qt::NoBrush || style.brush().color().alpha() < 128)
            << "variant " << v << " is drawn filled";
    }
    // The running difference is the candidate's (the second variant's) colour.
    EXPECT_EQ(rgb(live.differencePlot()->estimateColour()), rgb(variantColour(1).darker(140)));
}

// Each variant's legend entry shows its marker, large enough to see (a hollow five-pixel ring in an
// icon of the legend's size read as an empty box).
TEST(PaletteLive, TheLegendShowsEachVariantsMarker)
{
    test::application();
    QFile file(QStringLiteral(NF_UI_TEST_DATA "/spin_run.jsonl"));
    ASSERT_TRUE(file.open(QIODevice::ReadOnly));
    EventClient client;
    LivePanel live;
    live.attach(&client);
    client.feed(file.readAll());
    QCustomPlot* plot = live.customPlot();
    const QImage image = plot->toPixmap(800, 400).toImage();
    ASSERT_GE(plot->legend->itemCount(), 2);
    for (int v = 0; v < 2; ++v) {
        const QRect icon(plot->legend->item(v)->rect().topLeft(), plot->legend->iconSize());
        const QRgb background = image.pixel(icon.topLeft());
        int drawn = 0;
        for (int y = icon.top(); y <= icon.bottom(); ++y) {
            for (int x = icon.left(); x <= icon.right(); ++x) {
                drawn += image.pixel(x, y) != background ? 1 : 0;
            }
        }
        EXPECT_GE(drawn, 50) << "variant " << v << "'s legend icon is next to empty";
    }
}

// Past kDotsAbove samples the markers are small squares in each variant's own colour: both
// variants show, and nothing is drawn in QCustomPlot's default blue (a NoPen scatter pen is taken
// as none given, and every square got a blue edge that hid the other variant).
TEST(PaletteLive, ManySamplesKeepEachVariantsColour)
{
    test::application();
    QFile file(QStringLiteral(NF_UI_TEST_DATA "/spin_run.jsonl"));
    ASSERT_TRUE(file.open(QIODevice::ReadOnly));
    const QByteArray started = file.readLine();
    EventClient client;
    LivePanel live;
    live.attach(&client);
    client.feed(started);
    QJsonArray samples;
    for (int i = 0; i < LivePanel::kDotsAbove + 200; ++i) {
        samples.append(QJsonObject{{"duration", 0.001},
                                   {"index", i / 2},
                                   {"pair", i / 2},
                                   {"primary", 1000.0 + (i % 97)},
                                   {"repetition", 0},
                                   {"start", 0.001 * i},
                                   {"values", QJsonArray{1.0, 1.0, 1.0, 1.0, 0.0, 0.0, 0.0}},
                                   {"variant", i % 2}});
    }
    const QJsonObject event{{"event", "samples"}, {"repetition", 0}, {"run", 1}, {"samples", samples}};
    client.feed(QJsonDocument(event).toJson(QJsonDocument::Compact) + "\n");
    QTest::qWait(400);  // the panel's replot (and its axis rescale) is coalesced on a timer
    QCustomPlot* plot = live.customPlot();
    const QImage image = plot->toPixmap(800, 400).toImage();
    const QRect values = plot->axisRect()->rect();
    const QRect legend = plot->legend->outerRect();
    int blue = 0;
    std::array<int, 2> near{};
    for (int y = values.top(); y <= values.bottom(); ++y) {
        for (int x = values.left(); x <= values.right(); ++x) {
            if (legend.contains(x, y)) {
                continue;
            }
            const QColor c = image.pixelColor(x, y);
            blue += std::abs(c.hue() - 240) < 6 && c.saturation() > 200 ? 1 : 0;  // the default blue
            for (int v = 0; v < 2; ++v) {
                const QColor want = variantColour(v);
                near[static_cast<std::size_t>(v)] += std::abs(c.hue() - want.hue()) < 12 && c.saturation() > 60 ? 1 : 0;
            }
        }
    }
    EXPECT_LT(blue, 20) << "pixels in the default blue";
    EXPECT_GT(near[0], 100);
    EXPECT_GT(near[1], 100);
}

}  // namespace
}  // namespace nf::ui
