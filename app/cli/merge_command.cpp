// Runs as databases: `noisefloor export RUN --format sqlite` writes a one-run database (to a new
// file, or to stdout for `ssh dut noisefloor export 7 --format sqlite > run7.db`), and
// `noisefloor merge FILE [--run N]...` copies the runs of another database into this one, so a run
// measured on a device under test or a lab machine is compared, reported and plotted here.

#include <unistd.h>

#include <filesystem>
#include <fstream>
#include <iostream>
#include <memory>

#include "app/cli/cli.h"
#include "app/cli/run_database.h"
#include "app/cli/run_lookup.h"
#include "app/cli/signal_stop.h"
#include "app/cli/terminal_text.h"
#include "data/private_dir.h"
#include "data/run_copy.h"
#include "data/run_store.h"
#include "data/schema.h"

namespace nf::cli {

namespace {

struct MergeArgs {
    std::string file;
    std::vector<std::int64_t> runs;
    std::string origin;
};

// The file is a noisefloor database this build reads, and holds every run asked for.
Result<void> checkSource(const MergeArgs& a)
{
    auto src = NF_TRY(data::openStore(a.file, data::Database::Mode::ReadOnly));
    for (const auto id : a.runs) {
        auto stmt = NF_TRY(src.prepare("SELECT 1 FROM runs WHERE id = ?1"));
        stmt.bind(1, id);
        auto row = NF_TRY(stmt.step());
        if (!row) {
            return Error{a.file + " has no run " + std::to_string(id)};
        }
    }
    return {};
}

int merge(const MergeArgs& a, const Context& ctx)
{
    SignalStop signals;  // the copy is one transaction: a signal before its commit stores nothing
    std::error_code ec;
    if (!std::filesystem::is_regular_file(a.file, ec)) {
        return failWith(usageError(a.file + ": no such database file"));
    }
    if (std::filesystem::equivalent(a.file, databasePath(ctx), ec)) {
        return failWith(usageError(a.file + ": is the database runs are merged into"));
    }
    // What is wrong with the file or the runs asked for is bad input; what fails while copying is not.
    if (auto checked = checkSource(a); !checked) {
        return failWith(usageError(checked.error().message));
    }
    auto db = openDatabase(ctx, data::Database::Mode::ReadWrite);
    if (!db) {
        return failWith(db.error());
    }
    const std::string origin = a.origin.empty() ? std::filesystem::absolute(a.file).string() : a.origin;
    auto copied = data::copyRuns(*db, a.file, a.runs, origin, signals.token());
    if (!copied) {
        if (const int sig = signals.signal().load(); sig != 0) {
            return fail(signals.exitStatus(), "merge interrupted by " + signalName(sig) + "; nothing was stored");
        }
        return fail(kExitRuntime, copied.error().message);
    }
    noteStored("the runs of " + a.file + " were already stored");
    for (const auto& c : *copied) {
        if (c.id != 0) {
            std::cout << "run " << c.sourceId << " of " << a.file << " merged as run " << c.id << '\n';
        } else {
            std::cout << "run " << c.sourceId << " of " << a.file << " not merged: " << c.skipped << '\n';
        }
    }
    if (signals.exitStatus() != 0) {
        return fail(signals.exitStatus(),
                    "merge: " + signalName(signals.signal().load()) + " arrived after the runs were stored");
    }
    return 0;
}

}  // namespace

int exportRunDatabase(data::Database& db, std::int64_t id, const std::string& file, const SignalStop& signals,
                      const std::optional<std::pair<std::string, nlohmann::json>>& section)
{
    const bool toStdout = file.empty() || file == "-";
    std::error_code ec;
    if (!toStdout && std::filesystem::exists(file, ec)) {
        return failWith(usageError("-o " + file + ": exists; a run database is written only to a new file"));
    }
    // SQLite writes by name: the database is made in a private directory (mkdtemp, 0700; in the
    // temporary directory for stdout, beside the target otherwise), removed with all in it on every path.
    auto dir = toStdout ? data::PrivateDir::createTemporary("noisefloor-export")
                        : data::PrivateDir::create(std::filesystem::absolute(file).parent_path(), ".noisefloor-export");
    if (!dir) {
        return failWith(dir.error());
    }
    const std::string temporary = dir->file("run.db");
    if (auto written = data::writeRunDatabase(db, id, temporary); !written) {
        return fail(kExitRuntime, "cannot write the run database: " + written.error().message);
    }
    if (section) {
        auto amended = [&]() -> Result<void> {
            auto copy = NF_TRY(data::openStore(temporary));
            const auto only = NF_TRY(copy.queryOne<std::int64_t>("SELECT id FROM runs"));
            NF_TRY(data::setEnvironmentSection(copy, only.value_or(0), section->first, section->second));
            return copy.exec("PRAGMA journal_mode = DELETE");
        }();
        if (!amended) {
            return fail(kExitRuntime, "cannot write the run database: " + amended.error().message);
        }
    }
    if (const int sig = signals.signal().load(); sig != 0) {
        return fail(signals.exitStatus(),
                    "export interrupted by " + signalName(sig) + "; " +
                        (toStdout ? std::string("nothing was written") : file + " was not written"));
    }
    if (!toStdout) {
        std::filesystem::rename(temporary, file, ec);
        if (ec) {
            return fail(kExitRuntime, "cannot write " + file + ": " + ec.message());
        }
        noteStored(file + " was already written");
        return 0;
    }
    TerminalGuard::exactOutput();  // bytes, as they are
    std::ifstream in(temporary, std::ios::binary);
    dir->remove();  // open: read to its end, and gone even if the reader goes first
    std::cout << in.rdbuf();
    std::cout.flush();
    const bool ok = static_cast<bool>(in) && static_cast<bool>(std::cout);
    noteStored("the export was already written whole");
    return ok ? 0 : fail(kExitRuntime, "writing the run database to standard output failed");
}

Command addDeleteCommand(CLI::App& app, Context& ctx)
{
    auto id = std::make_shared<std::int64_t>(0);
    auto* sub = app.add_subcommand("delete",
                                   "Delete a run and every row of it (samples, repetitions, summaries, ...) in one "
                                   "transaction; a run still running is refused");
    sub->add_option("run", *id, "Run id")->required()->check(CLI::PositiveNumber);
    return {sub, [id, &ctx] {
                if (auto existing = openExisting(ctx); !existing) {  // never creates a database
                    return failWith(existing.error());
                }
                auto db = openDatabase(ctx, data::Database::Mode::ReadWrite);
                if (!db) {
                    return failWith(db.error());
                }
                if (auto deleted = data::deleteRun(*db, *id); !deleted) {
                    return fail(kExitRuntime, deleted.error().message);
                }
                std::cout << "run " << *id << " deleted from " << db->path() << '\n';
                return 0;
            }};
}

Command addMergeCommand(CLI::App& app, Context& ctx)
{
    auto a = std::make_shared<MergeArgs>();
    auto* sub = app.add_subcommand("merge",
                                   "Copy the runs of another noisefloor database into this one (e.g. a run "
                                   "database exported on a device under test)");
    sub->add_option("file", a->file, "The database to copy from (only read; an older one is upgraded in a copy)")
        ->required();
    sub->add_option("--run", a->runs, "Copy only this run of FILE (repeatable; default: every run)")
        ->check(CLI::PositiveNumber);
    sub->add_option("--origin", a->origin, "Where the runs come from, stored with each (default: FILE's path)");
    sub->footer(
        "A run still running in FILE, or one already here (same start, host, workload, label and spec), "
        "is not copied and said so. All runs are copied in one transaction, or none.");
    return {sub, [a, &ctx] { return merge(*a, ctx); }, true};
}

}  // namespace nf::cli
