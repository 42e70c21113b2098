#pragma once
// Turns SIGINT, SIGTERM and SIGHUP (a closed terminal or ssh session) into a stop request: the
// signals are blocked in every thread made after construction and taken by one watcher thread with
// sigtimedwait, so no code runs in a signal handler and the engine sees an ordinary std::stop_token.

#include <atomic>
#include <csignal>
#include <functional>
#include <stop_token>
#include <string>
#include <thread>

namespace nf::cli {

// SIGINT, SIGTERM and SIGHUP, the signals that stop a command cleanly, less any the process was
// started with ignored: under nohup a hangup does not stop a run, and a script's background job
// (which the shell starts with SIGINT and SIGQUIT ignored) keeps ignoring SIGINT.
sigset_t stopSignalSet();

class SignalStop {
public:
    SignalStop();
    ~SignalStop();
    SignalStop(const SignalStop&) = delete;
    SignalStop& operator=(const SignalStop&) = delete;

    std::stop_token token() const { return m_source.get_token(); }
    const std::atomic<int>& signal() const { return m_signal; }
    // 128 + the signal that stopped the run, or 0.
    int exitStatus() const { return m_signal.load() != 0 ? 128 + m_signal.load() : 0; }
    // Stops as if `sig` had arrived (the first stop wins): SIGPIPE when the reader of the event
    // stream went away.
    void raise(int sig);

private:
    sigset_t m_set{};
    sigset_t m_previous{};
    std::stop_source m_source;
    std::atomic<int> m_signal{0};
    std::jthread m_watcher;
};

// While it lives, the end of stdin (its writer closed it: a front end's Stop, a dropped ssh) stops
// `signals` as SIGHUP would. Input is read and thrown away. For `run --stop-when-stdin-closes`.
class StdinStop {
public:
    explicit StdinStop(SignalStop& signals);
    ~StdinStop();
    StdinStop(const StdinStop&) = delete;
    StdinStop& operator=(const StdinStop&) = delete;

private:
    std::jthread m_watcher;
};

// For commands that only read and print: SIGINT/SIGTERM/SIGHUP (blocked since main()'s first line) are
// taken by a watcher thread that writes "noisefloor: interrupted by SIGTERM" and ends the process
// with 128 + the signal. Nothing such a command does needs undoing.
class SignalExit {
public:
    SignalExit();
    ~SignalExit();
    SignalExit(const SignalExit&) = delete;
    SignalExit& operator=(const SignalExit&) = delete;

private:
    std::jthread m_watcher;
};

// From now until the process ends, a signal of `set` writes lineFor(signal) to stderr and ends
// the process with 128 + the signal, and `set` is unblocked. For the teardown after a command has
// returned: a signal that came then still says what was already stored, and none is lost in a
// blocked state at exit. The lines are made now; the handler only writes one (async-signal-safe).
// A signal the kernel takes once exit_group has begun is dropped by the kernel: the exit status
// is already the command's.
void answerLateSignals(const sigset_t& set, const std::function<std::string(int)>& lineFor);

// "SIGINT", "SIGTERM", ...
std::string signalName(int sig);

// The first stop signal any SignalStop of this process took (0: none), whatever the command made of
// it. One taken while a SignalStop was being torn down reaches nobody else, so main() reads this
// once the command has returned: a command that says 0 after a signal was interrupted as it ended.
int takenStopSignal();

// What the command has done for good so far ("run 7 was already stored"), for the line of a signal
// that comes once it is: "interrupted by SIGTERM; run 7 was already stored".
void noteStored(std::string what);
std::string storedNote();

}  // namespace nf::cli
