#include "ui/comparison.h"

#include <QObject>

#include <algorithm>
#include <set>
#include <sstream>

#include "engine/analysis/analysis.h"
#include "engine/model/metric.h"
#include "engine/report/comparison_report.h"
#include "engine/report/decision_text.h"
#include "engine/report/evidence.h"
#include "engine/report/profile_report.h"

namespace nf::ui {

namespace {

QString qs(const std::string& s)
{
    return QString::fromStdString(s);
}

// A metric made from hardware counters (cycles, instructions, branch or cache misses).
bool fromCounters(const engine::MetricSpec& metric)
{
    for (const auto* part : {"cycles", "instructions", "branch", "cache"}) {
        if (metric.numerator.find(part) != std::string::npos || metric.denominator.find(part) != std::string::npos) {
            return true;
        }
    }
    return false;
}

}  // namespace

DifferenceView differenceView(const engine::MetricComparison& c, double alpha)
{
    const auto& interval = c.result.interval;
    std::optional<LayoutSpreadView> layout;
    if (c.result.layoutSpreadPct) {
        layout = LayoutSpreadView{.spreadPct = *c.result.layoutSpreadPct,
                                  .measured = c.result.layoutsMeasured,
                                  .planned = c.result.layoutsPlanned};
    } else if (c.result.setupSpreadPct) {
        layout = LayoutSpreadView{
            .spreadPct = *c.result.setupSpreadPct, .measured = c.result.n, .planned = c.result.n, .setups = true};
    }
    return {
        .candidate = qs(c.candidate),
        .baseline = qs(c.baseline),
        .design = designName(c.result),
        .method = qs(interval.method),
        .estimatePct = interval.estimatePct,
        .ciLowPct = interval.ci.low,
        .ciHighPct = interval.ci.high,
        .levelPct = interval.level * 100.0,
        .level = qs(engine::levelText(interval, alpha)),
        .holmLevel = interval.bounded() && interval.nominalLevel > 1 - alpha + 1e-12,
        .verdict = qs(std::string(engine::toString(c.result.verdict))),
        .layout = layout,
    };
}

namespace {

// The panel of metric `m` of `input`, with the figures of `analysis` (the comparison the
// command named by `source` makes).
PanelView panelOf(const engine::AnalysisInput& input, std::size_t m, const engine::Analysis& analysis,
                  const QStringList& names, const QString& source, bool simulated)
{
    const engine::MetricSpec& metric = input.metrics[m];
    PanelView panel;
    panel.metric = qs(metric.name);
    panel.unit = qs(metric.unit);
    panel.title = metricTitle(metric.name);
    if (simulated && fromCounters(metric)) {
        panel.title += QObject::tr(" (SIMULATED)");
    }
    panel.source = source;
    panel.marginPct = analysis.options.compare.marginPct;
    panel.meanLevelPct = (1 - analysis.options.compare.alpha) * 100;
    for (std::size_t v = 0; v < input.variants.size(); ++v) {
        VariantView vv;
        vv.name = v < static_cast<std::size_t>(names.size()) ? names[static_cast<int>(v)] : qs(input.variants[v]);
        vv.repetitions = input.repetitions[m][v];
        for (const auto& s : analysis.variants) {
            if (qs(s.variant) == vv.name && s.metric == metric.name) {
                vv.mean = s.summary.mean;
                vv.ciLow = s.ciLow;
                vv.ciHigh = s.ciHigh;
            }
        }
        panel.variants.push_back(std::move(vv));
    }
    for (const auto& c : analysis.comparisons) {
        if (c.metric != metric.name || !c.primary) {
            continue;
        }
        panel.differences.push_back(differenceView(c, analysis.options.compare.alpha));
        std::string sentence = engine::verdictSentence(c, analysis.options.compare);
        if (sentence.rfind(c.candidate, 0) != 0) {
            sentence = c.candidate + " vs " + c.baseline + ": " + sentence;
        }
        for (const auto& line : engine::wrap(sentence, 62, "  ")) {
            panel.verdicts << qs(line);
        }
    }
    return panel;
}

bool compared(const engine::Analysis& analysis, const std::string& metric)
{
    return std::any_of(analysis.comparisons.begin(), analysis.comparisons.end(),
                       [&](const auto& c) { return c.metric == metric && c.primary; });
}

// Every metric of `input` as `noisefloor compare` shows it: the metrics it compares by default
// from one comparison (so verdicts, Holm's adjustment included, are the command's), every other
// stored metric (unit conversions, per-CPU and device breakdowns) as `compare --metric NAME`.
void fillPanels(ComparisonView& view, const engine::AnalysisInput& input, const engine::ComparisonReport& report,
                const std::vector<engine::RunChoice>& choices, const engine::AnalysisOptions& options,
                const std::pair<QString, QString>& arguments,
                const std::map<std::string, engine::RunNoiseFloor>& floors, bool simulated)
{
    for (const auto& s : report.analysis.variants) {
        if (!view.variants.contains(qs(s.variant))) {
            view.variants << qs(s.variant);
        }
    }
    view.baseline = view.variants.value(0);
    if (!options.baseline.empty()) {
        view.baseline = qs(options.baseline);
    }
    for (std::size_t m = 0; m < input.metrics.size(); ++m) {
        const std::string& name = input.metrics[m].name;
        if (compared(report.analysis, name)) {
            view.metrics.push_back(panelOf(input, m, report.analysis, view.variants,
                                           QObject::tr("noisefloor compare%1%2").arg(arguments.first, arguments.second),
                                           simulated));
            continue;
        }
        const QString source =
            QObject::tr("noisefloor compare%1 --metric %2%3").arg(arguments.first, qs(name), arguments.second);
        if (auto alone = engine::compareRuns(choices, {name}, options, floors)) {
            view.metrics.push_back(panelOf(input, m, alone->analysis, view.variants, source, simulated));
        } else {
            PanelView panel;
            panel.metric = qs(name);
            panel.title = metricTitle(name);
            panel.source = source;
            panel.notMeasured = qs(alone.error().message);
            view.metrics.push_back(std::move(panel));
        }
    }
    for (std::size_t p = 0; p < 4; ++p) {
        for (const auto& candidate : panelMetrics()[p]) {
            const auto it = std::find_if(view.metrics.begin(), view.metrics.end(),
                                         [&](const PanelView& panel) { return panel.metric == qs(candidate); });
            if (it != view.metrics.end()) {
                view.panels[p] = *it;
                break;
            }
        }
    }
}

void markMissing(ComparisonView& view, const engine::RunEnvironment& environment)
{
    for (std::size_t p = 0; p < 4; ++p) {
        if (view.panels[p].metric.isEmpty()) {
            view.panels[p].title = metricTitle(panelMetrics()[p].front());
            view.panels[p].notMeasured = whyNotMeasured(
                panelMetrics()[p].front() == "pps" ? "ops_per_sec" : panelMetrics()[p].front(), environment);
        }
    }
}

// The runs and variants as `noisefloor compare` takes them: " 3", " 1:late 2:early".
QString choiceArguments(const std::vector<engine::RunChoice>& choices)
{
    QString out;
    for (const auto& c : choices) {
        out += QStringLiteral(" %1").arg(c.run->row.id);
        if (!c.variant.empty()) {
            out += QLatin1Char(':') + qs(c.variant);
        }
    }
    return out;
}

engine::AnalysisOptions optionsOf(const CompareSettings& settings)
{
    engine::AnalysisOptions options;
    options.baseline = settings.baseline.toStdString();
    if (settings.marginPct) {
        options.compare.marginPct = *settings.marginPct;
        options.marginGiven = true;
    }
    if (settings.alpha) {
        options.compare.alpha = *settings.alpha;
        options.alphaGiven = true;
    }
    options.dropOutliers = settings.dropOutliers;
    return options;
}

// Where the time went, for profiled runs: the report's rows and summary, and each variant's
// stacks (the sampled CPU as their first frame).
void fillProfile(ComparisonView& view, const engine::ComparisonReport& report)
{
    if (!report.profile) {
        return;
    }
    ProfileView profile;
    for (const auto& line : engine::profileSummaryLines(*report.profile)) {
        profile.summary << qs(line).trimmed();
    }
    profile.alpha = report.analysis.options.compare.alpha;
    std::ostringstream table;
    engine::writeProfileText(*report.profile, report.profiles, profile.alpha, table);
    profile.table = qs(table.str()).trimmed();
    profile.comparisons = report.profiles;
    std::set<std::pair<int, std::string>> cpus;  // across runs CPUs match by role (cpu -1)
    for (const auto& c : report.profiles) {
        for (const auto& row : c.rows) {
            cpus.emplace(row.cpu, row.cpu >= 0 ? std::string() : row.role);
        }
    }
    profile.severalCpus = cpus.size() > 1;
    for (const auto& [variant, stacks] : report.profileStacks) {
        profile.stacks[qs(variant)] = stacks;
    }
    view.profile = std::move(profile);
}

ComparisonView build(const std::vector<engine::RunChoice>& choices, const Result<engine::AnalysisInput>& input,
                     const QString& title, const CompareSettings& settings,
                     const std::map<std::string, engine::RunNoiseFloor>& floors = {})
{
    const engine::RunRecord& first = *choices.front().run;
    const bool simulated =
        std::any_of(choices.begin(), choices.end(), [](const auto& c) { return c.run->spec.pmu.simulated; });
    ComparisonView view;
    view.title = simulated ? QObject::tr("SIMULATED counters - %1").arg(title) : title;
    view.kernel = qs(first.row.kernel);
    view.workload = qs(first.row.workload);
    for (const auto& c : choices) {
        const QString id = QString::number(c.run->row.id);
        if (!view.runIds.contains(id)) {
            view.runIds << id;
        }
    }
    const engine::AnalysisOptions options = optionsOf(settings);
    auto report = engine::compareRuns(choices, {}, options, floors);
    if (!report) {
        view.error = qs(report.error().message);
        view.report = QObject::tr("no report: %1").arg(view.error);
    } else if (!input) {
        view.error = qs(input.error().message);
    } else {
        view.report = qs(engine::comparisonText(*report));
        view.marginPct = report->analysis.options.compare.marginPct;
        view.alpha = report->analysis.options.compare.alpha;
        view.dropOutliers = report->analysis.options.dropOutliers;
        if (!report->context.simulatedCounters.empty()) {
            view.warnings << qs(report->context.simulatedCounters);
        }
        for (const auto& w : report->context.warnings) {
            view.warnings << qs(w);
        }
        for (const auto& w : report->analysis.warnings) {
            view.warnings << qs(w);
        }
        if (report->decision) {
            for (const auto& line : engine::decisionLines(*report->decision)) {
                view.decision << qs(line);
            }
        }
        for (const auto& c : report->analysis.comparisons) {  // said once, as the report's header does
            if (c.primary && c.result.levels.find(engine::kNoRunCalibration) != std::string::npos) {
                view.warnings.prepend(QObject::tr("%1 (noisefloor calibrate --across-runs makes one)")
                                          .arg(QString::fromLatin1(engine::kNoRunCalibration)));
                break;
            }
        }
        fillPanels(view, *input, *report, choices, options, {choiceArguments(choices), settingsArguments(settings)},
                   floors, simulated);
        fillProfile(view, *report);
    }
    markMissing(view, first.environment);
    return view;
}

std::vector<std::string> metricNames(const engine::RunLayout& layout)
{
    std::vector<std::string> out;
    for (const auto& m : layout.metrics) {
        out.push_back(m.name);
    }
    return out;
}

}  // namespace

QString settingsArguments(const CompareSettings& settings)
{
    QString out;
    if (settings.marginPct) {
        out += QStringLiteral(" --margin %1").arg(*settings.marginPct, 0, 'g', 6);
    }
    if (settings.alpha) {
        out += QStringLiteral(" --alpha %1").arg(*settings.alpha, 0, 'g', 6);
    }
    if (settings.dropOutliers) {
        out += QStringLiteral(" --drop-outliers");
    }
    return out;
}

ComparisonView compareRun(const engine::RunRecord& run, const CompareSettings& settings)
{
    const QString title =
        QObject::tr("run %1: %2%3")
            .arg(run.row.id)
            .arg(qs(run.row.workload), run.row.label.empty() ? QString() : qs(" '" + run.row.label + "'"));
    const std::vector<engine::RunChoice> choices{{&run, ""}};
    return build(choices, engine::choicesInput(choices, metricNames(run.data.layout)), title, settings);
}

ComparisonView compareAcross(const std::vector<const engine::RunRecord*>& runs, const QStringList& variants,
                             const CompareSettings& settings,
                             const std::map<std::string, engine::RunNoiseFloor>& floors)
{
    if (runs.empty()) {
        ComparisonView view;
        view.error = QObject::tr("no runs selected");
        return view;
    }
    std::vector<engine::RunChoice> choices;
    QStringList title;
    // The metrics every chosen run stored.
    std::vector<std::string> common = metricNames(runs.front()->data.layout);
    for (std::size_t r = 0; r < runs.size(); ++r) {
        const auto& run = *runs[r];
        const QString only = r < static_cast<std::size_t>(variants.size()) ? variants[static_cast<int>(r)] : QString();
        title << (only.isEmpty() ? QObject::tr("run %1").arg(run.row.id)
                                 : QObject::tr("run %1:%2").arg(run.row.id).arg(only));
        choices.push_back({&run, only.toStdString()});
        const auto names = metricNames(run.data.layout);
        std::erase_if(common,
                      [&](const std::string& n) { return std::find(names.begin(), names.end(), n) == names.end(); });
    }
    // The same input compareRuns makes: variants of one run keep its design (chunk or repetition pairs).
    return build(choices, engine::choicesInput(choices, common), title.join(" vs "), settings, floors);
}

}  // namespace nf::ui
