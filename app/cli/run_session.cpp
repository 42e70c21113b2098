#include "app/cli/run_session.h"

#include "app/cli/run_options.h"
#include "engine/workloads/registry.h"

#include <unistd.h>

#include <csignal>
#include <cstdio>
#include <iostream>
#include <optional>

#include "app/cli/event_stream.h"
#include "app/cli/signal_stop.h"
#include "app/cli/terminal_text.h"
#include "base/system_facts.h"
#include "engine/run/scheduler.h"

namespace nf::cli {

namespace {

// Records the run and shows progress and warnings on the terminal.
class CliObserver : public engine::RunObserver {
public:
    explicit CliObserver(data::RunRecorder& recorder) : m_recorder(recorder), m_tty(isatty(STDERR_FILENO) == 1) {}

    Result<void> runStarted(const engine::RunStart& start) override { return m_recorder.runStarted(start); }
    Result<void> repetitionFinished(const engine::RepetitionResult& rep) override
    {
        return m_recorder.repetitionFinished(rep);
    }
    void warning(std::string_view text) override
    {
        clearProgress();
        std::cerr << "noisefloor: warning: " << terminalText(text) << '\n';
        m_recorder.warning(text);
    }
    void progress(int done, int total, double secondsLeft) override
    {
        if (m_tty) {
            (void)std::fprintf(stderr, "\r  repetition %d of %d, %.1f s left   ", done, total, secondsLeft);
            m_progressShown = true;
        }
    }
    Result<void> decisionLook(const engine::DecisionLook& look) override { return m_recorder.decisionLook(look); }
    Result<void> decisionMade(const engine::DecisionRecord& record) override { return m_recorder.decisionMade(record); }
    Result<void> profileMeasured(const engine::ProfileSummary& soFar, const engine::RepetitionProfile& profile) override
    {
        return m_recorder.profileMeasured(soFar, profile);
    }
    Result<void> profileFinished(const engine::ProfileSummary& summary) override
    {
        return m_recorder.profileFinished(summary);
    }
    void runFinished(engine::RunStatus status, std::string_view reason) override
    {
        clearProgress();
        m_recorder.runFinished(status, reason);
    }

private:
    void clearProgress()
    {
        if (m_progressShown) {
            (void)std::fprintf(stderr, "\r%60s\r", "");
            m_progressShown = false;
        }
    }
    data::RunRecorder& m_recorder;
    bool m_tty;
    bool m_progressShown = false;
};

// Prints the error on stderr and, with an event stream, as an error event (none after a run's
// `finished`, which already says how it ended); returns `status`.
int failRun(EventSink* events, EventStream* stream, int status, const std::string& message)
{
    if (stream != nullptr) {
        stream->error(message, status);
    } else if (events != nullptr) {
        (void)events->write(
            nlohmann::json{{"event", "error"}, {"run", 0}, {"message", message}, {"exit_status", status}}.dump());
    }
    return fail(status, message);
}

// Runs one prepared experiment into `db` and reports it; returns the exit status.
int runOne(const engine::PreparedExperiment& prepared, data::Database& db, const Context& ctx, SignalStop& signals,
           const RunReport& report, EventSink* events, std::int64_t& runId)
{
    data::RunRecorder recorder(db);
    CliObserver cliObserver(recorder);
    engine::RunObserver* observer = &cliObserver;
    std::optional<EventStream> stream;
    if (events != nullptr) {
        stream.emplace(cliObserver, *events, db.path());
        stream->setRunId([&recorder] { return recorder.runId(); });
        stream->setOnBroken([&signals, events](const std::string& why) {
            // A reader that closed its end is said by the run's own line (aborted: SIGPIPE); one
            // that stalled gets a line of its own. A SIGTERM that came first stays the reason.
            if (signals.signal().load() == 0 && !events->readerGone()) {
                (void)fail(0, "warning: the event stream is lost (" + why + "); stopping the run as SIGPIPE would");
            }
            signals.raise(SIGPIPE);
        });
        observer = &*stream;
    }
    EventStream* s = stream ? &*stream : nullptr;
    const engine::RunControl control{.stop = signals.token(),
                                     .signal = &signals.signal(),
                                     .commandLine = ctx.commandLine,
                                     .owner = "noisefloor run into " + db.path()};
    const auto outcome = engine::runExperiment(prepared, *observer, control, s);  // the stream watches
    runId = recorder.runId();
    if (recorder.runId() == 0) {
        const int sig = signals.signal().load();
        if (sig != 0) {
            return failRun(events, s, signals.exitStatus(),
                           "interrupted by " + signalName(sig) + " before the run was stored; nothing was stored");
        }
        return failRun(events, s, kExitRuntime, "run failed before measuring: " + outcome.reason);
    }
    if (auto here = db.stillAtPath(); !here) {
        return failRun(events, s, kExitRuntime,
                       "run " + std::to_string(recorder.runId()) + " is not stored: " + here.error().message);
    }
    if (auto loaded = data::loadRun(db, recorder.runId())) {
        report(*loaded, db.path());
    } else {
        failRun(events, s, kExitRuntime,
                "run " + std::to_string(recorder.runId()) +
                    " was stored but cannot be read back: " + loaded.error().message);
    }
    if (recorder.finishError()) {
        return failRun(events, s, kExitRuntime,
                       "could not record the end of the run: " + recorder.finishError()->message);
    }
    noteStored("run " + std::to_string(recorder.runId()) + " was already stored");
    // Read after the report: a signal while it was printed is as late as one after the last
    // repetition, and must not be lost.
    const int sig = signals.signal().load();
    switch (outcome.status) {
        case engine::RunStatus::Complete:
            if (sig != 0) {  // too late to stop this run, but the caller must still stop
                return failRun(events, s, signals.exitStatus(),
                               "run " + std::to_string(recorder.runId()) + " complete; " + signalName(sig) +
                                   " arrived after its last repetition");
            }
            return 0;
        case engine::RunStatus::Aborted:
            // "run 4 aborted: SIGINT: stopped during repetition 3 of 10 (discarded; 2 kept)"
            return failRun(events, s, sig != 0 ? signals.exitStatus() : kExitRuntime,
                           "run " + std::to_string(recorder.runId()) + " aborted: " + outcome.reason);
        default:
            return failRun(events, s, kExitRuntime,
                           "run " + std::to_string(recorder.runId()) + " failed: " + outcome.reason);
    }
}

int runPrepared(const std::vector<engine::ExperimentSpec>& specs, const Context& ctx, const RunReport& report,
                SignalStop& signals, EventSink* events)
{
    std::optional<StdinStop> stdinStop;
    if (ctx.stopWhenStdinCloses) {
        stdinStop.emplace(signals);
    }
    const auto facts = base::readSystemFacts();
    std::vector<engine::PreparedExperiment> prepared;
    for (const auto& spec : specs) {
        const std::string point = spec.sweep ? spec.sweep->param + "=" + spec.sweep->value : "";
        auto p = engine::prepareExperiment(spec, facts, engine::workloads::implementations(), optionName);
        if (!p) {
            // Name the sweep point unless the message already does.
            const auto& message = p.error().message;
            const bool named = point.empty() || message.find(point) != std::string::npos;
            return failRun(events, nullptr, kExitUsage, named ? message : "--sweep " + point + ": " + message);
        }
        prepared.push_back(std::move(*p));
    }
    auto db = openDatabase(ctx, data::Database::Mode::ReadWrite);
    if (!db) {
        return failRun(events, nullptr, kExitRuntime, db.error().message);
    }
    std::int64_t last = 0;
    for (const auto& p : prepared) {
        if (const int sig = signals.signal().load(); sig != 0) {
            return failRun(events, nullptr, signals.exitStatus(),
                           last == 0
                               ? "interrupted by " + signalName(sig) + " before the run started; nothing was stored"
                               : "interrupted by " + signalName(sig) + " after run " + std::to_string(last) +
                                     "; the sweep's later points did not run");
        }
        if (int status = runOne(p, *db, ctx, signals, report, events, last); status != 0) {
            return status;
        }
    }
    if (const int sig = signals.signal().load(); sig != 0) {  // between the last check and here
        return failRun(
            events, nullptr, signals.exitStatus(),
            "run " + std::to_string(last) + " complete; " + signalName(sig) + " arrived after its last repetition");
    }
    return 0;
}

}  // namespace

int runAndReport(engine::ExperimentSpec spec, const Context& ctx, const RunReport& report, std::ostream* events)
{
    std::vector<engine::ExperimentSpec> specs;
    specs.push_back(std::move(spec));
    return runAllAndReport(specs, ctx, report, events);
}

int runAllAndReport(const std::vector<engine::ExperimentSpec>& specs, const Context& ctx, const RunReport& report,
                    std::ostream* events)
{
    SignalStop signals;  // from here on SIGINT, SIGTERM and SIGHUP stop the run cleanly, even before it starts
    std::optional<EventSink> sink;
    if (events != nullptr) {
        // A reader that goes away (a closed pipe, a dropped ssh) is a failed write, which stops
        // the run as SIGPIPE would, but after the testbed is taken down and the run is recorded.
        (void)std::signal(SIGPIPE, SIG_IGN);
        // The events go to stdout through a sink that never waits for a reader that stopped reading.
        events->flush();
        sink.emplace(STDOUT_FILENO, signals.token());
    }
    EventSink* const out = sink ? &*sink : nullptr;
    const int status = runPrepared(specs, ctx, report, signals, out);
    if (sink) {
        sink->drain();
        if (sink->lost() && signals.signal().load() == 0) {
            (void)fail(0, "warning: the end of the event stream was not read (" + sink->lostReason() + ")");
        }
    }
    return status;
}

}  // namespace nf::cli
