#include "probes/cpu_time.h"

#include <unistd.h>

#include <array>
#include <cctype>
#include <fstream>
#include <sstream>

namespace nf::probes {

std::vector<CpuTime> parseCpuTimes(const std::string& text, long ticksPerSecond)
{
    std::vector<CpuTime> out;
    if (ticksPerSecond <= 0) {
        return out;
    }
    const auto ns = [&](std::uint64_t ticks) {
        return ticks * 1'000'000'000ULL / static_cast<std::uint64_t>(ticksPerSecond);
    };
    std::istringstream lines(text);
    std::string line;
    while (std::getline(lines, line)) {
        if (line.size() < 4 || line.rfind("cpu", 0) != 0 || std::isdigit(static_cast<unsigned char>(line[3])) == 0) {
            continue;
        }
        std::istringstream words(line.substr(3));
        int cpu = -1;
        // user nice system idle iowait irq softirq (steal, guest and guest_nice are not the CPU's work)
        std::array<std::uint64_t, 7> c{};
        words >> cpu;
        for (auto& column : c) {
            words >> column;
        }
        if (!words || cpu < 0) {
            continue;
        }
        out.push_back(
            {.cpu = cpu, .taskNs = ns(c[0] + c[1] + c[2]), .softirqNs = ns(c[5] + c[6]), .idleNs = ns(c[3] + c[4])});
    }
    return out;
}

std::optional<SchedStat> readSchedStat(pid_t tid)
{
    std::ifstream in("/proc/self/task/" + std::to_string(tid) + "/schedstat");
    SchedStat s;
    if (!(in >> s.runNs >> s.waitNs >> s.timeslices)) {
        return std::nullopt;
    }
    return s;
}

std::vector<CpuTime> readCpuTimes()
{
    std::ifstream in("/proc/stat");
    std::ostringstream text;
    text << in.rdbuf();
    return parseCpuTimes(text.str(), sysconf(_SC_CLK_TCK));
}

}  // namespace nf::probes
