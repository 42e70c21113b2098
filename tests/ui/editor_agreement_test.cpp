// The editor's Run button against `noisefloor run --dry-run`: a few hundred generated experiments,
// valid and not, set through the form; the button must be enabled exactly when the engine, run as
// its own process with the arguments the form builds, accepts them.

#include <gtest/gtest.h>

#include <QProcess>
#include <QTableWidget>

#include <random>

#include "engine/catalog/workload_catalog.h"
#include "tests/ui/ui_test_support.h"
#include "ui/experiment_editor.h"

namespace nf::ui {
namespace {

struct Generated {
    std::string workload;
    std::vector<std::pair<QString, QString>> params;  // form fields
    std::vector<std::pair<QString, QString>> variants;
    int reps = 2;
    double duration = 0.1;
    double warmup = 0.05;
    QString order = "interleaved";
    std::vector<int> cpus;
    QString sweep;
    bool until = false;  // run until decided, with this max time and margin
    double maxTime = 30;
    double marginPct = 1;
};

class Generator {
public:
    explicit Generator(std::uint64_t seed) : m_rng(seed) {}

    Generated next()
    {
        const auto& catalog = engine::workloadCatalog();
        const auto& w = catalog[pick(catalog.size())];
        Generated g;
        g.workload = w.name;
        for (const auto& p : w.params) {
            if (coin(0.25)) {
                g.params.emplace_back(QString::fromStdString(p.name), value(p));
            }
        }
        if (w.name == "command" && coin(0.8)) {
            g.params.emplace_back("cmd", coin(0.9) ? "true" : "echo 'open");
        }
        if (w.name == "iface-rx" && coin(0.7)) {
            g.params.emplace_back("iface", "lo");
        }
        const int variants = 1 + static_cast<int>(pick(3));
        static const std::vector<QString> names = {"a", "b", "late", "early", "late/v1", "x y", "", "a"};
        for (int v = 0; v < variants; ++v) {
            QString name = coin(0.8) ? QString(QChar('a' + v)) : names[pick(names.size())];
            QStringList overrides;
            if (coin(0.6) && !w.params.empty()) {
                const auto& p = w.params[pick(w.params.size())];
                overrides << QString::fromStdString(p.name) + "=" + value(p);
            }
            if (coin(0.08)) {
                overrides << (coin(0.5) ? "nosuch=1" : "work");
            }
            g.variants.emplace_back(name, overrides.join(','));
        }
        g.reps = coin(0.9) ? 2 : 1;
        g.duration = coin(0.9) ? 0.1 : 0.01;
        g.warmup = coin(0.5) ? 0.05 : 0;
        static const std::vector<QString> orders = {"interleaved", "random", "blocked"};
        g.order = orders[pick(orders.size())];
        if (coin(0.3)) {
            g.cpus = {static_cast<int>(pick(2))};
        }
        if (coin(0.25) && !w.params.empty()) {
            const auto& p = w.params[pick(w.params.size())];
            g.sweep = QString::fromStdString(p.name) + "=" + value(p) + (coin(0.8) ? "," + value(p) : QString());
            if (coin(0.1)) {
                g.sweep = coin(0.5) ? "nosuch=1,2" : QString::fromStdString(p.name);
            }
        }
        if (coin(0.25)) {
            g.until = true;
            g.maxTime = coin(0.8) ? 30 : 1;
            g.marginPct = coin(0.8) ? 1 : 0.25;
        }
        return g;
    }

private:
    std::size_t pick(std::size_t n) { return std::uniform_int_distribution<std::size_t>(0, n - 1)(m_rng); }
    bool coin(double p) { return std::bernoulli_distribution(p)(m_rng); }

    // A value of `p`: mostly in range, sometimes at or past an end, sometimes not a number at all.
    QString value(const engine::ParamSpec& p)
    {
        switch (p.type) {
            case engine::ParamType::Choice: return QString::fromStdString(p.choices[pick(p.choices.size())]);
            case engine::ParamType::Text:
                return coin(0.5) ? QString::fromStdString(p.defaultValue) : (coin(0.5) ? "0-1" : "7");
            case engine::ParamType::Int:
            case engine::ParamType::Real: {
                const double span = std::min(p.max - p.min, 1e6);
                const std::vector<double> inRange = {p.min, p.max, p.min + span / 2, std::stod(p.defaultValue)};
                const std::vector<double> other = {p.min - 1, p.max + 1, 0, 1, 7};
                if (coin(0.05)) {
                    return "ten";
                }
                const double v = coin(0.75) ? inRange[pick(inRange.size())] : other[pick(other.size())];
                return p.type == engine::ParamType::Int ? QString::number(static_cast<long long>(v))
                                                        : QString::number(v, 'g', 10);
            }
        }
        return {};
    }

    std::mt19937_64 m_rng;
};

TEST(EditorAgreement, RunIsEnabledExactlyWhenTheEngineAcceptsTheSameArguments)
{
    test::application();
    ExperimentEditor editor;
    Generator generator(20261201);
    int accepted = 0;
    constexpr int kCases = 300;
    for (int i = 0; i < kCases; ++i) {
        const Generated g = generator.next();
        ASSERT_TRUE(editor.selectWorkload(QString::fromStdString(g.workload)));
        for (const auto& [name, value] : g.params) {
            ASSERT_TRUE(editor.setParam(name, value)) << name.toStdString();
        }
        editor.setVariants(g.variants);
        editor.setRepetitions(g.reps);
        editor.setDuration(g.duration);
        editor.setWarmup(g.warmup);
        editor.setOrder(g.order);
        ASSERT_TRUE(editor.setCpuSelection(g.cpus));
        editor.setSweep(g.sweep);
        editor.setUntilDecided(g.until, g.maxTime, g.marginPct);
        const bool enabled = editor.runEnabled();

        QStringList args = editor.arguments("/nonexistent/never-opened.db");
        args << "--dry-run";
        QProcess engine;
        engine.start(QStringLiteral(NF_CLI_PATH), args);
        ASSERT_TRUE(engine.waitForFinished(30000));
        const bool engineAccepts = engine.exitStatus() == QProcess::NormalExit && engine.exitCode() == 0;
        EXPECT_EQ(enabled, engineAccepts)
            << "case " << i << ": noisefloor " << args.join(' ').toStdString()
            << "\n  editor: " << editor.problems().join(" | ").toStdString()
            << "\n  engine: " << QString::fromUtf8(engine.readAllStandardError()).trimmed().toStdString();
        if (engineAccepts) {
            EXPECT_NE(engine.readAllStandardOutput().indexOf("nothing was run or stored"), -1);
            ++accepted;
        }
        // Reset the fields this case set, for the next one.
        for (const auto& [name, value] : g.params) {
            editor.setParam(name, QString());
        }
    }
    // Both kinds are well represented, so agreement is not vacuous. (The share accepted follows the
    // catalog: a parameter added anywhere changes the draws, and one with a rule of its own, such
    // as xdp-rx's busy_poll_us only with busy_poll=1, refuses more; 55 of 300 after that one. A
    // tenth, 30 cases, is still far from vacuous.)
    EXPECT_GT(accepted, kCases / 10);
    EXPECT_LT(accepted, kCases * 4 / 5);
}

// "Run until decided" is the CLI's --until decided: the arguments carry it with the max time and
// margin, and what the engine refuses (three variants, blocked order) is shown on the check box.
TEST(EditorAgreement, RunUntilDecidedMapsToTheCliAndShowsWhatItNeeds)
{
    test::application();
    ExperimentEditor editor;
    ASSERT_TRUE(editor.selectWorkload("spin"));
    editor.setVariants({{"a", "work=1000"}, {"b", "work=1010"}});
    editor.setUntilDecided(true, 45, 0.5);
    ASSERT_TRUE(editor.runEnabled()) << editor.problems().join(" | ").toStdString();
    const QString args = editor.arguments("x.db").join(' ');
    EXPECT_TRUE(args.contains("--until decided --max-time 45 --margin 0.5")) << args.toStdString();
    editor.setVariants({{"a", ""}, {"b", ""}, {"c", ""}});
    EXPECT_FALSE(editor.runEnabled());
    // Named as the form labels the field, the value said once: "Stop when decided: compares ...".
    EXPECT_TRUE(editor.problems().join(' ').contains("Stop when decided: compares a candidate"))
        << editor.problems().join(" | ").toStdString();
    editor.setUntilDecided(false);
    EXPECT_TRUE(editor.runEnabled()) << editor.problems().join(" | ").toStdString();
    EXPECT_FALSE(editor.arguments("x.db").contains("--until"));
}

}  // namespace
}  // namespace nf::ui
