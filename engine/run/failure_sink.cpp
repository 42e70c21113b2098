#include "engine/run/failure_sink.h"

#include <utility>

namespace nf::engine {

namespace {

// The calling thread's run, if it works for one: set only by Scope, read by PinnedThread::start.
thread_local FailureSink* t_current = nullptr;

}  // namespace

void FailureSink::report(std::string text)
{
    std::lock_guard lock(m_mutex);
    if (!m_failure) {
        m_failure = std::move(text);
    }
}

std::optional<std::string> FailureSink::take()
{
    std::lock_guard lock(m_mutex);
    return std::exchange(m_failure, std::nullopt);
}

FailureSink* FailureSink::current()
{
    return t_current;
}

FailureSink::Scope::Scope(FailureSink* sink) : m_previous(std::exchange(t_current, sink)) {}

FailureSink::Scope::~Scope()
{
    t_current = m_previous;
}

}  // namespace nf::engine
