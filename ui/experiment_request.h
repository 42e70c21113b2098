#pragma once
// What the Experiment tab's form asks for, without its widgets: the fields as plain values
// (ExperimentForm) become the spec and sweep the engine checks and the `noisefloor run` arguments
// that give the same spec, both made from the same normalised text, so that Run is enabled exactly
// when `noisefloor run --dry-run` with those arguments accepts. The editor reads its fields into a
// form and marks the problems this finds; tests call it directly.

#include <QString>
#include <QStringList>

#include <optional>
#include <utility>
#include <vector>

#include "base/system_facts.h"
#include "engine/catalog/plan_time.h"
#include "engine/catalog/spec_check.h"
#include "engine/catalog/workload_catalog.h"

namespace nf::ui {

// The form's fields as typed; experimentRequest() trims and normalises them.
struct ExperimentForm {
    const engine::WorkloadDescriptor* workload = nullptr;  // none chosen: nullptr
    QStringList params;  // the workload's parameter fields in its order; "" (or the default) = the default
    std::vector<std::pair<QString, QString>> variants;  // per row: name, overrides "key=value, ..."
    int repetitions = 5;
    double duration = 1.0;  // seconds
    double warmup = 0.2;    // seconds
    QString order = QStringLiteral("interleaved");
    bool simulatedPmu = false;  // --pmu simulated
    bool untilDecided = false;  // --until decided --max-time maxTime --margin marginPct
    double maxTime = 600;
    double marginPct = 1;
    std::vector<int> cpus;   // ticked worker CPUs; none: the engine picks
    bool shareCpus = false;  // --share-cpus: run on CPUs another run measures on (said in the run's warnings)
    QString label;
    QString sweep;  // "PARAM=v1,v2,..."; "" = no sweep
};

// The form as the engine reads it. Syntax the form cannot turn into a spec (an override without
// '=', a malformed sweep) is a problem here, before the engine's check.
struct ExperimentRequest {
    engine::ExperimentSpec spec;
    std::optional<engine::SweepSpec> sweep;
    QStringList arguments;  // `noisefloor` arguments for the spec, from `run`: run WORKLOAD -p ... --variant ...
    QStringList syntaxProblems;
    std::vector<int> badRows;  // variant rows with a syntax problem
    bool badSweep = false;
};

ExperimentRequest experimentRequest(const ExperimentForm& form);

// A variant row's overrides as they go into the spec and the arguments: "work = 1, ,x=2" ->
// {"work=1", "x=2"}.
QStringList variantOverrides(const QString& text);

// Everything wrong with the form, one line per problem, and the engine's problems among them (for
// the editor to mark each where it is). Empty lines: Run is possible. `facts` without CPUs (another
// host's, not known yet) leave the CPUs to the engine there.
struct RequestProblems {
    QStringList lines;
    std::vector<engine::SpecProblem> checked;  // from engine::checkExperiment
    // How long the design takes (engine::planTime, what `run --dry-run` prints): set when there
    // is no problem. The schedule does not depend on the machine: another host's runs alike.
    std::optional<engine::PlanTime> plan;
};
RequestProblems requestProblems(const ExperimentForm& form, const ExperimentRequest& request,
                                const base::SystemFacts& facts);

// An engine problem named as the form labels its fields ("Repetitions 0: must be 1..100000").
QString problemText(const engine::SpecProblem& problem);

// `noisefloor` arguments for the request: [--db DB] run WORKLOAD ...
QStringList runArguments(const ExperimentRequest& request, const QString& dbPath);
// The command a user could type for these arguments: "noisefloor ARG ...", quoted for a shell.
QString commandLine(const QStringList& arguments);

}  // namespace nf::ui
