// The Compare panels against `noisefloor compare --format json` on the same database: the
// difference each panel draws (estimate and interval) is the command's, in the design it names
// (paired chunk log-ratios, independent repetitions); a picked metric is the command's with
// --metric; the first run selected in History is the baseline, and the swap makes the other one;
// the margin, alpha and outlier boxes give the report of `compare --margin --alpha --drop-outliers`.

#include <gtest/gtest.h>

#include <QCheckBox>
#include <QComboBox>
#include <QDoubleSpinBox>
#include <QItemSelectionModel>
#include <QJsonArray>
#include <QJsonDocument>
#include <QJsonObject>
#include <QProcess>
#include <QPushButton>
#include <QTableView>
#include <QTest>
#include <cmath>
#include <string>

#include "tests/support/temp_dir.h"
#include "tests/ui/ui_test_support.h"
#include "ui/compare_panel.h"
#include "ui/compare_plot.h"
#include "ui/history_panel.h"
#include "ui/main_window.h"
#include "ui/run_list_model.h"

namespace nf::ui {
namespace {

using nf::test::TempDir;
using nf::ui::test::cli;

std::int64_t runSpin(const std::string& db, const QStringList& extra)
{
    cli(QStringList{"run", "spin", "--db", QString::fromStdString(db), "--reps", "3", "--duration", "0.1",
                    "--share-cpus", "--variant", "a:work=100", "--variant", "b:work=104"} +
        extra);
    // `list` prints the newest run first: its id is the first field of the second line.
    const auto lines = QString::fromUtf8(cli({"list", "--db", QString::fromStdString(db)})).split('\n');
    return lines.size() > 1 ? lines[1].trimmed().section(' ', 0, 0).toLongLong() : 0;
}

// The primary comparison of `metric` in `compare ARGS --format json`.
QJsonObject primary(const std::string& db, QStringList args, const QString& metric)
{
    args << "--db" << QString::fromStdString(db) << "--format"
         << "json";
    const auto doc = QJsonDocument::fromJson(cli(QStringList{"compare"} + args));
    for (const auto& c : doc.object().value("comparisons").toArray()) {
        const auto o = c.toObject();
        if (o.value("metric").toString() == metric && o.value("primary").toBool()) {
            return o;
        }
    }
    return {};
}

void expectSameDifference(const ComparePlot& panel, const QJsonObject& json)
{
    ASSERT_FALSE(json.isEmpty()) << panel.shownMetric().toStdString() << ": no comparison in the JSON";
    const auto drawn = panel.drawnDifference(0);
    ASSERT_TRUE(drawn.has_value()) << panel.shownMetric().toStdString();
    const double estimate = json.value("delta_pct").toDouble();
    EXPECT_NEAR(drawn->estimate, estimate, 1e-9 * std::max(1.0, std::abs(estimate)))
        << panel.shownMetric().toStdString();
    EXPECT_NEAR(drawn->low, json.value("ci_low_pct").toDouble(), 1e-9) << panel.shownMetric().toStdString();
    EXPECT_NEAR(drawn->high, json.value("ci_high_pct").toDouble(), 1e-9) << panel.shownMetric().toStdString();
    EXPECT_TRUE(panel.differenceTitle().contains(json.value("design").toString()))
        << panel.differenceTitle().toStdString();
}

// The margin in `compare ARGS --format json`'s options.
double jsonMargin(const std::string& db, QStringList args)
{
    args << "--db" << QString::fromStdString(db) << "--format"
         << "json";
    const auto doc = QJsonDocument::fromJson(cli(QStringList{"compare"} + args));
    return doc.object().value("options").toObject().value("margin_pct").toDouble(NAN);
}

class CompareAgreement : public ::testing::Test {
protected:
    void SetUp() override { test::application(); }
    TempDir m_dir;
    std::string m_db = m_dir.file("runs.db");
};

TEST_F(CompareAgreement, EachPanelDrawsTheIntervalOfCompareJson)
{
    for (const QStringList& design : {QStringList{}, QStringList{"--chunk", "0", "--interval", "0.02"}}) {
        const std::int64_t id = runSpin(m_db, design);
        ASSERT_GT(id, 0);
        MainWindow window(QString::fromStdString(m_db));
        ASSERT_TRUE(window.selectRun(id));
        window.waitForLoads();
        int checked = 0;
        for (int p = 0; p < 4; ++p) {
            const ComparePlot& panel = *window.comparePanel()->panel(p);
            if (panel.shownMetric().isEmpty() || !panel.message().isEmpty()) {
                continue;  // not measured here (no PMU)
            }
            SCOPED_TRACE(panel.shownMetric().toStdString());
            // A metric `compare` leaves out by default (a unit conversion) is its --metric figure.
            const auto& view = window.comparePanel()->view();
            QStringList args{QString::number(id)};
            for (const auto& m : view.metrics) {
                if (m.metric == panel.shownMetric() && m.source.contains("--metric")) {
                    args << "--metric" << panel.shownMetric();
                }
            }
            const auto json = primary(m_db, args, panel.shownMetric());
            expectSameDifference(panel, json);
            EXPECT_DOUBLE_EQ(panel.drawnMarginPct(), jsonMargin(m_db, args));
            EXPECT_TRUE(panel.differenceTitle().contains(design.isEmpty() ? "paired chunk log-ratios" : "independent"))
                << panel.differenceTitle().toStdString();
            ++checked;
        }
        EXPECT_GE(checked, 2);  // PPS and TSC ticks per op at least

        // Every stored metric is offered, none the run lacks; a picked one is `compare --metric`'s.
        QComboBox* picker = window.comparePanel()->panel(0)->metricPicker();
        EXPECT_EQ(picker->count(), static_cast<int>(window.comparePanel()->view().metrics.size()));
        EXPECT_GE(picker->findData("ns_per_op"), 0);
        EXPECT_LT(picker->findData("ipc"), 0) << "a metric this run did not measure is offered";
        picker->setCurrentIndex(picker->findData("ns_per_op"));
        EXPECT_EQ(window.comparePanel()->panel(0)->shownMetric(), "ns_per_op");
        expectSameDifference(*window.comparePanel()->panel(0),
                             primary(m_db, {QString::number(id), "--metric", "ns_per_op"}, "ns_per_op"));
    }
}

TEST_F(CompareAgreement, TheFirstSelectedRunIsTheBaselineAndSwapChangesIt)
{
    const std::int64_t older = runSpin(m_db, {"--label", "pre"});
    const std::int64_t newer = runSpin(m_db, {"--label", "post"});
    MainWindow window(QString::fromStdString(m_db));
    // The user clicks the older run (the lower row), then adds the newer one.
    QTableView* table = window.runTable();
    auto* selection = table->selectionModel();
    const int olderRow = window.history()
                             ->filterModel()
                             ->mapFromSource(window.runModel()->index(window.runModel()->rowOf(older), 0))
                             .row();
    const int newerRow = window.history()
                             ->filterModel()
                             ->mapFromSource(window.runModel()->index(window.runModel()->rowOf(newer), 0))
                             .row();
    selection->select(table->model()->index(olderRow, 0),
                      QItemSelectionModel::ClearAndSelect | QItemSelectionModel::Rows);
    selection->select(table->model()->index(newerRow, 0), QItemSelectionModel::Select | QItemSelectionModel::Rows);
    window.waitForLoads();
    ComparePanel& compare = *window.comparePanel();
    EXPECT_TRUE(compare.view().baseline.startsWith("pre")) << compare.view().baseline.toStdString();
    const ComparePlot& tsc = *compare.panel(3);
    ASSERT_EQ(tsc.shownMetric(), "tsc_per_op");
    const QStringList runs{QString::number(older), QString::number(newer)};
    expectSameDifference(tsc, primary(m_db, runs, "tsc_per_op"));

    compare.swapBaseline();
    window.waitForLoads();
    EXPECT_TRUE(compare.view().baseline.startsWith("post")) << compare.view().baseline.toStdString();
    expectSameDifference(tsc, primary(m_db, runs + QStringList{"--baseline", compare.view().baseline}, "tsc_per_op"));
}

// Vanilla against patched as two runs of one variant each: the drawn interval is compare's for the
// same two runs, and both say that no run-to-run calibration was there to widen it.
TEST_F(CompareAgreement, OneRunPerSideSaysThatTheRunToRunCalibrationIsMissing)
{
    for (const char* label : {"vanilla", "patched"}) {
        cli(QStringList{"run", "spin", "--db", QString::fromStdString(m_db), "--reps", "3", "--duration", "0.05",
                        "--warmup", "0", "--share-cpus", "--label", label});
    }
    MainWindow window(QString::fromStdString(m_db));
    ASSERT_TRUE(window.compare({{1, QString()}, {2, QString()}}));
    window.waitForLoads();
    const auto& view = window.comparePanel()->view();
    ASSERT_FALSE(view.warnings.isEmpty());
    EXPECT_TRUE(view.warnings.front().startsWith("no run-to-run calibration: this interval is too narrow"))
        << view.warnings.front().toStdString();
    EXPECT_TRUE(view.report.contains("\n! no run-to-run calibration: this interval is too narrow\n"))
        << view.report.toStdString();
    const ComparePlot& tsc = *window.comparePanel()->panel(3);
    ASSERT_EQ(tsc.shownMetric(), "tsc_per_op");
    EXPECT_TRUE(tsc.differenceTitle().contains("no run-to-run calibration")) << tsc.differenceTitle().toStdString();
    const auto json = primary(m_db, {"1", "2"}, "tsc_per_op");
    ASSERT_FALSE(json.isEmpty());
    const auto drawn = tsc.drawnDifference(0);
    ASSERT_TRUE(drawn.has_value());
    EXPECT_NEAR(drawn->low, json.value("ci_low_pct").toDouble(), 1e-9);
    EXPECT_NEAR(drawn->high, json.value("ci_high_pct").toDouble(), 1e-9);
}

// Two of a run's three variants (the third unticked): the run's own design and figures, the same
// as `compare RUN` gives for that pair, and no run-to-run warning (they ran side by side).
TEST_F(CompareAgreement, TwoVariantsOfARunOfThreeKeepItsPairedDesign)
{
    const std::int64_t id = runSpin(m_db, {"--variant", "c:work=108"});
    ASSERT_GT(id, 0);
    MainWindow window(QString::fromStdString(m_db));
    ASSERT_TRUE(window.compare({{id, "a"}, {id, "b"}}));
    window.waitForLoads();
    const auto& view = window.comparePanel()->view();
    for (const auto& w : view.warnings) {
        EXPECT_FALSE(w.contains("run-to-run")) << w.toStdString();
    }
    const ComparePlot& tsc = *window.comparePanel()->panel(3);
    ASSERT_EQ(tsc.shownMetric(), "tsc_per_op");
    EXPECT_TRUE(tsc.differenceTitle().contains("paired chunk log-ratios")) << tsc.differenceTitle().toStdString();
    // The whole run's b against a (its first candidate's comparison).
    expectSameDifference(tsc, primary(m_db, {QString::number(id)}, "tsc_per_op"));
}

// A run until decided: Compare leads with its sequential decision, the lines `compare` prints in
// its header, and the panels use the margin the run decided with (0.5% here, not the default 1%).
TEST_F(CompareAgreement, ARunUntilDecidedShowsItsDecisionAndItsOwnMargin)
{
    cli(QStringList{"run", "spin", "--db", QString::fromStdString(m_db), "--duration", "0.2", "--share-cpus",
                    "--variant", "a:work=100", "--variant", "b:work=100", "--until", "decided", "--max-time", "3",
                    "--margin", "0.5"});
    MainWindow window(QString::fromStdString(m_db));
    ASSERT_TRUE(window.selectRun(1));
    window.waitForLoads();
    const QString shown = window.comparePanel()->decisionShown();
    ASSERT_TRUE(shown.startsWith("until decided: ")) << shown.toStdString();
    const QString text = QString::fromUtf8(cli({"compare", "1", "--db", QString::fromStdString(m_db)}));
    // Line for line (the CLI cuts a line past 72 columns; the app has the room to show it whole).
    for (const QString& line : shown.split('\n')) {
        EXPECT_TRUE(text.contains(line.left(60))) << line.toStdString() << "\nnot in\n" << text.toStdString();
    }
    EXPECT_TRUE(shown.contains("margin +-0.5%")) << shown.toStdString();
    EXPECT_DOUBLE_EQ(jsonMargin(m_db, {"1"}), 0.5);
    EXPECT_DOUBLE_EQ(window.comparePanel()->panel(0)->drawnMarginPct(), 0.5);
    EXPECT_DOUBLE_EQ(jsonMargin(m_db, {"1", "--margin", "2"}), 2) << "a margin asked for is the one used";
    EXPECT_DOUBLE_EQ(window.comparePanel()->marginBox()->value(), 0.5) << "the margin box shows the run's own";
}

// Types `text` into a box as a user does (the old value selected and replaced), then Enter.
void typeInto(QDoubleSpinBox* box, const QString& text)
{
    box->setFocus();
    QTest::keyClick(box, Qt::Key_A, Qt::ControlModifier);
    QTest::keyClicks(box, text);
    QTest::keyClick(box, Qt::Key_Return);
}

// The Compare tab's margin, alpha and outlier boxes, driven with keys and the mouse: each gives the
// report `noisefloor compare` prints with the same options, the panels name those options, and
// Defaults gives the plain command's report again.
TEST_F(CompareAgreement, TheMarginAlphaAndOutlierBoxesAreCompareOptions)
{
    const std::int64_t id = runSpin(m_db, {});
    ASSERT_GT(id, 0);
    MainWindow window(QString::fromStdString(m_db));
    window.show();
    ASSERT_TRUE(window.selectRun(id));
    ASSERT_TRUE(window.showTab("compare"));
    window.waitForLoads();
    ComparePanel& compare = *window.comparePanel();
    const QString run = QString::number(id);
    const auto cliReport = [&](const QStringList& options) {
        return QString::fromUtf8(cli(QStringList{"compare", run, "--db", QString::fromStdString(m_db)} + options));
    };
    EXPECT_DOUBLE_EQ(compare.marginBox()->value(), 1.0);
    EXPECT_DOUBLE_EQ(compare.alphaBox()->value(), 0.05);

    typeInto(compare.marginBox(), "0.3");
    window.waitForLoads();
    EXPECT_EQ(compare.reportText(), cliReport({"--margin", "0.3"}));
    EXPECT_DOUBLE_EQ(compare.panel(0)->drawnMarginPct(), 0.3);
    // The command the figures are from, whole: run it and get them (the run's id included).
    EXPECT_EQ(compare.view().metrics.front().source, "noisefloor compare " + run + " --margin 0.3");

    typeInto(compare.alphaBox(), "0.01");
    window.waitForLoads();
    EXPECT_EQ(compare.reportText(), cliReport({"--margin", "0.3", "--alpha", "0.01"}));
    EXPECT_TRUE(compare.reportText().contains("alpha 0.01, equivalence margin +-0.3%"));
    const auto& primary = compare.view().metrics.front();
    ASSERT_FALSE(primary.differences.empty());
    // The primary metric's interval at 1 - alpha (a rank interval's achieved 99.1% reads 99%).
    EXPECT_EQ(primary.differences.front().level, "99%") << primary.differences.front().levelPct;
    EXPECT_DOUBLE_EQ(primary.meanLevelPct, 99);

    QTest::mouseClick(compare.outlierBox(), Qt::LeftButton, {}, QPoint(8, compare.outlierBox()->height() / 2));
    window.waitForLoads();
    EXPECT_TRUE(compare.outlierBox()->isChecked());
    EXPECT_EQ(compare.reportText(), cliReport({"--margin", "0.3", "--alpha", "0.01", "--drop-outliers"}));

    // A selection made afterwards keeps the options; Defaults gives the plain command again.
    ASSERT_TRUE(window.selectRun(id));
    window.waitForLoads();
    EXPECT_EQ(compare.reportText(), cliReport({"--margin", "0.3", "--alpha", "0.01", "--drop-outliers"}));
    QPushButton* defaults = nullptr;
    for (auto* button : compare.findChildren<QPushButton*>()) {
        if (button->text() == "Defaults") {
            defaults = button;
        }
    }
    ASSERT_NE(defaults, nullptr);
    QTest::mouseClick(defaults, Qt::LeftButton);
    window.waitForLoads();
    EXPECT_EQ(compare.reportText(), cliReport({}));
    EXPECT_DOUBLE_EQ(compare.marginBox()->value(), 1.0);
    EXPECT_FALSE(compare.outlierBox()->isChecked());
    EXPECT_FALSE(defaults->isEnabled());
}

}  // namespace
}  // namespace nf::ui
