// The names the Compare panels give metrics and designs, and why a metric is missing.

#include <QObject>

#include <algorithm>

#include "base/default_counters.h"
#include "engine/analysis/across_runs.h"
#include "engine/model/metric.h"
#include "engine/report/evidence.h"
#include "ui/comparison.h"

namespace nf::ui {

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

QString designName(const engine::Comparison& c)
{
    const QString unit = QString::fromStdString(c.unit);
    if (c.design == engine::Design::Layouts) {
        return c.n == 1 ? QObject::tr("1 placement cell of paired log-ratios")
                        : QObject::tr("%1 placement cells of paired log-ratios").arg(c.n);
    }
    if (c.design == engine::Design::Setups) {
        return c.n == 1 ? QObject::tr("1 setup of paired log-ratios")
                        : QObject::tr("%1 setups of paired log-ratios").arg(c.n);
    }
    if (!c.levels.empty()) {  // across runs: what the run-to-run variance came from
        return c.levels.find(engine::kNoRunCalibration) != std::string::npos
                   ? QObject::tr("no run-to-run calibration")
                   : QObject::tr("%1 means across runs").arg(unit);
    }
    return c.design == engine::Design::Paired ? QObject::tr("paired chunk log-ratios")
                                              : QObject::tr("independent %1s").arg(unit);
}

QString levelCaption(const std::vector<DifferenceView>& differences)
{
    QStringList levels;
    bool holm = false;
    for (const auto& d : differences) {
        if (!d.level.isEmpty() && !levels.contains(d.level)) {
            levels << d.level;
        }
        holm = holm || d.holmLevel;
    }
    if (levels.isEmpty()) {
        return QObject::tr("CI");
    }
    // Lowest to highest: "97.5%-98.33%" reads as a span.
    std::sort(levels.begin(), levels.end(),
              [](const QString& a, const QString& b) { return a.chopped(1).toDouble() < b.chopped(1).toDouble(); });
    const QString level = levels.size() == 1 ? levels.front() : levels.front() + QStringLiteral("-") + levels.back();
    return holm ? QObject::tr("%1 CI, Holm-adjusted").arg(level) : QObject::tr("%1 CI").arg(level);
}

QString metricTitle(const std::string& metric)
{
    const std::string title = engine::metricTitle(metric);
    return title.empty() ? QString::fromStdString(metric) : QObject::tr(title.c_str());
}

QString whyNotMeasured(const std::string& metricName, const engine::RunEnvironment& environment)
{
    std::vector<std::string> quantities = {engine::quantity::kOps, engine::quantity::kTscTicks,
                                           engine::quantity::kElapsedNs};
    for (auto& counter : base::defaultCounterNames(true)) {
        quantities.push_back(std::move(counter));
    }
    const auto all = engine::callLoopMetrics(quantities);
    const auto spec = std::find_if(all.begin(), all.end(), [&](const auto& m) { return m.name == metricName; });
    QStringList names;
    std::string reason;
    for (const auto& [name, why] : environment.unsupported) {
        if (spec != all.end() && (name == spec->numerator || name == spec->denominator)) {
            names << QString::fromStdString(name);
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
            lines << QString::fromStdString(line);
        }
    }
    lines << QObject::tr("(needs %1)").arg(names.join(QStringLiteral(", ")));
    return lines.join('\n');
}

}  // namespace nf::ui
