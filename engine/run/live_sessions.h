#pragma once
// The variants of a live run as sessions: made once (testbeds up) and destroyed at the end (testbeds
// down). Side by side, for a run in chunks, they are one LiveGroup and each variant's session is its
// view of the group; otherwise every variant has a session of its own.

#include <cstddef>
#include <memory>
#include <nlohmann/json.hpp>
#include <set>
#include <string>
#include <vector>

#include "base/result.h"
#include "engine/run/call_loop_worker.h"
#include "engine/run/channel.h"
#include "engine/run/workload.h"

namespace nf::engine {

struct PreparedExperiment;

namespace live {

// Stops a started session on every path out of a scope.
class Running {
public:
    explicit Running(LiveSession& session) : m_session(session) {}
    ~Running() { m_session.stop(); }
    Running(const Running&) = delete;
    Running& operator=(const Running&) = delete;

private:
    LiveSession& m_session;
};

class LiveSessions {
public:
    // Says the sessions' warnings on `out`.
    LiveSessions(const PreparedExperiment& prepared, Channel<WorkerMessage>& out);

    // Makes every variant's session: the group (makeLiveGroup) when the run alternates, else one
    // session per variant (makeLive). The first failure is the error, naming its variant.
    Result<void> make();

    std::size_t size() const { return m_sessions.size(); }
    LiveSession& operator[](std::size_t variant) { return *m_sessions[variant]; }
    const LiveSession& operator[](std::size_t variant) const { return *m_sessions[variant]; }
    // The variants side by side; null when each has a session of its own.
    LiveGroup* group() { return m_group.get(); }

    // Each warning variant `variant`'s session gives (a thread it could not pin), once per variant.
    void reportWarnings(std::size_t variant);
    // What each variant's session says of itself, by variant name.
    nlohmann::json facts() const;
    // The settings of every interface the variants' traffic crosses.
    TestedState testedState() const;

private:
    const PreparedExperiment& m_p;
    Channel<WorkerMessage>& m_out;
    std::unique_ptr<LiveGroup> m_group;                 // alternating: every variant side by side
    std::vector<std::unique_ptr<LiveSession>> m_owned;  // not alternating: a session per variant
    std::vector<LiveSession*> m_sessions;               // per variant: its session or its view of m_group
    std::set<std::string> m_warned;
};

}  // namespace live
}  // namespace nf::engine
