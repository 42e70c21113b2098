// The comparison of every point of a sweep, as `run --sweep` ends with and `compare --sweep` prints.

#include <iostream>

#include "app/cli/cli.h"
#include "app/cli/run_lookup.h"
#include "engine/catalog/workload_catalog.h"
#include "engine/report/evidence.h"
#include "engine/report/sweep_report.h"

namespace nf::cli {

namespace {

std::string sweepMetric(const engine::RunRecord& run, const std::vector<std::string>& metrics)
{
    if (!metrics.empty()) {
        return metrics.front();
    }
    if (const auto* workload = engine::findWorkload(run.row.workload)) {
        return workload->primaryMetric;
    }
    return run.data.layout.metrics.empty() ? "" : run.data.layout.metrics.front().name;
}

}  // namespace

int printSweepComparison(data::Database& db, const std::string& sweepId, const std::vector<std::string>& metrics,
                         const engine::AnalysisOptions& options, const std::string& format, std::ostream& out,
                         bool verbose)
{
    auto rows = data::sweepRuns(db, sweepId);
    if (!rows) {
        return failWith(rows.error());
    }
    engine::SweepReport report;
    report.id = sweepId;
    std::string simulated;  // a sweep measured with the simulated PMU says so first
    for (const auto& row : *rows) {
        report.workload = row.workload;
        report.param = row.sweepParam;
        if (row.status != engine::RunStatus::Complete) {
            report.missing.push_back(row.sweepValue + " (run " + std::to_string(row.id) + " " +
                                     std::string(engine::toString(row.status)) + ")");
            continue;
        }
        auto run = data::loadRun(db, row.id);
        if (!run) {
            return failWith(run.error());
        }
        if (report.metric.empty()) {
            report.metric = sweepMetric(*run, metrics);
        }
        if (run->spec.pmu.simulated) {
            simulated = engine::simulatedCountersNote(run->spec.pmu);
        }
        const bool interleaved = run->spec.interleaved();
        auto input = engine::analysisInput(run->data, interleaved, {report.metric});
        if (!input) {
            return failWith(usageError(input.error().message));
        }
        auto analysis = engine::analyze(*input, options);
        if (!analysis) {
            return failWith(usageError(analysis.error().message));
        }
        report.points.push_back({row.sweepValue, row.id, std::move(*analysis)});
    }
    if (report.points.empty()) {
        return failWith(Error{"sweep " + sweepId + " has no complete point to compare"});
    }
    if (format == "json") {
        auto json = engine::sweepJson(report);
        if (!simulated.empty()) {
            json[engine::kSimulatedCountersKey] = simulated;
        }
        out << json.dump(2) << '\n';
    } else if (format == "csv") {
        out << (simulated.empty() ? "" : "# " + simulated + "\n");
        engine::writeSweepCsv(report, out);
    } else {
        for (const auto& line : engine::wrap(simulated, 72, "  ")) {
            out << line << '\n';
        }
        engine::writeSweepText(report, out, verbose);
    }
    return 0;
}

}  // namespace nf::cli
