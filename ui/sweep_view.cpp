#include "ui/sweep_view.h"

#include <QObject>

#include <algorithm>
#include <cmath>
#include <map>

#include "data/run_store.h"
#include "engine/report/evidence.h"
#include "engine/report/sweep_report.h"
#include "ui/comparison.h"

namespace nf::ui {

namespace {

QString qs(const std::string& s)
{
    return QString::fromStdString(s);
}

}  // namespace

SweepView loadSweep(data::Database& db, const std::string& sweepId, const std::string& metric)
{
    SweepView view;
    view.id = qs(sweepId);
    auto rows = data::sweepRuns(db, sweepId);
    if (!rows || rows->empty()) {
        view.error = rows ? QObject::tr("no sweep %1").arg(view.id) : qs(rows.error().message);
        return view;
    }
    view.workload = qs(rows->back().workload);
    view.param = qs(rows->back().sweepParam);
    std::vector<engine::MetricSpec> stored;  // of the first complete run
    auto report = engine::compareSweep(
        sweepId, *rows,
        [&](std::int64_t id) {
            auto run = data::loadRun(db, id);
            if (run && stored.empty()) {
                stored = run->data.layout.metrics;
            }
            return run;
        },
        metric.empty() ? std::vector<std::string>{} : std::vector<std::string>{metric}, engine::AnalysisOptions{});
    for (const auto& m : stored) {
        view.metrics << qs(m.name);
    }
    if (!report) {
        view.metric = qs(metric);
        view.error = qs(report.error().message);
        return view;
    }
    view.metric = qs(report->metric);
    for (const auto& m : stored) {
        if (m.name == report->metric) {
            view.unit = qs(m.unit);
            view.higherIsBetter = m.higherIsBetter;
        }
    }
    view.marginPct = report->compare.marginPct;
    view.alpha = report->compare.alpha;
    view.simulated = qs(report->simulated);
    for (const auto& m : report->missing) {
        view.missing << qs(m);
    }
    for (const auto& p : report->points) {
        for (const auto& s : p.analysis.variants) {
            if (s.metric == report->metric && !view.variants.contains(qs(s.variant))) {
                view.variants << qs(s.variant);
            }
        }
    }
    for (const auto& p : report->points) {
        SweepPointView point{qs(p.value), p.runId, {}, {}, {}, {}, {}};
        for (const auto& v : view.variants) {
            const auto s = std::find_if(p.analysis.variants.begin(), p.analysis.variants.end(), [&](const auto& vs) {
                return qs(vs.variant) == v && vs.metric == report->metric;
            });
            const bool has = s != p.analysis.variants.end();
            point.mean.push_back(has ? s->summary.mean : NAN);
            point.ciLow.push_back(has ? s->ciLow : NAN);
            point.ciHigh.push_back(has ? s->ciHigh : NAN);
            SweepDifference d;
            for (const auto& c : p.analysis.comparisons) {
                if (!c.primary || c.metric != report->metric || qs(c.candidate) != v) {
                    continue;
                }
                view.baseline = qs(c.baseline);
                const auto& r = c.result;
                d = {.estimatePct = r.interval.estimatePct,
                     .ciLowPct = r.interval.ci.low,
                     .ciHighPct = r.interval.ci.high,
                     .levelPct = r.interval.level * 100,
                     .tostLowPct = r.tost.ci.low,
                     .tostHighPct = r.tost.ci.high,
                     .tostLevelPct = r.tost.level * 100,
                     .design = designName(r),
                     .verdict = qs(std::string(engine::toString(r.verdict)))};
                if (!view.designs.contains(d.design)) {
                    view.designs << d.design;
                }
                point.verdicts << qs(engine::verdictSentence(c, p.analysis.options.compare));
            }
            point.differences.push_back(d);
        }
        view.points.push_back(std::move(point));
    }
    if (view.points.empty()) {
        view.error = QObject::tr("sweep %1 has no complete point yet").arg(view.id);
    }
    return view;
}

std::vector<std::pair<QString, QString>> listSweeps(data::Database& db)
{
    std::vector<std::pair<QString, QString>> out;
    auto runs = data::listRuns(db);
    if (!runs) {
        return out;
    }
    std::map<std::string, int> points;
    for (const auto& r : *runs) {
        if (!r.sweepId.empty() && points[r.sweepId]++ == 0) {
            out.emplace_back(qs(r.sweepId), QString());
        }
    }
    for (auto& [id, text] : out) {
        for (const auto& r : *runs) {
            if (qs(r.sweepId) == id) {
                // Runs stored against points planned: a stopped sweep says how far it got.
                const int stored = points[r.sweepId];
                const QString count = r.sweepPoints > stored
                                          ? QObject::tr("%1 of %2 points").arg(stored).arg(r.sweepPoints)
                                      : stored == 1 ? QObject::tr("1 point")
                                                    : QObject::tr("%1 points").arg(stored);
                text = QObject::tr("%1: %2 over %3 (%4, %5)")
                           .arg(qs(r.startedAt.substr(0, 16)), qs(r.workload), qs(r.sweepParam), count, id);
                break;
            }
        }
    }
    return out;
}

}  // namespace nf::ui
