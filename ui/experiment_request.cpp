#include "ui/experiment_request.h"

#include <QObject>

#include <algorithm>

namespace nf::ui {

namespace {

QString qs(const std::string& s)
{
    return QString::fromStdString(s);
}

// The seconds as the argument carries them, so the spec and the CLI read the same number.
QString seconds(double v)
{
    return QString::number(v, 'g', 6);
}

// How the form names each field of the experiment in its problem lines.
QString fieldLabel(engine::SpecField field)
{
    switch (field) {
        case engine::SpecField::Workload: return QObject::tr("Workload");
        case engine::SpecField::Repetitions: return QObject::tr("Repetitions");
        case engine::SpecField::Duration: return QObject::tr("Duration");
        case engine::SpecField::Warmup: return QObject::tr("Warmup");
        case engine::SpecField::Interval: return QObject::tr("Interval");
        case engine::SpecField::Chunk: return QObject::tr("Chunk");
        case engine::SpecField::Variants: return QObject::tr("Variant name");
        case engine::SpecField::Param: return QObject::tr("Parameters");
        case engine::SpecField::Cpus: return QObject::tr("Worker CPU");
        case engine::SpecField::Counters: return QObject::tr("Counters");
        case engine::SpecField::Pmu: return QObject::tr("PMU");
        case engine::SpecField::Sweep: return QObject::tr("Sweep");
        case engine::SpecField::Until: return QObject::tr("Stop when");
        case engine::SpecField::MaxTime: return QObject::tr("Max time");
        case engine::SpecField::Margin: return QObject::tr("Margin");
        case engine::SpecField::Alpha: return QObject::tr("Alpha");
        case engine::SpecField::Primary: return QObject::tr("Primary metric");
        case engine::SpecField::Layouts: return QObject::tr("Layouts");
        case engine::SpecField::Housekeeping: return QObject::tr("Housekeeping CPUs");
        case engine::SpecField::Setups: return QObject::tr("Setups");
        case engine::SpecField::Profile: return QObject::tr("Profile");
    }
    return {};
}

QString shellQuote(const QString& arg)
{
    static const QString safe =
        QStringLiteral("abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRSTUVWXYZ0123456789_-.,:=/+@%");
    const bool plain = !arg.isEmpty() && std::all_of(arg.begin(), arg.end(), [](QChar c) { return safe.contains(c); });
    return plain ? arg : "'" + QString(arg).replace("'", "'\\''") + "'";
}

// The workload and its parameters that differ from their defaults: `run WORKLOAD -p NAME=VALUE ...`.
void addWorkload(const ExperimentForm& form, ExperimentRequest& r)
{
    const engine::WorkloadDescriptor* w = form.workload;
    r.spec.workload = w != nullptr ? w->name : "";
    r.arguments << QStringLiteral("run") << qs(r.spec.workload);
    for (std::size_t i = 0; w != nullptr && i < w->params.size() && i < static_cast<std::size_t>(form.params.size());
         ++i) {
        const QString value = form.params[static_cast<qsizetype>(i)].trimmed();
        if (!value.isEmpty() && value != qs(w->params[i].defaultValue)) {
            r.spec.params[w->params[i].name] = value.toStdString();
            r.arguments << QStringLiteral("-p") << qs(w->params[i].name) + "=" + value;
        }
    }
}

// `--variant NAME[:OVERRIDES]` per row; a row whose overrides do not parse is a syntax problem.
void addVariants(const ExperimentForm& form, ExperimentRequest& r)
{
    for (std::size_t row = 0; row < form.variants.size(); ++row) {
        const QString name = form.variants[row].first.trimmed();
        const QStringList overrides = variantOverrides(form.variants[row].second);
        engine::VariantSpec v{name.toStdString(), {}};
        if (!overrides.isEmpty()) {
            auto parsed = engine::parseOverrides(overrides.join(',').toStdString());
            if (parsed) {
                v.overrides = std::move(*parsed);
            } else {
                r.syntaxProblems << QObject::tr("variant %1: %2")
                                        .arg(name.isEmpty() ? QString::number(row + 1) : name,
                                             qs(parsed.error().message));
                r.badRows.push_back(static_cast<int>(row));
            }
        }
        r.spec.variants.push_back(std::move(v));
        r.arguments << QStringLiteral("--variant") << (overrides.isEmpty() ? name : name + ":" + overrides.join(','));
    }
}

// Repetitions, durations, order, the stopping rule and the counters' source.
void addSchedule(const ExperimentForm& form, ExperimentRequest& r)
{
    auto& spec = r.spec;
    spec.repetitions = form.repetitions;
    spec.duration = seconds(form.duration).toDouble();
    spec.warmup = seconds(form.warmup).toDouble();
    if (auto order = engine::parseOrder(form.order.toStdString())) {
        spec.order = *order;
    }
    r.arguments << QStringLiteral("--reps") << QString::number(spec.repetitions) << QStringLiteral("--duration")
                << seconds(spec.duration) << QStringLiteral("--warmup") << seconds(spec.warmup)
                << QStringLiteral("--order") << form.order;
    if (form.untilDecided) {
        spec.until = engine::UntilDecided{.maxTime = form.maxTime, .marginPct = form.marginPct, .alpha = 0.05};
        r.arguments << QStringLiteral("--until") << QStringLiteral("decided") << QStringLiteral("--max-time")
                    << QString::number(spec.until->maxTime, 'g', 12) << QStringLiteral("--margin")
                    << QString::number(spec.until->marginPct, 'g', 12);
    }
    if (form.simulatedPmu) {
        spec.pmu.simulated = true;
        r.arguments << QStringLiteral("--pmu") << QStringLiteral("simulated");
    }
}

// The worker CPUs, the label and the sweep.
void addPlacementAndSweep(const ExperimentForm& form, ExperimentRequest& r)
{
    auto& spec = r.spec;
    QStringList cpus;
    for (int cpu : form.cpus) {
        spec.cpus.push_back(cpu);
        cpus << QString::number(cpu);
    }
    if (!cpus.isEmpty()) {
        r.arguments << QStringLiteral("--cpu") << cpus.join(',');
    }
    spec.label = form.label.trimmed().toStdString();
    if (!spec.label.empty()) {
        r.arguments << QStringLiteral("--label") << qs(spec.label);
    }
    spec.shareCpus = form.shareCpus;
    if (form.shareCpus) {
        r.arguments << QStringLiteral("--share-cpus");
    }
    const QString sweep = QString(form.sweep).remove(' ');
    if (!sweep.isEmpty()) {
        r.arguments << QStringLiteral("--sweep") << sweep;
        if (auto parsed = engine::parseSweep(sweep.toStdString())) {
            r.sweep = std::move(*parsed);
        } else {
            r.syntaxProblems << QObject::tr("Sweep %1").arg(qs(parsed.error().message));
            r.badSweep = true;
        }
    }
}

}  // namespace

QStringList variantOverrides(const QString& text)
{
    QStringList overrides;
    for (const auto& part : text.trimmed().split(',', Qt::SkipEmptyParts)) {
        const QString cleaned = part.trimmed().remove(' ');
        if (!cleaned.isEmpty()) {
            overrides << cleaned;
        }
    }
    return overrides;
}

ExperimentRequest experimentRequest(const ExperimentForm& form)
{
    ExperimentRequest r;
    addWorkload(form, r);
    addVariants(form, r);
    addSchedule(form, r);
    addPlacementAndSweep(form, r);
    return r;
}

RequestProblems requestProblems(const ExperimentForm& form, const ExperimentRequest& request,
                                const base::SystemFacts& facts)
{
    RequestProblems out;
    if (form.workload == nullptr) {
        out.lines << QObject::tr("no workload");
    } else if (form.variants.empty()) {
        out.lines << QObject::tr("add at least one variant");
    } else if (request.syntaxProblems.isEmpty()) {
        const auto check = engine::checkExperiment(request.spec, request.sweep, facts);
        out.checked = check.problems;
        if (facts.cpus.empty()) {  // another host's CPUs, not known yet: the engine there checks them
            std::erase_if(out.checked, [](const engine::SpecProblem& p) { return p.field == engine::SpecField::Cpus; });
        }
        if (out.checked.empty()) {  // the resolved plan; with another host's CPUs unknown, the spec as given
            const auto& points = check.experiment.points;
            out.plan = points.empty() ? engine::planTime(request.spec, request.sweep ? request.sweep->values.size() : 1)
                                      : engine::planTime(points.front(), points.size());
        }
    }
    out.lines << request.syntaxProblems;
    for (const auto& p : out.checked) {
        out.lines << problemText(p);
    }
    if (!out.lines.isEmpty()) {
        out.plan.reset();
    }
    return out;
}

QString problemText(const engine::SpecProblem& problem)
{
    return qs(engine::describe(problem, fieldLabel(problem.field).toStdString()));
}

QStringList runArguments(const ExperimentRequest& request, const QString& dbPath)
{
    QStringList args;
    if (!dbPath.isEmpty()) {
        args << QStringLiteral("--db") << dbPath;
    }
    return args + request.arguments;
}

QString commandLine(const QStringList& arguments)
{
    QStringList words{QStringLiteral("noisefloor")};
    for (const auto& a : arguments) {
        words << shellQuote(a);
    }
    return words.join(' ');
}

}  // namespace nf::ui
