#include "engine/run/pinned_thread.h"

#include <pthread.h>
#include <sched.h>

#include <future>
#include <utility>

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

OffCpu::OffCpu(const std::vector<int>& cpus)
{
    if (cpus.empty() || pthread_getaffinity_np(pthread_self(), sizeof m_previous, &m_previous) != 0) {
        return;
    }
    cpu_set_t set;
    CPU_ZERO(&set);
    for (int c : cpus) {
        if (c >= 0 && c < CPU_SETSIZE) {
            CPU_SET(c, &set);
        }
    }
    m_moved = pthread_setaffinity_np(pthread_self(), sizeof set, &set) == 0;
}

OffCpu::~OffCpu()
{
    if (m_moved) {
        pthread_setaffinity_np(pthread_self(), sizeof m_previous, &m_previous);
    }
}

PinnedThread PinnedThread::start(const std::string& role, int cpu, std::function<void(std::stop_token)> body)
{
    PinnedThread t;
    FailureSink* run = FailureSink::current();
    if (run == nullptr) {
        t.m_own = std::make_shared<FailureSink>();
    }
    std::promise<std::string> pinned;
    auto outcome = pinned.get_future();
    // The thread holds its own sink too: a PinnedThread moved over may drop it before joining.
    t.m_thread = std::jthread([cpu, role, run, own = t.m_own, &pinned, body = std::move(body)](std::stop_token stop) {
        FailureSink& failures = own ? *own : *run;
        const FailureSink::Scope scope(&failures);  // what this thread starts reports there too
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
            failures.report(role + ": internal error: " + e.what());
        } catch (...) {
            failures.report(role + ": internal error");
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
