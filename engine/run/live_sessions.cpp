#include "engine/run/live_sessions.h"

#include <utility>

#include "engine/run/scheduler.h"

namespace nf::engine::live {

LiveSessions::LiveSessions(const PreparedExperiment& prepared, Channel<WorkerMessage>& out) : m_p(prepared), m_out(out)
{
}

Result<void> LiveSessions::make()
{
    if (m_p.spec.alternating()) {
        if (!m_p.implementation->makeLiveGroup) {
            return Error{m_p.workload->name + " cannot run its variants side by side"};
        }
        m_group = NF_TRY(m_p.implementation->makeLiveGroup(m_p.params));
        for (std::size_t v = 0; v < m_group->size(); ++v) {
            m_sessions.push_back(&m_group->variant(v));
        }
        return {};
    }
    for (std::size_t v = 0; v < m_p.params.size(); ++v) {
        const std::string variant = m_p.params.size() > 1 ? "variant " + m_p.spec.variants[v].name + ": " : "";
        m_owned.push_back(NF_TRY(m_p.implementation->makeLive(m_p.params[v]).withContext(variant)));
        m_sessions.push_back(m_owned.back().get());
    }
    return {};
}

void LiveSessions::reportWarnings(std::size_t variant)
{
    for (const auto& w : m_sessions[variant]->warnings()) {
        const std::string text = "variant " + m_p.spec.variants[variant].name + ": " + w;
        if (m_warned.insert(text).second) {
            m_out.push(WorkerWarning{text});
        }
    }
}

TestedState LiveSessions::testedState() const
{
    if (m_group) {
        return m_group->testedState();
    }
    TestedState state;
    for (const auto* session : m_sessions) {
        state.merge(session->testedState());
    }
    return state;
}

nlohmann::json LiveSessions::facts() const
{
    nlohmann::json facts = nlohmann::json::object();
    for (std::size_t v = 0; v < m_sessions.size(); ++v) {
        nlohmann::json own = nlohmann::json::object();
        for (const auto& [key, value] : m_sessions[v]->facts()) {
            own[key] = value;
        }
        facts[m_p.spec.variants[v].name] = own;
    }
    return facts;
}

}  // namespace nf::engine::live
