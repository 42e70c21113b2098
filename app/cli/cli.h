#pragma once
// The `noisefloor` command line: one CLI11 subcommand per command, each with its own options and
// an action run after parsing. Help text is generated from these definitions.

#include <CLI/CLI.hpp>
#include <functional>
#include <string>
#include <vector>

#include "data/database.h"
#include "data/run_store.h"
#include "engine/analysis/analysis.h"
#include "engine/report/evidence.h"

namespace nf::cli {

// Exit statuses: 0 ok, 1 runtime failure, 2 usage (bad input); 130/143 interrupted.
inline constexpr int kExitRuntime = 1;
inline constexpr int kExitUsage = 2;

struct Context {
    std::string dbPath;                // --db, else the default path
    std::string commandLine;           // as typed, recorded with every run
    bool stopWhenStdinCloses = false;  // run: the end of stdin stops the run (a front end over ssh)
};

struct Command {
    CLI::App* app = nullptr;
    std::function<int()> action;
    // SIGINT/SIGTERM are blocked from main()'s first line. A command that takes them (SignalStop:
    // stop cleanly, exit 128 + signal) keeps them blocked; for the others they are unblocked
    // before the action runs, so they act as usual (a pending one ends the process there).
    bool takesSignals = false;
};

// Prints "noisefloor: <message>" on stderr and returns `status`.
int fail(int status, const std::string& message);

// Opens (and migrates, for writing) the database named by --db or the default.
Result<data::Database> openDatabase(const Context& ctx, data::Database::Mode mode);

Command addWorkloadsCommand(CLI::App& app);
Command addCheckCommand(CLI::App& app);
Command addCleanupCommand(CLI::App& app);
Command addRunCommand(CLI::App& app, Context& ctx);
Command addListCommand(CLI::App& app, Context& ctx);
Command addShowCommand(CLI::App& app, Context& ctx);
Command addExportCommand(CLI::App& app, Context& ctx);
Command addSelftestCommand(CLI::App& app);
Command addCompareCommand(CLI::App& app, Context& ctx);
Command addStatCommand(CLI::App& app);
Command addCalibrateCommand(CLI::App& app, Context& ctx);
Command addImportCommand(CLI::App& app, Context& ctx);
Command addSeriesCommand(CLI::App& app, Context& ctx);
Command addGenerateCommand(CLI::App& app);
Command addMergeCommand(CLI::App& app, Context& ctx);
Command addDeleteCommand(CLI::App& app, Context& ctx);
Command addCampaignCommand(CLI::App& app, Context& ctx);
Command addSizeCommand(CLI::App& app, Context& ctx);
Command addLavaCommand(CLI::App& app, Context& ctx);

// The evidence in `format` (text, json or csv); returns the exit status.
int printEvidence(const engine::Analysis& analysis, const engine::EvidenceContext& context, const std::string& format,
                  std::ostream& out);
// One run's variants compared, as `compare RUN` prints it.
int printRunComparison(const engine::RunRecord& run, const std::vector<std::string>& metrics,
                       const engine::AnalysisOptions& options, const std::string& format, std::ostream& out);
// Every point of sweep `sweepId` compared, one table (text), or JSON/CSV; returns the exit status.
int printSweepComparison(data::Database& db, const std::string& sweepId, const std::vector<std::string>& metrics,
                         const engine::AnalysisOptions& options, const std::string& format, std::ostream& out,
                         bool verbose = false);
// --baseline, --alpha, --margin, --target, --drop-outliers, --no-holm.
void addAnalysisOptions(CLI::App* sub, engine::AnalysisOptions& options, bool& noHolm);
// Every analysis option in its range (NaN is in none); the error names the option and its value.
Result<void> validateAnalysisOptions(const engine::AnalysisOptions& options);

}  // namespace nf::cli
