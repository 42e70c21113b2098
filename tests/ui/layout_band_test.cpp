// Code layout on the Compare tab's difference plot: a comparison with a layout spread draws it as
// a hatched band +-spread around 0 in its candidate's column, under the diamond and its figures,
// names it in the caption where the axis has room, says what it means under the figures and in the
// tooltip (and that the layout design is incomplete where fewer placements were measured than
// planned), and reaches the PNG and PDF exports. A comparison without one draws nothing new.

#include <gtest/gtest.h>

#include <QFile>
#include <QImage>
#include <QPixmap>
#include <cmath>

#include <qcustomplot.h>

#include "engine/analysis/analysis.h"
#include "tests/support/temp_dir.h"
#include "tests/ui/ui_test_support.h"
#include "ui/compare_plot.h"
#include "ui/comparison.h"
#include "ui/plot_export.h"
#include "ui/variant_palette.h"

namespace nf::ui {
namespace {

using nf::test::TempDir;
using nf::ui::test::application;

const char* const kMeaning = "what where the code sits moves; the interval includes it";

// page-pool's early-vs-late case in docs/workloads.md: +1.6% (+1.50..+1.67%) inside a layout spread
// of 1.8%, as the engine's analysis gives it (`measured` of `planned` placements).
engine::MetricComparison pagePoolComparison(std::optional<double> spreadPct, std::size_t measured = 8,
                                            std::size_t planned = 8)
{
    engine::MetricComparison c;
    c.metric = "ipc";
    c.baseline = "early";
    c.candidate = "late";
    c.result.design = engine::Design::Paired;
    c.result.interval.design = engine::Design::Paired;
    c.result.interval.estimatePct = 1.6;
    c.result.interval.ci = {.low = 1.50, .high = 1.67};
    c.result.interval.level = 0.95;
    c.result.interval.nominalLevel = 0.95;
    c.result.interval.method = "Hodges-Lehmann";
    c.result.verdict = engine::Verdict::Inconclusive;
    c.result.layoutSpreadPct = spreadPct;
    if (spreadPct) {
        c.result.layoutsMeasured = measured;
        c.result.layoutsPlanned = planned;
    }
    return c;
}

PanelView panelOf(const std::vector<engine::MetricComparison>& comparisons)
{
    PanelView panel;
    panel.title = "IPC";
    panel.metric = "ipc";
    panel.marginPct = 1;
    panel.source = "noisefloor compare 1";
    for (const char* name : {"early", "late", "late2"}) {
        VariantView v;
        v.name = name;
        v.repetitions = {1.20, 1.21, 1.22};
        v.mean = 1.21;
        v.ciLow = 1.20;
        v.ciHigh = 1.22;
        panel.variants.push_back(v);
    }
    for (const auto& c : comparisons) {
        panel.differences.push_back(differenceView(c, 0.05));
        panel.verdicts << QString::fromStdString(c.candidate + " vs early: inconclusive");
    }
    return panel;
}

// A plot of `size` showing `panel`, laid out and drawn.
struct Shown {
    ComparePlot plot;

    Shown(const PanelView& panel, QSize size)
    {
        plot.setAttribute(Qt::WA_DontShowOnScreen);
        plot.resize(size);
        plot.show();
        plot.showPanel(panel);
        QApplication::processEvents();
        plot.customPlot()->replot();
        QApplication::processEvents();
    }

    int rects() const
    {
        int n = 0;
        for (int i = 0; i < plot.customPlot()->itemCount(); ++i) {
            n += qobject_cast<QCPItemRect*>(plot.customPlot()->item(i)) != nullptr ? 1 : 0;
        }
        return n;
    }
    QStringList figures() const
    {
        QStringList shown;
        for (int i = 0; i < plot.customPlot()->itemCount(); ++i) {
            if (auto* t = qobject_cast<QCPItemText*>(plot.customPlot()->item(i)); t != nullptr && t->visible()) {
                shown << t->text();
            }
        }
        return shown;
    }
};

// Where a layerable is drawn among those of its layer: later is on top.
int drawOrder(QCPLayerable* layerable)
{
    return static_cast<int>(layerable->layer()->children().indexOf(layerable));
}

TEST(LayoutBand, TheEnginesSpreadReachesThePanel)
{
    const DifferenceView with = differenceView(pagePoolComparison(1.8, 5, 8), 0.05);
    ASSERT_TRUE(with.layout.has_value());
    EXPECT_DOUBLE_EQ(with.layout->spreadPct, 1.8);
    EXPECT_EQ(with.layout->measured, 5U);
    EXPECT_EQ(with.layout->planned, 8U);
    EXPECT_FALSE(differenceView(pagePoolComparison(std::nullopt), 0.05).layout.has_value());
}

// At the Compare panels' sizes in a 1600x1000 and a 1024x700 window.
TEST(LayoutBand, ASpreadIsAHatchedBandAroundZeroUnderTheDiamond)
{
    application();
    for (const QSize size : {QSize(690, 340), QSize(440, 300)}) {
        SCOPED_TRACE(size.width());
        Shown shown(panelOf({pagePoolComparison(1.8)}), size);
        const ComparePlot& plot = shown.plot;
        QCPItemRect* band = plot.layoutBand(0);
        ASSERT_NE(band, nullptr);
        EXPECT_EQ(plot.layoutBand(1), nullptr);
        EXPECT_EQ(shown.rects(), 2);  // the margin's and the layout's
        EXPECT_NEAR(band->topLeft->coords().y(), 1.8, 1e-12);
        EXPECT_NEAR(band->bottomRight->coords().y(), -1.8, 1e-12);
        EXPECT_EQ(band->brush().style(), Qt::BDiagPattern);  // the margin's is a plain fill

        // Inside its axis rect, which reaches past it (nothing of it clipped), across the one
        // candidate's column to the rect's right edge, where its figures are.
        QCPAxisRect* rect = band->clipAxisRect();
        const QPointF topLeft = band->topLeft->pixelPosition();
        const QPointF bottomRight = band->bottomRight->pixelPosition();
        EXPECT_NEAR(topLeft.x(), rect->left(), 1.5);
        EXPECT_NEAR(bottomRight.x(), rect->left() + rect->width(), 1.5);
        EXPECT_GT(topLeft.y(), rect->top());
        EXPECT_LT(bottomRight.y(), rect->bottom());
        const double zero = rect->axis(QCPAxis::atLeft)->coordToPixel(0);
        EXPECT_NEAR(zero - topLeft.y(), bottomRight.y() - zero, 1.0);

        // Under the diamonds and the figures: drawn before them, on their layer.
        for (int i = 0; i < plot.customPlot()->graphCount(); ++i) {
            QCPGraph* graph = plot.customPlot()->graph(i);
            if (graph->keyAxis()->axisRect() == rect) {
                EXPECT_EQ(graph->layer(), band->layer());
                EXPECT_GT(drawOrder(graph), drawOrder(band));
            }
        }
        for (int i = 0; i < plot.customPlot()->itemCount(); ++i) {
            if (auto* text = qobject_cast<QCPItemText*>(plot.customPlot()->item(i))) {
                EXPECT_GT(drawOrder(text), drawOrder(band));
            }
        }
        ASSERT_EQ(shown.figures().size(), 1);
        EXPECT_TRUE(shown.figures().front().startsWith("+1.60%")) << shown.figures().front().toStdString();

        // Named in the caption where it fits a line of it (a caption of many wrapped lines would
        // squeeze the plot), explained under the figures and in the tooltip.
        EXPECT_EQ(plot.differenceTitle().contains(QString::fromUtf8("hatched: layout spread \u00b11.8%")),
                  size.width() > 600)
            << plot.differenceTitle().toStdString();
        EXPECT_FALSE(plot.verdictShown().contains("incomplete"));
        const QString sentence = QString::fromUtf8("layout spread \u00b11.8% (hatched): ") + kMeaning;
        EXPECT_TRUE(plot.verdictShown().contains("(figures of `noisefloor compare 1`)\n  " + sentence))
            << plot.verdictShown().toStdString();
        EXPECT_TRUE(plot.customPlot()->toolTip().contains(sentence)) << plot.customPlot()->toolTip().toStdString();
    }
}

TEST(LayoutBand, FewerPlacementsThanPlannedSayTheDesignIsIncomplete)
{
    application();
    Shown shown(panelOf({pagePoolComparison(1.8, 5, 8)}), QSize(690, 340));
    const QString note = "incomplete layout design: 5 of 8 placements";
    EXPECT_TRUE(shown.plot.verdictShown().contains(note)) << shown.plot.verdictShown().toStdString();
    EXPECT_TRUE(shown.plot.customPlot()->toolTip().contains(note)) << shown.plot.customPlot()->toolTip().toStdString();
}

// Each candidate's spread in its own column; the lines under the plot give their range.
TEST(LayoutBand, TwoCandidatesHaveABandEach)
{
    application();
    engine::MetricComparison second = pagePoolComparison(1.2);
    second.candidate = "late2";
    second.result.interval.estimatePct = -0.4;
    second.result.interval.ci = {.low = -0.6, .high = -0.2};
    Shown shown(panelOf({pagePoolComparison(1.8), second}), QSize(690, 340));
    QCPItemRect* first = shown.plot.layoutBand(0);
    QCPItemRect* last = shown.plot.layoutBand(1);
    ASSERT_NE(first, nullptr);
    ASSERT_NE(last, nullptr);
    EXPECT_NEAR(first->topLeft->coords().x(), 0.5, 1e-12);
    EXPECT_NEAR(first->bottomRight->coords().x(), 1.5, 1e-12);
    EXPECT_NEAR(first->topLeft->coords().y(), 1.8, 1e-12);
    EXPECT_NEAR(last->topLeft->coords().x(), 1.5, 1e-12);
    EXPECT_NEAR(last->topLeft->coords().y(), 1.2, 1e-12);
    EXPECT_NEAR(last->bottomRight->coords().y(), -1.2, 1e-12);
    EXPECT_NEAR(last->bottomRight->pixelPosition().x(), last->clipAxisRect()->left() + last->clipAxisRect()->width(),
                1.5);
    EXPECT_TRUE(shown.plot.verdictShown().contains(QString::fromUtf8("layout spread \u00b11.2..1.8% (hatched)")))
        << shown.plot.verdictShown().toStdString();
    EXPECT_EQ(shown.figures().size(), 2);

    // The same spread: one band across both columns, with no edge between them to cross a figure.
    second.result.layoutSpreadPct = 1.8;
    Shown same(panelOf({pagePoolComparison(1.8), second}), QSize(690, 340));
    ASSERT_NE(same.plot.layoutBand(0), nullptr);
    EXPECT_EQ(same.plot.layoutBand(0), same.plot.layoutBand(1));
    EXPECT_NEAR(same.plot.layoutBand(0)->topLeft->coords().x(), 0.5, 1e-12);
    EXPECT_EQ(same.rects(), 2);
}

// Layout was not a factor: the plot is what it was, one band (the margin's) and no word of layout.
TEST(LayoutBand, NoSpreadDrawsNoBand)
{
    application();
    Shown shown(panelOf({pagePoolComparison(std::nullopt)}), QSize(690, 340));
    EXPECT_EQ(shown.plot.layoutBand(0), nullptr);
    EXPECT_EQ(shown.rects(), 1);
    EXPECT_FALSE(shown.plot.differenceTitle().contains("layout")) << shown.plot.differenceTitle().toStdString();
    EXPECT_FALSE(shown.plot.verdictShown().contains("layout")) << shown.plot.verdictShown().toStdString();
    EXPECT_FALSE(shown.plot.customPlot()->toolTip().contains("layout"));
}

// The hatch's pixels in the band, and none of them over the candidate's diamond.
int hatchPixels(const QImage& image, const QRect& region)
{
    int n = 0;
    for (int y = region.top(); y <= region.bottom(); ++y) {
        for (int x = region.left(); x <= region.right(); ++x) {
            const QColor c = image.pixelColor(x, y);
            n += c.blue() > c.red() + 12 && std::abs(c.red() - c.green()) < 8 && c.red() < 235 ? 1 : 0;
        }
    }
    return n;
}

TEST(LayoutBand, ThePngAndThePdfDrawTheBand)
{
    application();
    for (const bool spread : {true, false}) {
        SCOPED_TRACE(spread);
        Shown shown(panelOf({pagePoolComparison(spread ? std::optional<double>(1.8) : std::nullopt)}), QSize(690, 340));
        QCustomPlot* plot = shown.plot.customPlot();
        const QImage image = plot->toPixmap(plot->width(), plot->height(), 1.0).toImage();
        QCPAxisRect* rect = plot->graph(plot->graphCount() - 1)->keyAxis()->axisRect();
        QCPAxis* y = rect->axis(QCPAxis::atLeft);
        const QRect region = QRect(QPoint(rect->left() + 2, static_cast<int>(y->coordToPixel(1.75))),
                                   QPoint(rect->right() - 2, static_cast<int>(y->coordToPixel(-1.75))));
        EXPECT_EQ(hatchPixels(image, region) > 200, spread) << hatchPixels(image, region);
        // The diamond's fill (the candidate's colour) keeps its colour: the band is under it.
        const QPointF diamond(rect->axis(QCPAxis::atBottom)->coordToPixel(1), y->coordToPixel(1.6));
        EXPECT_EQ(image.pixelColor(diamond.toPoint()), variantColour(1));

        TempDir dir;
        const QString pdf = QString::fromStdString(dir.file("band.pdf"));
        ASSERT_TRUE(exportPlots(pdf, {"noisefloor compare 1"}, {plot}, 1));
        QFile file(pdf);
        ASSERT_TRUE(file.open(QIODevice::ReadOnly));
        const QByteArray bytes = file.readAll();
        EXPECT_TRUE(bytes.startsWith("%PDF-"));
        // Qt writes a hatched brush as a tiling pattern: the only one on this page.
        EXPECT_EQ(bytes.contains("/PatternType"), spread);
    }
}

}  // namespace
}  // namespace nf::ui
