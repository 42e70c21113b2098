#include "engine/run/cpu_settings.h"

#include "base/system_facts.h"

namespace nf::engine {

TestedState readCpuSettings(const std::vector<int>& cpus)
{
    const auto orUnavailable = [](const std::string& value) {
        return value.empty() ? std::string("unavailable") : value;
    };
    TestedState state;
    for (int cpu : cpus) {
        state["cpu" + std::to_string(cpu) + " governor"] = orUnavailable(base::readGovernor(cpu));
    }
    state["boost"] = orUnavailable(base::readBoost());
    return state;
}

}  // namespace nf::engine
