// The comparison of every point of a sweep, as `run --sweep` ends with and `compare --sweep` prints.

#include <iostream>

#include "app/cli/cli.h"
#include "app/cli/run_lookup.h"
#include "engine/report/evidence.h"
#include "engine/report/sweep_report.h"

namespace nf::cli {

int printSweepComparison(data::Database& db, const std::string& sweepId, const std::vector<std::string>& metrics,
                         const engine::AnalysisOptions& options, const std::string& format, std::ostream& out,
                         bool verbose)
{
    auto rows = data::sweepRuns(db, sweepId);
    if (!rows) {
        return failWith(rows.error());
    }
    // A run that cannot be read is a runtime failure; one that cannot be analysed is bad input
    // (a metric it did not measure, too few repetitions).
    bool loadFailed = false;
    auto report = engine::compareSweep(
        sweepId, *rows,
        [&](std::int64_t id) {
            auto run = data::loadRun(db, id);
            loadFailed = !run;
            return run;
        },
        metrics, options);
    if (!report) {
        return failWith(loadFailed ? report.error() : usageError(report.error().message));
    }
    if (report->points.empty()) {
        return failWith(Error{"sweep " + sweepId + " has no complete point to compare"});
    }
    const std::string& simulated = report->simulated;  // a sweep measured with the simulated PMU says so first
    if (format == "json") {
        auto json = engine::sweepJson(*report);
        if (!simulated.empty()) {
            json[engine::kSimulatedCountersKey] = simulated;
        }
        out << json.dump(2) << '\n';
    } else if (format == "csv") {
        out << (simulated.empty() ? "" : "# " + simulated + "\n");
        engine::writeSweepCsv(*report, out);
    } else {
        for (const auto& line : engine::wrap(simulated, 72, "  ")) {
            out << line << '\n';
        }
        engine::writeSweepText(*report, out, verbose);
    }
    return 0;
}

}  // namespace nf::cli
