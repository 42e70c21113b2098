#include "engine/run/pinned_thread.h"

#include <mutex>
#include <utility>

#include <pthread.h>
#include <sched.h>

#include <future>

namespace nf::engine {

Result<void> pinCurrentThread(int cpu)
{
    if (cpu < 0 || cpu >= CPU_SETSIZE) {
        return Error{"cannot pin to CPU " + std::to_string(cpu) + ": no such CPU"};
    }
    cpu_set_t set;
    CPU_ZERO(&set);
    CPU_SET(cpu, &set);
    if (int err = pthread_setaffinity_np(pthread_self(), sizeof set, &set); err != 0) {
        return Error::fromErrno("cannot pin to CPU " + std::to_string(cpu), err);
    }
    return {};
}

namespace {

std::mutex g_failureMutex;
std::optional<std::string> g_failure;

void noteThreadFailure(std::string text)
{
    std::lock_guard lock(g_failureMutex);
    if (!g_failure) {
        g_failure = std::move(text);
    }
}

}  // namespace

std::optional<std::string> takeThreadFailure()
{
    std::lock_guard lock(g_failureMutex);
    return std::exchange(g_failure, std::nullopt);
}

PinnedThread PinnedThread::start(const std::string& role, int cpu, std::function<void(std::stop_token)> body)
{
    PinnedThread t;
    std::promise<std::string> pinned;
    auto outcome = pinned.get_future();
    t.m_thread = std::jthread([cpu, role, &pinned, body = std::move(body)](std::stop_token stop) {
        std::string warning;
        if (cpu >= 0) {
            if (auto r = pinCurrentThread(cpu); !r) {
                warning = r.error().message;
            }
        }
        pinned.set_value(std::move(warning));  // `pinned` is not touched after this line
        try {
            body(std::move(stop));
        } catch (const std::exception& e) {
            noteThreadFailure(role + ": internal error: " + e.what());
        } catch (...) {
            noteThreadFailure(role + ": internal error");
        }
    });
    if (auto warning = outcome.get(); !warning.empty()) {
        t.m_warning = role + ": " + warning + "; it ran unpinned";
    }
    return t;
}

void PinnedThread::join()
{
    if (m_thread.joinable()) {
        m_thread.join();
    }
}

}  // namespace nf::engine
