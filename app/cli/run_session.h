#pragma once
// Running an experiment from the command line: check it, record it, show progress, stop cleanly on
// SIGINT/SIGTERM, then hand the stored run to a report.

#include <functional>
#include <ostream>
#include <string>

#include "cli.h"
#include "experiment_spec.h"
#include "run_store.h"

namespace nf::cli {

// Prepares `spec` (bad input: exit 2, nothing stored), records the run in the database, and calls
// `report` with the stored run, even an aborted one. Returns the exit status: 0 complete, 1
// failed, 128 + signal when interrupted. With `events`, the run is also written there as JSON lines
// (docs/events.md), errors included.
int runAndReport(engine::ExperimentSpec spec, const Context& ctx,
                 const std::function<void(const data::StoredRun&, const std::string& dbPath)>& report,
                 std::ostream* events = nullptr);

}  // namespace nf::cli
