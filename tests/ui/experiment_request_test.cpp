// The Experiment form's values as the engine reads them, without a widget: the spec, the sweep and
// the `noisefloor run` arguments come from the same normalised text, and what cannot become a spec
// is a problem before the engine's check.

#include <gtest/gtest.h>

#include <QString>
#include <QStringList>

#include "base/system_facts.h"
#include "engine/catalog/workload_catalog.h"
#include "ui/experiment_request.h"

namespace nf::ui {
namespace {

ExperimentForm spinForm()
{
    ExperimentForm form;
    form.workload = engine::findWorkload("spin");
    form.variants = {{"a", ""}, {"b", ""}};
    return form;
}

TEST(ExperimentRequest, TheSpecAndTheArgumentsReadTheSameNormalisedText)
{
    ExperimentForm form = spinForm();
    ASSERT_NE(form.workload, nullptr);
    form.params = QStringList(static_cast<qsizetype>(form.workload->params.size()));
    form.params[0] = QStringLiteral(" 500 ");  // work, the first parameter
    form.variants = {{" a ", ""}, {"b", " work = 1000 , ,"}};
    form.repetitions = 3;
    form.duration = 0.1234567;
    form.label = QStringLiteral(" try ");
    form.cpus = {1, 3};
    form.sweep = QStringLiteral("work = 100, 200");
    const ExperimentRequest r = experimentRequest(form);

    EXPECT_TRUE(r.syntaxProblems.isEmpty()) << r.syntaxProblems.join('\n').toStdString();
    EXPECT_EQ(r.spec.workload, "spin");
    EXPECT_EQ(r.spec.params.at("work"), "500");
    ASSERT_EQ(r.spec.variants.size(), 2u);
    EXPECT_EQ(r.spec.variants[0].name, "a");
    EXPECT_EQ(r.spec.variants[1].overrides.at("work"), "1000");
    EXPECT_EQ(r.spec.repetitions, 3);
    EXPECT_DOUBLE_EQ(r.spec.duration, 0.123457);  // the six digits the argument carries
    EXPECT_EQ(r.spec.cpus, (std::vector<int>{1, 3}));
    EXPECT_EQ(r.spec.label, "try");
    ASSERT_TRUE(r.sweep.has_value());
    EXPECT_EQ(r.sweep->param, "work");
    EXPECT_EQ(r.arguments.join(' ').toStdString(),
              "run spin -p work=500 --variant a --variant b:work=1000 --reps 3 --duration 0.123457 --warmup 0.2 "
              "--order interleaved --cpu 1,3 --label try --sweep work=100,200");
    EXPECT_EQ(runArguments(r, "/tmp/x.db").mid(0, 3), (QStringList{"--db", "/tmp/x.db", "run"}));
    EXPECT_EQ(runArguments(r, QString()).first(), "run");
}

TEST(ExperimentRequest, DefaultsAreLeftOutAndTheStoppingRuleAndPmuAreCarried)
{
    ExperimentForm form = spinForm();
    form.params = {QString::fromStdString(form.workload->params[0].defaultValue)};
    form.untilDecided = true;
    form.maxTime = 45;
    form.marginPct = 0.5;
    form.simulatedPmu = true;
    const ExperimentRequest r = experimentRequest(form);
    EXPECT_TRUE(r.spec.params.empty());
    EXPECT_FALSE(r.arguments.contains("-p"));
    ASSERT_TRUE(r.spec.until.has_value());
    EXPECT_EQ(r.spec.until->maxTime, 45);
    EXPECT_TRUE(r.spec.pmu.simulated);
    const QString args = r.arguments.join(' ');
    EXPECT_TRUE(args.contains("--until decided --max-time 45 --margin 0.5")) << args.toStdString();
    EXPECT_TRUE(args.contains("--pmu simulated")) << args.toStdString();
}

TEST(ExperimentRequest, SyntaxTheFormCannotReadIsAProblemBeforeTheEngineCheck)
{
    ExperimentForm form = spinForm();
    form.variants = {{"a", ""}, {"", "work"}};
    form.sweep = QStringLiteral("work");
    form.repetitions = 0;  // the engine would refuse it, but it does not get to look
    const ExperimentRequest r = experimentRequest(form);
    EXPECT_EQ(r.badRows, std::vector<int>{1});
    EXPECT_TRUE(r.badSweep);
    ASSERT_EQ(r.syntaxProblems.size(), 2);
    EXPECT_TRUE(r.syntaxProblems[0].startsWith("variant 2: ")) << r.syntaxProblems[0].toStdString();
    EXPECT_TRUE(r.syntaxProblems[1].startsWith("Sweep ")) << r.syntaxProblems[1].toStdString();
    const RequestProblems problems = requestProblems(form, r, base::readCpuFacts());
    EXPECT_TRUE(problems.checked.empty());
    EXPECT_EQ(problems.lines, r.syntaxProblems);
}

TEST(ExperimentRequest, TheEngineProblemsAreNamedAsTheFormLabelsItsFields)
{
    ExperimentForm form = spinForm();
    form.repetitions = 0;
    const RequestProblems problems = requestProblems(form, experimentRequest(form), base::readCpuFacts());
    ASSERT_EQ(problems.checked.size(), 1u);
    EXPECT_EQ(problems.checked[0].field, engine::SpecField::Repetitions);
    ASSERT_EQ(problems.lines.size(), 1);
    EXPECT_TRUE(problems.lines[0].startsWith("Repetitions 0: ")) << problems.lines[0].toStdString();

    ExperimentForm none;
    EXPECT_EQ(requestProblems(none, experimentRequest(none), {}).lines, QStringList{"no workload"});
    ExperimentForm noVariants = spinForm();
    noVariants.variants.clear();
    EXPECT_EQ(requestProblems(noVariants, experimentRequest(noVariants), {}).lines,
              QStringList{"add at least one variant"});
    form.repetitions = 2;
    EXPECT_TRUE(requestProblems(form, experimentRequest(form), base::readCpuFacts()).lines.isEmpty());
}

TEST(ExperimentRequest, TheCommandLineIsQuotedForAShell)
{
    EXPECT_EQ(commandLine({"--db", "/tmp/x.db", "run", "spin", "--label", "x y", "--variant", "it's"}),
              "noisefloor --db /tmp/x.db run spin --label 'x y' --variant 'it'\\''s'");
    EXPECT_EQ(commandLine({"--label", ""}), "noisefloor --label ''");
}

TEST(ExperimentRequest, VariantOverridesDropSpacesAndEmptyParts)
{
    EXPECT_EQ(variantOverrides(" work = 1 , , batch=2 "), (QStringList{"work=1", "batch=2"}));
    EXPECT_TRUE(variantOverrides("  ").isEmpty());
}

}  // namespace
}  // namespace nf::ui
