#pragma once
// Turns SIGINT and SIGTERM into a stop request: the signals are blocked in every thread made after
// construction and taken by one watcher thread with sigtimedwait, so no code runs in a signal
// handler and the engine sees an ordinary std::stop_token.

#include <atomic>
#include <csignal>
#include <stop_token>
#include <string>
#include <thread>

namespace nf::cli {

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

private:
    sigset_t m_set{};
    sigset_t m_previous{};
    std::stop_source m_source;
    std::atomic<int> m_signal{0};
    std::jthread m_watcher;
};

// "SIGINT", "SIGTERM", ...
std::string signalName(int sig);

}  // namespace nf::cli
