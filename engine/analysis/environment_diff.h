#pragma once
// What differs between the machines of runs compared across boots: a comparison of a vanilla and a
// patched kernel means something only when everything but the kernel stayed the same.

#include <nlohmann/json.hpp>
#include <string>
#include <vector>

namespace nf::engine {

// The facts of one stored run that decide whether it can be compared with another.
struct RunFacts {
    std::string name;  // "run 3 'vanilla'"
    std::string kernel;
    std::string host;
    std::string cpuModel;
    std::string toolVersion;
    nlohmann::json environment;  // as stored: system, measurement, import, kernel, ...
    nlohmann::json spec;
    // A live test's tested settings as its first repetition read them before measuring
    // ("eth0 coalescing" -> "rx-usecs 8 ..."); empty for other runs.
    nlohmann::json testedState = nlohmann::json::object();
};

// One line per fact that differs from the first run's ("CPU governor differs: performance (run 1
// 'vanilla') vs powersave (run 2 'patched')"); facts unknown on either side are not compared.
std::vector<std::string> environmentDifferences(const std::vector<RunFacts>& runs);

// "kernels: 6.1.0 (run 1 'vanilla') vs 6.1.0+patch (run 2 'patched')", or a note that they are equal.
std::string kernelsLine(const std::vector<RunFacts>& runs);

}  // namespace nf::engine
