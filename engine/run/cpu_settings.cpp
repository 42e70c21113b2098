#include "engine/run/cpu_settings.h"

#include <fstream>
#include <optional>

namespace nf::engine {

namespace {

std::optional<std::string> readLine(const std::string& path)
{
    std::ifstream in(path);
    std::string line;
    if (!in || !std::getline(in, line)) {
        return std::nullopt;
    }
    return line;
}

}  // namespace

TestedState readCpuSettings(const std::vector<int>& cpus, const std::string& root)
{
    TestedState state;
    for (int cpu : cpus) {
        state["cpu" + std::to_string(cpu) + " governor"] =
            readLine(root + "/cpu" + std::to_string(cpu) + "/cpufreq/scaling_governor").value_or("unavailable");
    }
    // acpi-cpufreq's boost switch, else intel_pstate's no_turbo (its inverse).
    if (auto boost = readLine(root + "/cpufreq/boost")) {
        state["boost"] = *boost == "1" ? "on" : "off";
    } else if (auto noTurbo = readLine(root + "/intel_pstate/no_turbo")) {
        state["boost"] = *noTurbo == "1" ? "off" : "on";
    } else {
        state["boost"] = "unavailable";
    }
    return state;
}

}  // namespace nf::engine
