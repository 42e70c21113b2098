// noisefloor: the headless front end. Parses the command line and runs one command.

#include <pthread.h>
#include <sys/prctl.h>
#include <unistd.h>

#include <algorithm>
#include <csignal>
#include <cstdlib>
#include <iostream>
#include <string>

#include "app/cli/cli.h"
#include "app/cli/run_lookup.h"
#include "app/cli/signal_stop.h"
#include "app/cli/terminal_text.h"
#include "data/schema.h"
#include "engine/report/evidence_context.h"
#include "nf_version.h"

namespace nf::cli {

int fail(int status, const std::string& message)
{
    std::cerr << "noisefloor: " << terminalText(message) << '\n';  // one line, whatever it quotes
    return status;
}

Result<data::Database> openDatabase(const Context& ctx, data::Database::Mode mode)
{
    return data::openStore(databasePath(ctx), mode);
}

}  // namespace nf::cli

namespace {

// SIGINT, SIGTERM and SIGHUP (those not ignored from the start), blocked (pending) until the
// command decides what they do; see Command.
sigset_t stopSignals()
{
    return nf::cli::stopSignalSet();
}

// A signal the command did not act on: one its SignalStop took while it was being torn down, or
// one that came after (they stay blocked, so it is pending). It still ends the process as
// interrupted, saying what was already stored. From here to exit a stop signal is answered the
// same way by a handler: nothing is left to undo, and a blocked one would be lost at exit.
int withLateSignal(int status)
{
    const sigset_t set = stopSignals();
    const timespec now{0, 0};
    const int pending = sigtimedwait(&set, nullptr, &now);
    const std::string stored = nf::cli::storedNote();
    const auto interrupted = [&](int sig) {
        return "interrupted by " + nf::cli::signalName(sig) +
               (stored.empty() ? " as the command finished" : "; " + stored);
    };
    if (status == 0) {
        const int sig = nf::cli::takenStopSignal() != 0 ? nf::cli::takenStopSignal() : pending;
        if (sig > 0) {
            return nf::cli::fail(128 + sig, interrupted(sig));
        }
    }
    if (pending <= 0) {
        nf::cli::answerLateSignals(
            set, [&](int sig) { return "noisefloor: " + nf::cli::terminalText(interrupted(sig)) + "\n"; });
    }
    return status;
}

int runMain(int argc, char** argv)
{
    using namespace nf::cli;
    CLI::App app{
        "noisefloor: an A/B performance lab for Linux networking code.\n"
        "Runs variants of a workload interleaved on pinned cores, reads counters, stores every sample "
        "in SQLite and summarises each metric per variant.",
        "noisefloor"};
    app.set_version_flag("--version", NF_VERSION);
    app.require_subcommand(1);
    app.fallthrough();
    Context ctx;
    ctx.commandLine = "noisefloor";
    for (int i = 1; i < argc; ++i) {
        ctx.commandLine += " " + nf::engine::shellQuote(argv[i]);
    }
    app.add_option("--db", ctx.dbPath,
                   "SQLite database (default: $NOISEFLOOR_DB, else "
                   "$XDG_DATA_HOME/noisefloor/runs.db)");
    std::string expectVersion;
    app.add_option("--expect-version", expectVersion,
                   "Refuse to do anything unless this is noisefloor VERSION (a front end on another host)");

    std::vector<Command> commands = {
        addRunCommand(app, ctx),       addListCommand(app, ctx),     addShowCommand(app, ctx),
        addExportCommand(app, ctx),    addCompareCommand(app, ctx),  addStatCommand(app),
        addCalibrateCommand(app, ctx), addWorkloadsCommand(app),     addCheckCommand(app),
        addSelftestCommand(app),       addCleanupCommand(app),       addImportCommand(app, ctx),
        addSeriesCommand(app, ctx),    addGenerateCommand(app),      addMergeCommand(app, ctx),
        addDeleteCommand(app, ctx),    addCampaignCommand(app, ctx), addSizeCommand(app, ctx),
        addLavaCommand(app, ctx),
    };
    std::string names;
    for (const auto& c : commands) {
        names += (names.empty() ? "" : ", ") + c.app->get_name();
    }
    // The first word that is not an option (or --db's value) names the command.
    for (int i = 1; i < argc; ++i) {
        const std::string word = argv[i];
        if (word == "--db" || word == "--expect-version") {
            ++i;
        } else if (word.rfind('-', 0) != 0) {
            const bool known = std::any_of(commands.begin(), commands.end(),
                                           [&](const Command& c) { return c.app->get_name() == word; });
            if (!known) {
                std::string message = "unknown command '" + word + "' (commands: " + names + ")";
                return fail(kExitUsage, message);
            }
            break;
        }
    }
    try {
        app.parse(argc, argv);
    } catch (const CLI::CallForHelp& e) {
        return app.exit(e);
    } catch (const CLI::CallForAllHelp& e) {
        return app.exit(e);
    } catch (const CLI::CallForVersion& e) {
        return app.exit(e);
    } catch (const CLI::ParseError& e) {
        std::string where;
        for (const auto* sub : app.get_subcommands()) {
            where = " " + sub->get_name();
        }
        return fail(kExitUsage, std::string(e.what()) + " (see 'noisefloor" + where + " --help')");
    }
    if (!expectVersion.empty() && expectVersion != NF_VERSION) {
        char host[256] = {};
        (void)::gethostname(host, sizeof host - 1);
        return fail(kExitRuntime, std::string("this is noisefloor ") + NF_VERSION + " on " + host +
                                      ", the caller runs " + expectVersion +
                                      " (install the same version on both hosts)");
    }
    for (const auto& c : commands) {
        if (c.app->parsed()) {
            if (c.takesSignals) {
                return withLateSignal(c.action());
            }
            // A command that does not stop cleanly by itself (it only reads) ends at a signal with
            // the one line and 128 + the signal.
            int status = 0;
            {
                const SignalExit exitOnSignal;
                status = c.action();
            }
            return withLateSignal(status);
        }
    }
    return fail(kExitUsage, "no command given (see 'noisefloor --help')");
}

}  // namespace

int main(int argc, char** argv)
{
    // Before anything else, so that a signal at any moment of `run` is taken by its SignalStop
    // rather than ending the process half-way through its start.
    const sigset_t stops = stopSignals();
    pthread_sigmask(SIG_BLOCK, &stops, nullptr);
    // A file past `ulimit -f` is an EFBIG error to report, not a death without a line.
    (void)signal(SIGXFSZ, SIG_IGN);
    // A campaign's step stops (SIGTERM, taken like any) when its campaign next is gone, rather than
    // store runs under a boot nobody counts.
    if (const char* parent = std::getenv("NOISEFLOOR_CAMPAIGN_PID"); parent != nullptr) {
        (void)::prctl(PR_SET_PDEATHSIG, SIGTERM);
        if (std::to_string(::getppid()) != parent) {
            (void)::kill(::getpid(), SIGTERM);
        }
    }
    nf::cli::TerminalGuard terminal;  // control characters in text output are escaped
    try {
        return runMain(argc, argv);
    } catch (const std::exception& e) {
        return nf::cli::fail(nf::cli::kExitRuntime, std::string("internal error: ") + e.what());
    }
}
