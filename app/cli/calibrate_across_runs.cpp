// noisefloor calibrate --across-runs: A/A as separate runs under one label (one run per call, or
// after each boot), and from all of them the machine's run-to-run noise floor per metric, stored
// (schema migration 4) for cross-run comparisons with one run per side. calibrate --layout: code
// layout's spread between a baseline build and its rebuild, from their stored runs, stored beside
// them for cross-build comparisons without a placebo.

#include <fmt/format.h>
#include <cmath>
#include <iostream>
#include <set>

#include "app/cli/calibrate_across_runs.h"
#include "app/cli/run_lookup.h"
#include "app/cli/run_session.h"
#include "data/noise_floor_store.h"
#include "engine/analysis/across_runs.h"
#include "engine/analysis/chunk_cut.h"
#include "engine/report/comparison_report.h"
#include "engine/report/text_table.h"

namespace nf::cli {

namespace {

struct Floor {
    data::StoredNoiseFloor stored;
    double runMeanCv = 0;  // SD of the run means over their mean
};

// The floors of every metric from the runs under `label` of this workload and host.
Result<std::vector<Floor>> floorsOf(data::Database& db, const engine::RunRecord& last)
{
    auto runs = NF_TRY(loadRunsWithLabel(db, last.row.label));
    std::vector<const engine::RunRecord*> same;
    for (const auto& r : runs) {
        if (r.row.workload == last.row.workload && r.row.host == last.row.host && r.data.variantNames.size() == 1) {
            same.push_back(&r);
        }
    }
    std::vector<Floor> out;
    for (const auto& metric : last.data.layout.metrics) {
        if (!metric.aliasOf.empty()) {
            continue;
        }
        std::vector<engine::RunValues> values;
        std::set<std::string> boots;
        std::string ids;
        double within = 0;
        std::vector<double> means;
        for (const auto* r : same) {
            const auto& ms = r->data.layout.metrics;
            const auto it = std::find_if(ms.begin(), ms.end(), [&](const auto& m) { return m.name == metric.name; });
            if (it == ms.end()) {
                continue;
            }
            auto v = engine::repetitionValues(r->data, engine::chunkCut(r->data), 0, *it);
            std::erase_if(v, [](double x) { return !std::isfinite(x); });
            if (v.size() < 2) {
                continue;
            }
            const double s = engine::stddev(v);
            within += s * s;
            means.push_back(engine::mean(v));
            values.push_back({r->row.bootId, std::move(v)});
            boots.insert(r->row.bootId);
            ids += (ids.empty() ? "" : ",") + std::to_string(r->row.id);
        }
        if (values.size() < 2) {
            continue;
        }
        const double scale = std::fabs(engine::mean(means));
        if (!(scale > 0)) {
            continue;
        }
        const double between = engine::betweenRunVariance(values, scale);
        Floor f;
        f.stored = {.id = 0,
                    .createdAt = {},
                    .label = last.row.label,
                    .workload = last.row.workload,
                    .host = last.row.host,
                    .metric = metric.name,
                    .runs = static_cast<int>(values.size()),
                    .boots = static_cast<int>(boots.size()),
                    .betweenCv = std::sqrt(between),
                    .withinCv = std::sqrt(within / static_cast<double>(values.size())) / scale,
                    .runIds = ids};
        f.runMeanCv = engine::stddev(means) / scale;
        out.push_back(std::move(f));
    }
    return out;
}

void reportFloors(const engine::RunRecord& run, const Context& ctx, const std::string& format)
{
    auto db = openDatabase(ctx, data::Database::Mode::ReadWrite);
    if (!db) {
        fail(kExitRuntime, db.error().message);
        return;
    }
    auto floors = floorsOf(*db, run);
    if (!floors) {
        fail(kExitRuntime, floors.error().message);
        return;
    }
    for (auto& f : *floors) {
        auto id = data::storeNoiseFloor(*db, f.stored);
        if (!id) {
            fail(kExitRuntime, "cannot store the noise floor: " + id.error().message);
            return;
        }
        f.stored.id = *id;
    }
    if (format == "json") {
        nlohmann::json rows = nlohmann::json::array();
        for (const auto& f : *floors) {
            rows.push_back({{"metric", f.stored.metric},
                            {"runs", f.stored.runs},
                            {"boots", f.stored.boots},
                            {"between_run_cv", f.stored.betweenCv},
                            {"within_run_cv", f.stored.withinCv},
                            {"run_mean_cv", f.runMeanCv},
                            {"run_ids", f.stored.runIds}});
        }
        std::cout << nlohmann::json{{"run", run.row.id}, {"label", run.row.label}, {"floors", rows}}.dump(2) << '\n';
        return;
    }
    std::cout << fmt::format("\nrun {} stored under label '{}' ({})\n", run.row.id, run.row.label, run.row.workload);
    if (floors->empty()) {
        std::cout << "one run so far: run noisefloor calibrate --across-runs again (after a reboot, to count\n"
                     "the boots) with the same label; the run-to-run floor needs at least 2 runs\n";
        return;
    }
    std::cout << fmt::format("run-to-run noise floor from {} runs in {} boots (stored for cross-run compare)\n",
                             floors->front().stored.runs, floors->front().stored.boots);
    engine::TextTable table({"  metric", ">between runs", ">within a run", ">run means"});
    for (const auto& f : *floors) {
        table.addRow({"  " + f.stored.metric, fmt::format("{:.3f}%", f.stored.betweenCv * 100),
                      fmt::format("{:.3f}%", f.stored.withinCv * 100), fmt::format("{:.3f}%", f.runMeanCv * 100)});
    }
    table.write(std::cout);
    std::cout << "  (CV: run-to-run SD beyond the repetitions' noise; SD of one repetition in a run;\n"
                 "  SD of the run means)\n";
}

// The floors calibrate --layout stores, one per metric with a spread.
struct LayoutCalibration {
    std::vector<data::LayoutFloorRecord> floors;
    std::vector<engine::RunRecord> runs;  // both labels'
};

Result<LayoutCalibration> layoutCalibration(data::Database& db, const std::string& baseline, const std::string& placebo)
{
    LayoutCalibration out;
    auto base = NF_TRY(loadRunsWithLabel(db, baseline));
    auto rebuilt = loadRunsWithLabel(db, placebo);
    if (!rebuilt) {
        return usageError("--placebo " + placebo + ": no complete run with that label in " + db.path());
    }
    const auto& first = base.front().row;
    for (const auto& r : *rebuilt) {
        if (r.row.workload != first.workload || r.row.host != first.host) {
            return usageError(fmt::format("--placebo {}: run {} is {} on host '{}', the baseline's runs {} on '{}'",
                                          placebo, r.row.id, r.row.workload, r.row.host, first.workload, first.host));
        }
    }
    engine::LabelChoice b{baseline, {}, {}};
    engine::LabelChoice p{placebo, {}, {}};
    for (const auto& r : base) {
        b.runs.push_back(&r);
    }
    for (const auto& r : *rebuilt) {
        p.runs.push_back(&r);
    }
    const auto floors = NF_TRY(engine::placeboFloors(b, {p}, {}));
    std::set<std::string> boots;
    std::string ids;
    for (const auto* r : {&base, &*rebuilt}) {
        for (const auto& run : *r) {
            boots.insert(run.row.bootId);
            ids += (ids.empty() ? "" : ",") + std::to_string(run.row.id);
        }
    }
    const auto runs = static_cast<int>(base.size() + rebuilt->size());
    for (const auto& [metric, floor] : floors) {
        out.floors.push_back({.baseline = baseline,
                              .placebo = placebo,
                              .workload = first.workload,
                              .host = first.host,
                              .metric = metric,
                              .runs = runs,
                              .boots = static_cast<int>(boots.size()),
                              .spreadCv = floor.spreadCv,
                              .runIds = ids});
    }
    out.runs = std::move(base);
    return out;
}

}  // namespace

int calibrateLayout(const std::string& baseline, const std::string& placebo, const std::string& format,
                    const Context& ctx)
{
    if (baseline.empty()) {
        return fail(kExitUsage, "calibrate --layout takes --label BASELINE and --placebo LABEL (its rebuild)");
    }
    if (placebo.empty() || placebo == baseline) {
        return fail(kExitUsage, "calibrate --layout --label " + baseline +
                                    " takes --placebo LABEL: the runs of a rebuild of it that changes only code "
                                    "layout (docs/workflows.md)");
    }
    auto db = openDatabase(ctx, data::Database::Mode::ReadWrite);
    if (!db) {
        return fail(kExitRuntime, db.error().message);
    }
    auto cal = layoutCalibration(*db, baseline, placebo);
    if (!cal) {
        return failWith(cal.error());
    }
    for (const auto& f : cal->floors) {
        if (auto id = data::storeLayoutFloor(*db, f); !id) {
            return fail(kExitRuntime, "cannot store the layout floor: " + id.error().message);
        }
    }
    const auto& first = cal->runs.front().row;
    if (format == "json") {
        nlohmann::json rows = nlohmann::json::array();
        for (const auto& f : cal->floors) {
            rows.push_back({{"metric", f.metric}, {"layout_spread_pct", f.spreadCv * 100}, {"runs", f.runs}});
        }
        std::cout << nlohmann::json{{"baseline", baseline},
                                    {"placebo", placebo},
                                    {"workload", first.workload},
                                    {"host", first.host},
                                    {"floors", rows}}
                         .dump(2)
                  << '\n';
        return 0;
    }
    std::cout << fmt::format(
        "code layout floor of {} from {} against its rebuild {} ({} runs; stored for cross-build "
        "compare)\n",
        first.workload, baseline, placebo, cal->floors.empty() ? 0 : cal->floors.front().runs);
    engine::TextTable table({"  metric", ">layout spread"});
    for (const auto& f : cal->floors) {
        table.addRow({"  " + f.metric, fmt::format("+-{:.3f}%", f.spreadCv * 100)});
    }
    table.write(std::cout);
    std::cout << "  (the difference between the two builds of the same code, over the baseline's mean: one\n"
                 "  rebuild is one draw of layout, 1 degree of freedom)\n";
    return 0;
}

int calibrateAcrossRuns(RunOptions& run, int runs, const std::string& format, const Context& ctx)
{
    run.variants = {"a"};
    if (run.spec.label.empty()) {
        run.spec.label = "calibrate-runs";
    }
    auto spec = buildSpec(run);
    if (!spec) {
        return fail(kExitUsage, spec.error().message);
    }
    if (runs < 1) {
        return fail(kExitUsage, "--runs " + std::to_string(runs) + ": at least 1");
    }
    const std::vector<engine::ExperimentSpec> specs(static_cast<std::size_t>(runs), *spec);
    return runAllAndReport(specs, ctx, [&](const engine::RunRecord& stored, const std::string&) {
        if (stored.row.status == engine::RunStatus::Complete) {
            reportFloors(stored, ctx, format);
        }
    });
}

}  // namespace nf::cli
