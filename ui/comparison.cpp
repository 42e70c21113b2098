#include "ui/comparison.h"

#include <QObject>

#include <algorithm>
#include <set>

#include "engine/analysis/analysis.h"
#include "engine/model/metric.h"
#include "engine/report/comparison_report.h"
#include "engine/report/evidence.h"

namespace nf::ui {

namespace {

QString qs(const std::string& s)
{
    return QString::fromStdString(s);
}

const std::array<const char*, 4> kTitles = {"PPS", "IPC", "branch misses per op", "cycles per op"};

// What a panel says it shows, by the metric it found (docs/measurement.md, "Metric names").
QString panelTitle(std::size_t panel, const std::string& metric)
{
    static const std::vector<std::pair<std::string, const char*>> titles = {
        {"ipc", "IPC"},
        {"rx_ipc", "IPC, receiver thread"},
        {"cpu_ipc", "IPC, counted CPUs"},
        {"branch_misses_per_op", "branch misses per op"},
        {"rx_branch_misses_per_packet", "branch misses per packet, receiver thread"},
        {"cpu_branch_misses_per_packet", "branch misses per packet, counted CPUs"},
        {"branch_miss_ratio", "branch misses per branch"},
        {"cycles_per_op", "cycles per op"},
        {"rx_cycles_per_packet", "cycles per packet, receiver thread"},
        {"cpu_cycles_per_packet", "cycles per packet, counted CPUs"},
        {"tsc_per_op", "TSC ticks per op"},
    };
    for (const auto& [name, title] : titles) {
        if (name == metric) {
            return QObject::tr(title);
        }
    }
    return QString::fromLatin1(kTitles[panel]);
}

const engine::MetricSpec* findMetric(const std::vector<engine::MetricSpec>& metrics, const std::string& name)
{
    auto it = std::find_if(metrics.begin(), metrics.end(), [&](const auto& m) { return m.name == name; });
    return it == metrics.end() ? nullptr : &*it;
}

// Why `metricName` is missing: the counters it needs that did not open, with the reason the run
// recorded; a machine without a PMU reads "no PMU: hardware counters unavailable".
QString whyNotMeasured(const std::string& metricName, const engine::RunEnvironment& environment)
{
    const auto all =
        engine::callLoopMetrics({engine::quantity::kOps, engine::quantity::kTscTicks, engine::quantity::kElapsedNs,
                                 "cycles", "instructions", "branch-misses", "cache-misses"});
    const engine::MetricSpec* spec = findMetric(all, metricName);
    QStringList names;
    std::string reason;
    for (const auto& [name, why] : environment.unsupported) {
        if (spec != nullptr && (name == spec->numerator || name == spec->denominator)) {
            names << qs(name);
            reason = why;
        }
    }
    if (names.isEmpty()) {
        return QObject::tr("not measured in this run");
    }
    QStringList lines{QObject::tr("not measured")};
    if (reason.find("PMU") != std::string::npos) {
        lines << QObject::tr("no PMU: hardware counters unavailable");
    } else {
        for (const auto& line : engine::wrap(reason, 48, "")) {
            lines << qs(line);
        }
    }
    lines << QObject::tr("(needs %1)").arg(names.join(QStringLiteral(", ")));
    return lines.join('\n');
}

ComparisonView fromAnalysis(const engine::AnalysisInput& input, const engine::Analysis& analysis, bool simulated)
{
    ComparisonView view;
    for (const auto& w : analysis.warnings) {
        view.warnings << qs(w);
    }
    for (std::size_t p = 0; p < 4; ++p) {
        PanelView& panel = view.panels[p];
        panel.title = QString::fromLatin1(kTitles[p]);
        for (const auto& name : panelMetrics()[p]) {
            auto it =
                std::find_if(input.metrics.begin(), input.metrics.end(), [&](const auto& m) { return m.name == name; });
            if (it == input.metrics.end()) {
                continue;
            }
            const auto m = static_cast<std::size_t>(it - input.metrics.begin());
            panel.metric = qs(it->name);
            panel.unit = qs(it->unit);
            panel.title = panelTitle(p, it->name);
            if (simulated && p > 0 && it->name != "tsc_per_op") {
                panel.title += QObject::tr(" (SIMULATED)");
            }
            for (std::size_t v = 0; v < input.variants.size(); ++v) {
                VariantView vv;
                vv.name = qs(input.variants[v]);
                vv.repetitions = input.repetitions[m][v];
                for (const auto& s : analysis.variants) {
                    if (s.variant == input.variants[v] && s.metric == it->name) {
                        vv.mean = s.summary.mean;
                        vv.ciLow = s.ciLow;
                        vv.ciHigh = s.ciHigh;
                    }
                }
                panel.variants.push_back(std::move(vv));
            }
            for (const auto& c : analysis.comparisons) {
                if (c.metric == it->name && c.primary) {
                    std::string sentence = engine::verdictSentence(c, analysis.options.compare);
                    if (sentence.rfind(c.candidate, 0) != 0) {
                        sentence = c.candidate + " vs " + c.baseline + ": " + sentence;
                    }
                    for (const auto& line : engine::wrap(sentence, 62, "  ")) {
                        panel.verdicts << qs(line);
                    }
                }
            }
            break;
        }
    }
    return view;
}

// The metrics of `layout` the panels show.
std::vector<std::string> wanted(const engine::RunLayout& layout)
{
    std::vector<std::string> out;
    for (const auto& candidates : panelMetrics()) {
        for (const auto& name : candidates) {
            if (findMetric(layout.metrics, name) != nullptr) {
                out.push_back(name);
                break;
            }
        }
    }
    return out;
}

void markMissing(ComparisonView& view, const engine::RunEnvironment& environment)
{
    for (std::size_t p = 0; p < 4; ++p) {
        if (view.panels[p].metric.isEmpty()) {
            view.panels[p].title = QString::fromLatin1(kTitles[p]);
            view.panels[p].notMeasured = whyNotMeasured(
                panelMetrics()[p].front() == "pps" ? "ops_per_sec" : panelMetrics()[p].front(), environment);
        }
    }
}

ComparisonView analyse(const Result<engine::AnalysisInput>& input, const QString& title,
                       const engine::RunEnvironment& env, bool simulated)
{
    ComparisonView view;
    if (!input) {
        view.error = qs(input.error().message);
    } else if (auto analysis = engine::analyze(*input, {})) {
        view = fromAnalysis(*input, *analysis, simulated);
    } else {
        view.error = qs(analysis.error().message);
    }
    view.title = simulated ? QObject::tr("SIMULATED counters - %1").arg(title) : title;
    markMissing(view, env);
    return view;
}

// The report `noisefloor compare` prints for the same choice, and its warning lines.
void addReport(ComparisonView& view, const std::vector<engine::RunChoice>& choices)
{
    auto report = engine::compareRuns(choices, {}, {});
    if (!report) {
        view.report = QObject::tr("no report: %1").arg(qs(report.error().message));
        return;
    }
    view.report = qs(engine::comparisonText(*report));
    view.warnings.clear();
    if (!report->context.simulatedCounters.empty()) {
        view.warnings << qs(report->context.simulatedCounters);
    }
    for (const auto& w : report->context.warnings) {
        view.warnings << qs(w);
    }
    for (const auto& w : report->analysis.warnings) {
        view.warnings << qs(w);
    }
}

}  // namespace

const std::array<std::vector<std::string>, 4>& panelMetrics()
{
    static const std::array<std::vector<std::string>, 4> metrics = {
        std::vector<std::string>{"pps", "ops_per_sec"},
        std::vector<std::string>{"ipc", "rx_ipc", "cpu_ipc"},
        std::vector<std::string>{"branch_misses_per_op", "rx_branch_misses_per_packet", "cpu_branch_misses_per_packet",
                                 "branch_miss_ratio"},
        std::vector<std::string>{"cycles_per_op", "rx_cycles_per_packet", "cpu_cycles_per_packet", "tsc_per_op"},
    };
    return metrics;
}

ComparisonView compareRun(const engine::RunRecord& run)
{
    const bool interleaved = run.spec.interleaved();
    const QString title =
        QObject::tr("run %1: %2%3")
            .arg(run.row.id)
            .arg(qs(run.row.workload), run.row.label.empty() ? QString() : qs(" '" + run.row.label + "'"));
    auto view = analyse(engine::analysisInput(run.data, interleaved, wanted(run.data.layout)), title, run.environment,
                        run.spec.pmu.simulated);
    addReport(view, {{&run, ""}});
    return view;
}

ComparisonView compareAcross(const std::vector<const engine::RunRecord*>& runs, const QStringList& variants)
{
    std::vector<engine::RunVariant> selection;
    std::set<std::string> names;
    QStringList title;
    for (std::size_t r = 0; r < runs.size(); ++r) {
        const auto& run = *runs[r];
        const QString only = r < static_cast<std::size_t>(variants.size()) ? variants[static_cast<int>(r)] : QString();
        title << (only.isEmpty() ? QObject::tr("run %1").arg(run.row.id)
                                 : QObject::tr("run %1:%2").arg(run.row.id).arg(only));
        for (std::size_t v = 0; v < run.data.variantNames.size(); ++v) {
            const auto& name = run.data.variantNames[v];
            if (!only.isEmpty() && qs(name) != only) {
                continue;
            }
            std::string shown = (run.row.label.empty() ? "run" + std::to_string(run.row.id) : run.row.label);
            shown += name == "default" ? "" : ":" + name;
            if (!names.insert(shown).second) {
                shown = "run" + std::to_string(run.row.id) + ":" + name;
                names.insert(shown);
            }
            selection.push_back({shown, &run.data, static_cast<int>(v)});
        }
    }
    if (runs.empty()) {
        ComparisonView view;
        view.error = QObject::tr("no runs selected");
        return view;
    }
    const bool simulated =
        std::any_of(runs.begin(), runs.end(), [](const engine::RunRecord* r) { return r->spec.pmu.simulated; });
    auto view = analyse(engine::analysisInputAcross(selection, wanted(runs.front()->data.layout)), title.join(" vs "),
                        runs.front()->environment, simulated);
    std::vector<engine::RunChoice> choices;
    for (std::size_t r = 0; r < runs.size(); ++r) {
        const QString only = r < static_cast<std::size_t>(variants.size()) ? variants[static_cast<int>(r)] : QString();
        choices.push_back({runs[r], only.toStdString()});
    }
    addReport(view, choices);
    return view;
}

}  // namespace nf::ui
