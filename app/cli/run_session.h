#pragma once
// Running an experiment from the command line: check it, record it, show progress, stop cleanly on
// SIGINT/SIGTERM, then hand the stored run to a report.

#include <functional>
#include <ostream>
#include <string>

#include "app/cli/cli.h"
#include "data/run_store.h"
#include "engine/model/experiment_spec.h"

namespace nf::cli {

using RunReport = std::function<void(const engine::RunRecord&, const std::string& dbPath)>;

// Prepares `spec` (bad input: exit 2, nothing stored), records the run in the database, and calls
// `report` with the stored run, even an aborted one. Returns the exit status: 0 complete, 1
// failed, 128 + signal when interrupted.
// With `events`, every run is also written there as JSON lines (docs/events.md), errors included.
int runAndReport(engine::ExperimentSpec spec, const Context& ctx, const RunReport& report,
                 std::ostream* events = nullptr);

// The points of a sweep: every spec is prepared before the first runs (one bad point: exit 2,
// nothing stored), then each runs and is reported in turn; a point that does not complete ends the
// sweep. Returns the exit status as runAndReport does.
int runAllAndReport(const std::vector<engine::ExperimentSpec>& specs, const Context& ctx, const RunReport& report,
                    std::ostream* events = nullptr);

}  // namespace nf::cli
