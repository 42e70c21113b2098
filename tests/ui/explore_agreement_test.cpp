// The Explore tab against `noisefloor compare --sweep --format json` on the same database: at
// every point of a real sweep the difference drawn for each candidate (estimate, the 1 - alpha
// interval and the 1 - 2 alpha one equivalence is judged by) is the command's, in the design it
// names (paired chunk log-ratios, independent repetitions), over the command's margin; a picked
// metric is the command's with --metric.

#include <gtest/gtest.h>

#include <QComboBox>
#include <QJsonArray>
#include <QJsonDocument>
#include <QJsonObject>
#include <QProcess>
#include <cmath>
#include <string>

#include "tests/support/temp_dir.h"
#include "tests/ui/ui_test_support.h"
#include "ui/explore_panel.h"
#include "ui/main_window.h"

namespace nf::ui {
namespace {

using nf::test::TempDir;
using nf::ui::test::cli;

// A direct against an indirect call over three amounts of work in the callee; the newest run's id.
std::int64_t runSweep(const QString& db, const QStringList& design)
{
    cli(QStringList{"run", "indirect-call", "--db", db, "--reps", "3", "--duration", "0.1", "--warmup", "0",
                    "--share-cpus", "--variant", "direct:call=direct", "--variant", "indirect:call=indirect", "--sweep",
                    "work=0,4,16"} +
        design);
    const auto lines = QString::fromUtf8(cli({"list", "--db", db})).split('\n');
    return lines.size() > 1 ? lines[1].trimmed().section(' ', 0, 0).toLongLong() : 0;
}

QJsonObject sweepJson(const QString& db, std::int64_t run, const QStringList& extra = {})
{
    return QJsonDocument::fromJson(
               cli(QStringList{"compare", "--sweep", QString::number(run), "--db", db, "--format", "json"} + extra))
        .object();
}

// Every candidate at every point is drawn as the JSON says; the baseline has no difference.
void expectSameDifferences(const ExplorePanel& explore, const QJsonObject& json)
{
    const SweepView& view = explore.view();
    ASSERT_TRUE(view.error.isEmpty()) << view.error.toStdString();
    EXPECT_EQ(view.metric, json.value("metric").toString());
    const QJsonArray points = json.value("points").toArray();
    ASSERT_EQ(static_cast<qsizetype>(view.points.size()), points.size());
    ASSERT_GE(points.size(), 3);
    EXPECT_NEAR(explore.drawnMarginPct(), json.value("margin_pct").toDouble(), 1e-9);
    EXPECT_GT(explore.drawnMarginPct(), 0);
    int candidates = 0;
    for (int p = 0; p < points.size(); ++p) {
        const QJsonObject point = points[p].toObject();
        SCOPED_TRACE("point " + point.value("value").toString().toStdString());
        EXPECT_EQ(view.points[static_cast<std::size_t>(p)].runId, point.value("run").toInteger());
        for (const auto& entry : point.value("variants").toArray()) {
            const QJsonObject variant = entry.toObject();
            const int v = static_cast<int>(view.variants.indexOf(variant.value("name").toString()));
            ASSERT_GE(v, 0) << variant.value("name").toString().toStdString();
            const auto drawn = explore.drawnDifference(v, p);
            if (!variant.contains("delta_pct")) {
                EXPECT_FALSE(drawn.has_value()) << "the baseline has no difference to draw";
                continue;
            }
            ++candidates;
            ASSERT_TRUE(drawn.has_value()) << variant.value("name").toString().toStdString();
            for (const char* key : {"delta_pct", "ci_low_pct", "ci_high_pct", "tost_low_pct", "tost_high_pct"}) {
                ASSERT_TRUE(variant.value(key).isDouble()) << key << ": unbounded in this sweep";
            }
            const double estimate = variant.value("delta_pct").toDouble();
            EXPECT_NEAR(drawn->estimate, estimate, 1e-9 * std::max(1.0, std::abs(estimate)));
            EXPECT_NEAR(drawn->low, variant.value("ci_low_pct").toDouble(), 1e-9);
            EXPECT_NEAR(drawn->high, variant.value("ci_high_pct").toDouble(), 1e-9);
            EXPECT_NEAR(drawn->tostLow, variant.value("tost_low_pct").toDouble(), 1e-9);
            EXPECT_NEAR(drawn->tostHigh, variant.value("tost_high_pct").toDouble(), 1e-9);
            const auto& d = view.points[static_cast<std::size_t>(p)].differences.at(static_cast<std::size_t>(v));
            EXPECT_EQ(d.verdict, variant.value("verdict").toString());
            const QString name = variant.value("design").toString();
            const QString design = name == "paired"       ? "paired chunk log-ratios"
                                   : name == "placements" ? "placement cells of paired log-ratios"
                                                          : "independent repetitions";
            EXPECT_TRUE(explore.differenceTitle().contains(design)) << explore.differenceTitle().toStdString();
        }
    }
    EXPECT_EQ(candidates, points.size());  // one candidate at every point
}

class ExploreAgreement : public ::testing::Test {
protected:
    void SetUp() override { test::application(); }
    TempDir m_dir;
    QString m_db = QString::fromStdString(m_dir.file("runs.db"));
};

TEST_F(ExploreAgreement, EachPointDrawsTheIntervalOfCompareSweepJson)
{
    for (const QStringList& design : {QStringList{}, QStringList{"--chunk", "0", "--interval", "0.02"}}) {
        SCOPED_TRACE(design.isEmpty() ? "paired" : "independent");
        const std::int64_t run = runSweep(m_db, design);
        ASSERT_GT(run, 0);
        const QJsonObject json = sweepJson(m_db, run);
        ASSERT_FALSE(json.value("sweep").toString().isEmpty());
        MainWindow window(m_db);
        window.resize(1024, 700);
        ASSERT_TRUE(window.showSweep(json.value("sweep").toString()));
        window.waitForLoads();
        ExplorePanel& explore = *window.explorePanel();
        expectSameDifferences(explore, json);
        EXPECT_TRUE(explore.differenceTitle().contains("vs direct, %")) << explore.differenceTitle().toStdString();

        // Every metric the sweep stored is offered, none it lacks; a picked one is --metric's.
        auto* picker = explore.findChild<QComboBox*>(QStringLiteral("exploreMetric"));
        ASSERT_NE(picker, nullptr);
        EXPECT_GE(picker->findData("ns_per_op"), 0);
        EXPECT_LT(picker->findData("ipc"), 0) << "a metric this sweep did not measure is offered";
        picker->setCurrentIndex(picker->findData("ns_per_op"));
        window.waitForLoads();
        expectSameDifferences(explore, sweepJson(m_db, run, {"--metric", "ns_per_op"}));
    }
}

}  // namespace
}  // namespace nf::ui
