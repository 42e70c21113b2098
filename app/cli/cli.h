#pragma once
// The `noisefloor` command line: one CLI11 subcommand per command, each with its own options and
// an action run after parsing. Help text is generated from these definitions.

#include <CLI/CLI.hpp>
#include <functional>
#include <string>
#include <vector>

#include "database.h"

namespace nf::cli {

// Exit statuses: 0 ok, 1 runtime failure, 2 usage (bad input); 130/143 interrupted.
inline constexpr int kExitRuntime = 1;
inline constexpr int kExitUsage = 2;

struct Context {
    std::string dbPath;  // --db, else the default path
};

struct Command {
    CLI::App* app = nullptr;
    std::function<int()> action;
};

// Prints "noisefloor: <message>" on stderr and returns `status`.
int fail(int status, const std::string& message);

// Opens (and migrates, for writing) the database named by --db or the default.
Result<data::Database> openDatabase(const Context& ctx, data::Database::Mode mode);

Command addWorkloadsCommand(CLI::App& app);
Command addCheckCommand(CLI::App& app);
Command addRunCommand(CLI::App& app, Context& ctx);
Command addListCommand(CLI::App& app, Context& ctx);
Command addShowCommand(CLI::App& app, Context& ctx);
Command addExportCommand(CLI::App& app, Context& ctx);
Command addSelftestCommand(CLI::App& app);

}  // namespace nf::cli
