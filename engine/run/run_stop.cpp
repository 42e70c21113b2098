#include "engine/run/run_stop.h"

#include <utility>

namespace nf::engine {

namespace {

// The calling thread's run's stop: set only by Scope.
thread_local std::stop_token t_current;

}  // namespace

std::stop_token RunStop::current()
{
    return t_current;
}

RunStop::Scope::Scope(std::stop_token stop) : m_previous(std::exchange(t_current, std::move(stop))) {}

RunStop::Scope::~Scope()
{
    t_current = std::move(m_previous);
}

}  // namespace nf::engine
