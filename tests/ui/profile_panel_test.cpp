// Compare's Profile view: the differential flame graph (widths of the two variants' mean share,
// colours of the change, a click that zooms and names the callers), the bars of the symbols whose
// share changed, and, on a run this build profiled (root), the same rows `noisefloor compare
// --format json` gives, shown when the Profile button is pressed.

#include <gtest/gtest.h>
#include <unistd.h>

#include <QProcess>
#include <QPushButton>

#include <nlohmann/json.hpp>

#include "data/run_store.h"
#include "tests/support/temp_dir.h"
#include "tests/ui/ui_test_support.h"
#include "ui/compare_panel.h"
#include "ui/comparison.h"
#include "ui/flame_graph.h"
#include "ui/profile_bars.h"
#include "ui/profile_panel.h"

namespace nf::ui {
namespace {

using nf::test::TempDir;
using nf::ui::test::application;

TEST(FlameGraph, AFrameOnlyTheCandidateReachesIsDrawnAndAClickNamesItsCallers)
{
    application();
    FlameGraph graph;
    graph.resize(600, 200);
    graph.setStacks({{"main;a;x", 60}, {"main;b", 40}}, {{"main;a;x", 30}, {"main;a;thunk", 30}, {"main;b", 40}},
                    "direct", "retpoline");
    EXPECT_EQ(graph.frameAt(QPoint(5, 5)), "all");
    EXPECT_EQ(graph.frameAt(QPoint(5, 17 + 5)), "main");
    EXPECT_EQ(graph.frameAt(QPoint(5, 2 * 17 + 5)), "a");  // 60% of the width, the widest first
    EXPECT_EQ(graph.frameAt(QPoint(400, 2 * 17 + 5)), "b");
    EXPECT_EQ(graph.frameAt(QPoint(5, 3 * 17 + 5)), "x");        // mean of 60% and 30%: 45%
    EXPECT_EQ(graph.frameAt(QPoint(300, 3 * 17 + 5)), "thunk");  // 15%, after x
    ASSERT_TRUE(graph.select("thunk"));
    EXPECT_EQ(graph.selectionText(),
              "thunk (this call path, with its callees): direct 0.00%, retpoline 30.00% "
              "(+30.00 pp); called from a (15.00%)");
    // Zoomed: the frame fills the width, its ancestors stay above it.
    EXPECT_EQ(graph.frameAt(QPoint(590, 3 * 17 + 5)), "thunk");
    EXPECT_EQ(graph.frameAt(QPoint(590, 2 * 17 + 5)), "a");
    graph.reset();
    EXPECT_TRUE(graph.selectionText().isEmpty());
    EXPECT_EQ(graph.frameAt(QPoint(590, 3 * 17 + 5)), "");  // b has no callee
}

// With the sampled CPUs as the stacks' first frames, a frame's shares are of its CPU's samples (as
// the profile's rows are), and a symbol is looked for on the CPU asked for.
TEST(FlameGraph, SharesAreOfTheCpusSamples)
{
    application();
    FlameGraph graph;
    graph.resize(600, 200);
    graph.setStacks({{"cpu0-tx;f", 10}, {"cpu0-tx;g", 10}, {"cpu1-rx;f", 80}},
                    {{"cpu0-tx;f", 30}, {"cpu0-tx;g", 10}, {"cpu1-rx;f", 60}}, "a", "b", true);
    ASSERT_TRUE(graph.select("f", 0));
    EXPECT_EQ(graph.selectionText(),
              "f (this call path, with its callees): a 50.00%, b 75.00% (+25.00 pp); called "
              "from a stack's first frame (62.50%)");
    ASSERT_TRUE(graph.select("f", 1));
    EXPECT_EQ(graph.selectionText(),
              "f (this call path, with its callees): a 100.00%, b 100.00% (+0.00 pp); called "
              "from a stack's first frame (100.00%)");
    EXPECT_FALSE(graph.select("h"));
}

engine::ProfileComparison comparisonOf(std::vector<std::tuple<std::string, double, double>> rows)
{
    engine::ProfileComparison c;
    c.baseline = "direct";
    c.candidate = "retpoline";
    c.unit = "chunk pair";
    for (const auto& [symbol, delta, q] : rows) {
        engine::ProfileRow r;
        r.symbol = symbol;
        r.cpu = 1;
        r.deltaPp = delta;
        r.lowPp = delta - 0.5;
        r.highPp = delta + 0.5;
        r.q = q;
        c.rows.push_back(r);
    }
    return c;
}

TEST(ProfileBars, ShowTheChangedSymbolsElseTheLargestDifferencesInGrey)
{
    application();
    ProfileBars bars;
    bars.resize(500, 300);
    bars.setComparison(comparisonOf({{"thunk", 4.5, 1e-9}, {"callee", -4.1, 1e-6}, {"loop", 0.2, 0.4}}), 0.05, false);
    EXPECT_TRUE(bars.changedShown());
    EXPECT_EQ(bars.symbolsShown(), QStringList({"thunk", "callee"}));
    bars.setComparison(comparisonOf({{"loop", 0.2, 0.4}, {"callee", -0.6, 0.3}}), 0.05, true);
    EXPECT_FALSE(bars.changedShown());
    EXPECT_EQ(bars.symbolsShown(), QStringList({"callee (cpu1)", "loop (cpu1)"}));
}

TEST(ProfilePanel, AProfiledRunShowsWhatCompareSays)
{
    if (::geteuid() != 0) {
        GTEST_SKIP() << "sampling whole CPUs needs root";
    }
    application();
    TempDir dir;
    const QString db = QString::fromStdString(dir.file("runs.db"));
    QProcess run;
    run.start(NF_CLI_PATH, {"--db", db, "run", "indirect-call", "--variant", "direct:call=direct", "--variant",
                            "retpoline:call=retpoline", "--reps", "2", "--duration", "0.5", "--warmup", "0.1",
                            "--layouts", "0", "--profile=999"});
    ASSERT_TRUE(run.waitForFinished(60000));
    ASSERT_EQ(run.exitCode(), 0) << run.readAllStandardError().toStdString();
    QProcess compare;
    compare.start(NF_CLI_PATH, {"--db", db, "compare", "last", "--format", "json"});
    ASSERT_TRUE(compare.waitForFinished(30000));
    const auto j = nlohmann::json::parse(compare.readAllStandardOutput().toStdString());

    auto store = data::openStore(dir.file("runs.db"), data::Database::Mode::ReadOnly);
    ASSERT_TRUE(store.ok()) << store.error().message;
    auto stored = data::loadRun(*store, 1);
    ASSERT_TRUE(stored.ok()) << stored.error().message;
    const auto view = compareRun(*stored);
    ASSERT_TRUE(view.profile.has_value());
    ASSERT_EQ(view.profile->comparisons.size(), 1U);
    std::map<std::string, double> cli;
    for (const auto& c : j["comparisons"]) {
        for (const auto& row : c.value("profile", nlohmann::json::array())) {
            cli[row["symbol"].get<std::string>()] = row["delta_pp"].get<double>();
        }
    }
    ASSERT_FALSE(cli.empty());
    for (const auto& row : view.profile->comparisons.front().rows) {
        ASSERT_TRUE(cli.count(row.symbol)) << row.symbol;
        EXPECT_DOUBLE_EQ(cli[row.symbol], row.deltaPp) << row.symbol;
    }
    EXPECT_TRUE(view.profile->stacks.count("retpoline"));
    EXPECT_TRUE(view.profile->table.startsWith("where the time went")) << view.profile->table.toStdString();

    ComparePanel panel;
    panel.resize(1024, 700);
    panel.showComparison(view);
    panel.show();
    EXPECT_FALSE(panel.profileShown());
    panel.setProfileShown(true);
    EXPECT_TRUE(panel.profileShown());
    EXPECT_TRUE(panel.profilePanel()->isVisible());
    EXPECT_TRUE(panel.profilePanel()->bars()->changedShown());
    EXPECT_TRUE(panel.profilePanel()->bars()->symbolsShown().join(",").contains("__x86_indirect_thunk"));
}

}  // namespace
}  // namespace nf::ui
