#include "ui/sweep_view.h"

#include <QObject>

#include <algorithm>
#include <cmath>
#include <map>

#include "data/run_store.h"
#include "engine/analysis/analysis.h"
#include "engine/catalog/workload_catalog.h"
#include "engine/report/evidence.h"

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
    std::string name = metric;
    for (const auto& row : *rows) {
        view.workload = qs(row.workload);
        view.param = qs(row.sweepParam);
        if (row.status != engine::RunStatus::Complete) {
            view.missing << QObject::tr("%1 (run %2 %3)")
                                .arg(qs(row.sweepValue))
                                .arg(row.id)
                                .arg(qs(std::string(engine::toString(row.status))));
            continue;
        }
        auto run = data::loadRun(db, row.id);
        if (!run) {
            view.error = qs(run.error().message);
            return view;
        }
        if (name.empty()) {
            const auto* w = engine::findWorkload(row.workload);
            name = w != nullptr ? w->primaryMetric : run->data.layout.metrics.front().name;
        }
        const bool interleaved = run->spec.interleaved();
        auto input = engine::analysisInput(run->data, interleaved, {name});
        if (!input) {
            view.missing << QObject::tr("%1 (%2)").arg(qs(row.sweepValue), qs(input.error().message));
            continue;
        }
        auto analysis = engine::analyze(*input, {});
        if (!analysis) {
            view.missing << QObject::tr("%1 (%2)").arg(qs(row.sweepValue), qs(analysis.error().message));
            continue;
        }
        view.metric = qs(name);
        view.unit = qs(input->metrics.front().unit);
        view.higherIsBetter = input->metrics.front().higherIsBetter;
        if (view.variants.isEmpty()) {
            for (const auto& v : input->variants) {
                view.variants << qs(v);
            }
        }
        SweepPointView point{qs(row.sweepValue), row.id, {}, {}, {}, {}};
        for (const auto& v : view.variants) {
            auto it = std::find_if(analysis->variants.begin(), analysis->variants.end(),
                                   [&](const engine::VariantStats& s) { return qs(s.variant) == v; });
            point.mean.push_back(it != analysis->variants.end() ? it->summary.mean : NAN);
            point.ciLow.push_back(it != analysis->variants.end() ? it->ciLow : NAN);
            point.ciHigh.push_back(it != analysis->variants.end() ? it->ciHigh : NAN);
        }
        for (const auto& c : analysis->comparisons) {
            if (c.primary) {
                point.verdicts << qs(engine::verdictSentence(c, analysis->options.compare));
            }
        }
        view.points.push_back(std::move(point));
    }
    if (view.points.empty() && view.error.isEmpty()) {
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
                text = QObject::tr("%1: %2 over %3 (%4 points, %5)")
                           .arg(qs(r.startedAt.substr(0, 16)), qs(r.workload), qs(r.sweepParam))
                           .arg(points[r.sweepId])
                           .arg(id);
                break;
            }
        }
    }
    return out;
}

}  // namespace nf::ui
