#pragma once
// Variant v's view of a live workload's variants side by side (udp_rx_group.cpp, xdp_rx_group.cpp):
// a LiveSession whose sample(), counter thread, facts and warnings are variant v's, and whose
// start() and stop() start and stop the whole group.

#include <sys/types.h>

#include <cstddef>
#include <string>
#include <utility>
#include <vector>

#include "base/result.h"
#include "engine/run/workload.h"

namespace nf::engine::workloads {

// Group provides quantities(), startFor() (starts the group unless it runs), stop(), and per
// variant sample(v), tid(v), config(v).counterCpus, facts(v) and warnings(v).
template <class Group>
class GroupView : public LiveSession {
public:
    GroupView(Group& group, std::size_t v) : m_group(group), m_v(v) {}
    std::vector<std::string> quantities() const override { return m_group.quantities(); }
    Result<void> start() override { return m_group.startFor(); }
    Result<std::vector<double>> sample() override { return m_group.sample(m_v); }
    void stop() override { m_group.stop(); }
    pid_t counterThread() const override { return m_group.tid(m_v); }
    std::vector<int> counterCpus() const override { return m_group.config(m_v).counterCpus; }
    std::vector<std::pair<std::string, std::string>> facts() const override { return m_group.facts(m_v); }
    std::vector<std::string> warnings() const override { return m_group.warnings(m_v); }

private:
    Group& m_group;
    std::size_t m_v;
};

}  // namespace nf::engine::workloads
