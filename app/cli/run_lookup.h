#pragma once
// Finding stored runs from the command line: RUN is an id or "last"; --label picks the newest run
// with that label. Errors made of bad input are usage errors (exit status 2).

#include <cstdint>
#include <string>

#include "app/cli/cli.h"
#include "data/run_store.h"

namespace nf::cli {

std::string databasePath(const Context& ctx);

// An Error that means bad input; failWith() turns it into exit status 2 (else 1).
Error usageError(std::string message);
int failWith(const Error& error);

// Opens the database read-only; fails plainly when the file does not exist.
Result<data::Database> openExisting(const Context& ctx);

// RUN: a run id, or "last" for the newest run.
Result<engine::RunRecord> loadNamedRun(data::Database& db, const std::string& name);
Result<engine::RunRecord> loadRunWithLabel(data::Database& db, const std::string& label);
// Every complete run with that label, oldest first; a usage error when there is none.
Result<std::vector<engine::RunRecord>> loadRunsWithLabel(data::Database& db, const std::string& label);

}  // namespace nf::cli
