// Ten variants and fifty sweep points: the category axes of Compare and Explore keep their tick
// labels apart (turned upright, shortened, thinned), the verdicts of many candidates are counted
// rather than pushing the plot out of its panel. Checked on what the plots drew at 1024x700.

#include <gtest/gtest.h>

#include <QCheckBox>
#include <QFontMetrics>
#include <QSet>
#include <QTest>

#include <qcustomplot.h>

#include "tests/support/temp_dir.h"
#include "tests/ui/ui_test_support.h"
#include "ui/category_ticks.h"
#include "ui/compare_panel.h"
#include "ui/compare_plot.h"
#include "ui/explore_panel.h"
#include "ui/main_window.h"

namespace nf::ui {
namespace {

QStringList names(int n, const QString& stem)
{
    QStringList out;
    for (int i = 0; i < n; ++i) {
        out << stem + QString::number(i);
    }
    return out;
}

TEST(CategoryTicks, TurnShortenAndThinAsTheAxisFills)
{
    test::application();
    const QFontMetrics metrics(QApplication::font());
    const auto few = planCategoryTicks({"a", "b", "c"}, metrics, 300);
    EXPECT_FALSE(few.upright);
    EXPECT_EQ(few.step, 1);
    EXPECT_EQ(few.elideTo, 0);
    const auto ten = planCategoryTicks(names(10, "variant-number-"), metrics, 300);
    EXPECT_TRUE(ten.upright);
    EXPECT_GT(ten.elideTo, 0);
    EXPECT_LE(ten.elideTo, metrics.horizontalAdvance("variant-number-0"));
    EXPECT_EQ(ten.step, 1);  // 30 px a label: room for upright ones
    const auto fifty = planCategoryTicks(names(50, "1"), metrics, 300);
    EXPECT_GT(fifty.step, 1);  // 6 px a label: not even upright ones fit
    EXPECT_GE(300 / 50 * fifty.step, metrics.height());
    EXPECT_EQ(planCategoryTicks({}, metrics, 300).step, 1);
    // A little short of room: two rows of whole horizontal labels before any is turned or cut.
    const QStringList three{"direct", "indirect", "retpoline"};
    const int wide = metrics.horizontalAdvance("retpoline") + 8;
    const auto two = planCategoryTicks(three, metrics, 3 * wide * 3 / 4);
    EXPECT_TRUE(two.twoRows);
    EXPECT_FALSE(two.upright);
    EXPECT_EQ(two.elideTo, 0);
    EXPECT_TRUE(planCategoryTicks(three, metrics, 3 * wide / 3).upright);
    EXPECT_EQ(planCategoryTicks(three, metrics, 3 * wide / 3).elideTo, 0) << "an upright label that fits is whole";
}

// Shortened labels stay apart: two that share their start and end are cut elsewhere than in the
// middle ("mit…ect" was both mitigations:direct and mitigations:indirect).
TEST(CategoryTicks, ShortenedLabelsStayDistinct)
{
    test::application();
    QCustomPlot plot;
    plot.setAttribute(Qt::WA_DontShowOnScreen);
    plot.resize(160, 200);
    plot.show();
    QApplication::processEvents();
    plot.replot();
    const QStringList labels{"vanilla:late", "mitigations:direct", "mitigations:indirect", "mitigations:retpoline"};
    const auto plan = applyCategoryTicks(plot.xAxis, {1, 2, 3, 4}, labels);
    ASSERT_GT(plan.elideTo, 0) << "the axis was wide enough for whole labels: make it narrower";
    auto ticker = plot.xAxis->ticker().dynamicCast<QCPAxisTickerText>();
    ASSERT_TRUE(ticker);
    QSet<QString> shown;
    for (const QString& label : ticker->ticks()) {
        shown.insert(label.trimmed());
    }
    EXPECT_EQ(shown.size(), labels.size()) << QStringList(shown.begin(), shown.end()).join(" | ").toStdString();
}

// The text ticks `axis` drew do not overlap: neighbours are at least a label apart.
void expectApart(QCPAxis* axis, const char* what)
{
    auto ticker = axis->ticker().dynamicCast<QCPAxisTickerText>();
    ASSERT_TRUE(ticker) << what;
    const QFontMetrics metrics(axis->tickLabelFont());
    const bool upright = std::abs(axis->tickLabelRotation()) > 45;
    ASSERT_GE(ticker->ticks().size(), 2) << what;
    // Labels on two rows (every other one a line lower) need room only from their row's neighbours.
    for (const bool lower : {false, true}) {
        std::vector<std::pair<double, QString>> row;
        for (auto it = ticker->ticks().begin(); it != ticker->ticks().end(); ++it) {
            if (it.value().startsWith('\n') == lower) {
                row.emplace_back(it.key(), it.value().trimmed());
            }
        }
        for (std::size_t i = 1; i < row.size(); ++i) {
            const auto& [at, label] = row[i];
            const auto& [beforeAt, before] = row[i - 1];
            const double apart = std::abs(axis->coordToPixel(at) - axis->coordToPixel(beforeAt));
            const double need = upright ? metrics.height()
                                        : (metrics.horizontalAdvance(label) + metrics.horizontalAdvance(before)) / 2.0;
            EXPECT_GE(apart, need) << what << ": '" << before.toStdString() << "' and '" << label.toStdString()
                                   << "' overlap";
        }
    }
}

class ManyVariantsTest : public ::testing::Test {
protected:
    void SetUp() override
    {
        test::application();
        qputenv("NOISEFLOOR_BIN", NF_CLI_PATH);
    }
    nf::test::TempDir m_dir;
    std::string m_dbPath = m_dir.file("runs.db");
    QString m_db = QString::fromStdString(m_dbPath);
};

TEST_F(ManyVariantsTest, CompareKeepsTenVariantsApart)
{
    // Ten variants with long names: variant-number-0 ... variant-number-9.
    std::int64_t run = 0;
    {
        auto db = data::openStore(m_dbPath);
        ASSERT_TRUE(db.ok());
        data::RunRecorder recorder(*db);
        auto start = test::makeRunStart(10);
        for (std::size_t v = 0; v < start.spec.variants.size(); ++v) {
            start.spec.variants[v].name = "variant-number-" + std::to_string(v);
        }
        ASSERT_TRUE(recorder.runStarted(start).ok());
        for (int r = 0; r < test::kReps; ++r) {
            ASSERT_TRUE(recorder.repetitionFinished(test::makeRepetition(r, 10)).ok());
        }
        recorder.runFinished(engine::RunStatus::Complete, "");
        run = recorder.runId();
    }
    ASSERT_GT(run, 0);
    MainWindow window(m_db);
    window.resize(1024, 700);
    window.show();
    ASSERT_TRUE(window.selectRun(run));
    window.waitForLoads();
    ASSERT_TRUE(window.showTab("compare"));
    ComparePlot* panel = window.comparePanel()->panel(3);
    QCustomPlot* plot = panel->customPlot();
    plot->replot();
    QTest::qWait(50);  // the queued replot with the labels for the real widths
    ASSERT_TRUE(panel->message().isEmpty()) << panel->message().toStdString();
    auto rects = plot->axisRects();
    ASSERT_EQ(rects.size(), 2);
    expectApart(rects[0]->axis(QCPAxis::atBottom), "variants");
    expectApart(rects[1]->axis(QCPAxis::atBottom), "candidates");
    EXPECT_TRUE(panel->tickPlan(0).upright);
    // Nine candidates: one line that counts the verdicts, every line in the tooltip.
    EXPECT_TRUE(panel->verdictShown().startsWith("9 candidates vs variant-number-0:"))
        << panel->verdictShown().toStdString();
    EXPECT_EQ(panel->verdictShown().count('\n'), 0);
    const QStringList lines = panel->verdictText().split('\n');
    EXPECT_GE(lines.size(), 9);
    for (const auto& line : lines) {
        EXPECT_TRUE(plot->toolTip().contains(line)) << line.toStdString();
    }
    // The value plot keeps most of the panel's height.
    EXPECT_GT(rects[0]->height(), plot->height() / 3) << rects[0]->height() << " of " << plot->height();
}

TEST_F(ManyVariantsTest, ExploreKeepsFiftyPointsApart)
{
    const std::string id = "20261201T030000-5eed0050";
    for (int i = 0; i < 50; ++i) {
        ASSERT_GT(
            test::storeRun(m_dbPath, "sweep", engine::SweepPoint{id, "work", std::to_string(100 + 20 * i), i, 50}), 0);
    }
    MainWindow window(m_db);
    window.resize(1024, 700);
    window.show();
    ASSERT_TRUE(window.showSweep(QString::fromStdString(id)));
    window.waitForLoads();
    ExplorePanel* explore = window.explorePanel();
    QCustomPlot* plot = explore->customPlot();
    ASSERT_TRUE(explore->message().isEmpty()) << explore->message().toStdString();
    ASSERT_EQ(plot->graphCount(), 6 + 1);  // + the candidate's differences
    EXPECT_EQ(plot->graph(2)->dataCount(), 50);
    EXPECT_EQ(plot->graph(6)->dataCount(), 50);
    // At their own values: round ticks of the axis, not fifty labels.
    EXPECT_FALSE(plot->xAxis->ticker().dynamicCast<QCPAxisTickerText>());
    // Evenly spaced: every k-th value, apart.
    explore->findChild<QCheckBox*>()->setChecked(true);
    plot->replot();
    QTest::qWait(50);
    expectApart(plot->xAxis, "sweep points");
    expectApart(plot->axisRect(1)->axis(QCPAxis::atBottom), "sweep points, differences");
    EXPECT_TRUE(explore->tickPlan().upright || explore->tickPlan().step > 1);
    if (const QByteArray shots = qgetenv("NF_UI_SHOTS"); !shots.isEmpty()) {  // to look at it
        window.saveScreenshot(QString::fromUtf8(shots) + "/explore-fifty-points.png");
    }
}

TEST_F(ManyVariantsTest, ALongSweepDescriptionDoesNotWidenTheWindow)
{
    const std::string id = "20261201T040000-5eed0003";
    const std::string param = "a_parameter_with_a_name_long_enough_to_push_the_window_wider";
    for (int i = 0; i < 3; ++i) {
        ASSERT_GT(test::storeRun(m_dbPath, "sweep", engine::SweepPoint{id, param, std::to_string(i), i, 3}), 0);
    }
    MainWindow window(m_db);
    ASSERT_TRUE(window.showSweep(QString::fromStdString(id)));
    window.waitForLoads();
    window.resize(1024, 700);
    window.show();
    QCoreApplication::processEvents();
    EXPECT_LE(window.minimumSizeHint().width(), 1024);
    EXPECT_EQ(window.width(), 1024);
}

}  // namespace
}  // namespace nf::ui
