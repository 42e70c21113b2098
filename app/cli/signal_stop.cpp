#include "app/cli/signal_stop.h"

#include <poll.h>
#include <pthread.h>
#include <unistd.h>

#include <array>
#include <atomic>
#include <cerrno>
#include <cstring>
#include <ctime>
#include <mutex>

namespace nf::cli {

namespace {

std::atomic<int> g_takenStopSignal{0};

// The lines answerLateSignals prepared, one per signal it answers; read by its handler only.
struct LateLine {
    int sig = 0;
    std::array<char, 1024> text{};
    size_t length = 0;
};
std::array<LateLine, 3> g_lateLines{};

void writeLateLineAndExit(int sig)
{
    for (const LateLine& line : g_lateLines) {
        if (line.sig == sig) {
            (void)!::write(STDERR_FILENO, line.text.data(), line.length);
        }
    }
    ::_exit(128 + sig);
}

std::mutex& storedMutex()
{
    static std::mutex mutex;
    return mutex;
}

std::string& storedText()
{
    static std::string text;
    return text;
}

}  // namespace

int takenStopSignal()
{
    return g_takenStopSignal.load();
}

void noteStored(std::string what)
{
    const std::lock_guard lock(storedMutex());
    storedText() = std::move(what);
}

std::string storedNote()
{
    const std::lock_guard lock(storedMutex());
    return storedText();
}

std::string signalName(int sig)
{
    const char* abbrev = sigabbrev_np(sig);
    return abbrev != nullptr ? "SIG" + std::string(abbrev) : "signal " + std::to_string(sig);
}

sigset_t stopSignalSet()
{
    sigset_t set;
    sigemptyset(&set);
    for (const int sig : {SIGINT, SIGTERM, SIGHUP}) {
        // The tool never changes these dispositions, so SIG_IGN here is what it was started with.
        // A blocked signal is queued even when ignored, and sigtimedwait would take it: leaving
        // such a signal out keeps it ignored, as nohup and a script's background job expect.
        struct sigaction current {};
        if (sigaction(sig, nullptr, &current) == 0 && current.sa_handler == SIG_IGN) {
            continue;
        }
        sigaddset(&set, sig);
    }
    return set;
}

void answerLateSignals(const sigset_t& set, const std::function<std::string(int)>& lineFor)
{
    size_t slot = 0;
    for (const int sig : {SIGINT, SIGTERM, SIGHUP}) {
        if (sigismember(&set, sig) != 1 || slot == g_lateLines.size()) {
            continue;
        }
        LateLine& line = g_lateLines[slot++];
        std::string text = lineFor(sig);
        if (text.size() > line.text.size()) {
            text.resize(line.text.size() - 4);
            text += "...\n";
        }
        line.length = text.copy(line.text.data(), line.text.size());
        line.sig = sig;
        struct sigaction action {};
        action.sa_handler = writeLateLineAndExit;
        sigfillset(&action.sa_mask);
        sigaction(sig, &action, nullptr);
    }
    pthread_sigmask(SIG_UNBLOCK, &set, nullptr);
}

SignalStop::SignalStop()
{
    m_set = stopSignalSet();
    pthread_sigmask(SIG_BLOCK, &m_set, &m_previous);
    m_watcher = std::jthread([this](const std::stop_token& own) {
        const timespec tick{0, 100'000'000};
        while (!own.stop_requested()) {
            const int sig = sigtimedwait(&m_set, nullptr, &tick);
            if (sig > 0) {
                int none = 0;
                (void)g_takenStopSignal.compare_exchange_strong(none, sig);
                raise(sig);
            }
        }
    });
}

void SignalStop::raise(int sig)
{
    int none = 0;
    if (m_signal.compare_exchange_strong(none, sig)) {
        m_source.request_stop();
    }
}

SignalStop::~SignalStop()
{
    m_watcher.request_stop();
    m_watcher.join();
    pthread_sigmask(SIG_SETMASK, &m_previous, nullptr);
}

StdinStop::StdinStop(SignalStop& signals)
{
    m_watcher = std::jthread([&signals](const std::stop_token& own) {
        std::array<char, 4096> discard{};
        while (!own.stop_requested()) {
            pollfd p{STDIN_FILENO, POLLIN, 0};
            const int ready = ::poll(&p, 1, 100);
            if (ready < 0 && errno != EINTR) {
                return;
            }
            if (ready <= 0) {
                continue;
            }
            const ssize_t got = (p.revents & POLLIN) != 0 ? ::read(STDIN_FILENO, discard.data(), discard.size()) : 0;
            if (got == 0 || (got < 0 && errno != EINTR && errno != EAGAIN)) {
                signals.raise(SIGHUP);
                return;
            }
        }
    });
}

StdinStop::~StdinStop()
{
    m_watcher.request_stop();
    m_watcher.join();
}

SignalExit::SignalExit()
{
    m_watcher = std::jthread([](const std::stop_token& own) {
        const sigset_t set = stopSignalSet();
        const timespec tick{0, 100'000'000};
        while (!own.stop_requested()) {
            const int sig = sigtimedwait(&set, nullptr, &tick);
            if (sig > 0) {
                const std::string line = "noisefloor: interrupted by " + signalName(sig) + "\n";
                (void)!::write(STDERR_FILENO, line.data(), line.size());
                ::_exit(128 + sig);
            }
        }
    });
}

SignalExit::~SignalExit()
{
    m_watcher.request_stop();
    m_watcher.join();
}

}  // namespace nf::cli
