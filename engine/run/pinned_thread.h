#pragma once
// The one way threads are pinned: the measuring worker, the receivers, the generators and
// page-frag's pop thread. A thread started here is pinned as its first step, and start() returns
// only after the pin, with its outcome: a thread that could not be pinned runs anyway (unpinned)
// and says so, so the runner can store the warning with the run instead of losing it.

#include <sched.h>

#include <functional>
#include <memory>
#include <optional>
#include <stop_token>
#include <string>
#include <thread>
#include <vector>

#include "base/result.h"
#include "engine/run/failure_sink.h"

namespace nf::engine {

// Pins the calling thread to `cpu`: "cannot pin ... to CPU 3: Invalid argument" when it cannot.
Result<void> pinCurrentThread(int cpu);

// Keeps the calling thread on `cpus` (the housekeeping CPUs of a run) for as long as it lives, then
// gives the thread its CPUs back; does nothing when `cpus` is empty or cannot be set.
class OffCpu {
public:
    explicit OffCpu(const std::vector<int>& cpus);
    ~OffCpu();
    OffCpu(const OffCpu&) = delete;
    OffCpu& operator=(const OffCpu&) = delete;
    // Whether the thread is on `cpus` now.
    bool moved() const { return m_moved; }

private:
    cpu_set_t m_previous{};
    bool m_moved = false;
};

class PinnedThread {
public:
    PinnedThread() = default;
    // Starts `body` on a new thread pinned to `cpu` (-1: not pinned). `role` names the thread in
    // the warning ("generator thread"). An exception that escapes `body` ends the thread there,
    // never in std::terminate: "receiver thread: internal error: std::bad_alloc" goes to the
    // FailureSink current on the calling thread (the run's, which the new thread takes on as its
    // own), or outside a run to the thread's own, read with takeFailure() after join().
    static PinnedThread start(const std::string& role, int cpu, std::function<void(std::stop_token)> body);

    PinnedThread(PinnedThread&&) = default;
    PinnedThread& operator=(PinnedThread&&) = default;
    ~PinnedThread() = default;  // std::jthread: requests stop and joins

    bool joinable() const { return m_thread.joinable(); }
    void requestStop() { m_thread.request_stop(); }
    // For a signal to this thread alone (pthread_kill).
    std::jthread::native_handle_type nativeHandle() { return m_thread.native_handle(); }
    void join();
    // "" when pinned, else one line: "generator thread: cannot pin to CPU 3: ...; it ran unpinned".
    const std::string& warning() const { return m_warning; }
    bool pinned() const { return m_warning.empty(); }
    // Started outside a run: what escaped its body, once joined. Inside a run the run's sink has it.
    std::optional<std::string> takeFailure() { return m_own ? m_own->take() : std::nullopt; }

private:
    std::shared_ptr<FailureSink> m_own;  // started outside a run: where its failure goes
    std::jthread m_thread;
    std::string m_warning;
};

}  // namespace nf::engine
