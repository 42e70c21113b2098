#pragma once
// Where the threads that work for one run report an exception that escaped them. A run has one
// sink (its RunContext's). The thread that measures installs it while it works for the run
// (FailureSink::Scope); every PinnedThread started from there reports to it and installs it on its
// own thread in turn, so a receiver, a generator or a pop thread needs no handle passed down the
// workload's factory. The repetition driver takes what arrived after each unit: the unit is
// discarded and the run fails with that line. Nothing is kept process-wide: two runs in one
// process, one after the other or at the same time, never see each other's failures.

#include <mutex>
#include <optional>
#include <string>

namespace nf::engine {

class FailureSink {
public:
    FailureSink() = default;
    FailureSink(const FailureSink&) = delete;
    FailureSink& operator=(const FailureSink&) = delete;

    // Keeps `text` ("receiver thread: internal error: std::bad_alloc") unless a failure is already
    // waiting to be taken: the first one says what went wrong. Any thread.
    void report(std::string text);
    // The failure reported since the last take, if any, and forgets it.
    std::optional<std::string> take();

    // The sink of the run the calling thread works for: the one a Scope installed on it, or the one
    // its PinnedThread was started under; null outside a run.
    static FailureSink* current();

    // Makes `sink` the calling thread's for as long as it lives, then restores the one before.
    class Scope {
    public:
        explicit Scope(FailureSink* sink);
        ~Scope();
        Scope(const Scope&) = delete;
        Scope& operator=(const Scope&) = delete;

    private:
        FailureSink* m_previous;
    };

private:
    std::mutex m_mutex;
    std::optional<std::string> m_failure;
};

}  // namespace nf::engine
