#include "engine/run/environment.h"

#include <map>

namespace nf::engine {

using Level = MachineCheck::Level;

nlohmann::json systemFactsJson(const probes::SystemFacts& f)
{
    nlohmann::json governors = nlohmann::json::object();
    nlohmann::json siblings = nlohmann::json::object();
    for (const auto& c : f.cpus) {
        if (!c.governor.empty()) {
            governors[std::to_string(c.id)] = c.governor;
        }
        siblings[std::to_string(c.id)] = probes::formatCpuList(c.siblings);
    }
    return {
        {"hostname", f.hostname},
        {"kernel_release", f.kernelRelease},
        {"kernel_version", f.kernelVersion},
        {"cpu_model", f.cpuModel},
        {"cpu_flags", f.cpuFlags},
        {"hypervisor", f.hypervisor},
        {"online_cpus", probes::formatCpuList(f.onlineCpus)},
        {"allowed_cpus", probes::formatCpuList(f.allowedCpus)},
        {"smt_active", f.smtActive},
        {"smt_siblings", siblings},
        {"governors", governors},
        {"boost", f.boost},
        {"isolated_cpus", probes::formatCpuList(f.isolatedCpus)},
        {"nohz_full_cpus", probes::formatCpuList(f.nohzFullCpus)},
        {"kernel_cmdline", f.kernelCmdline},
        {"perf_event_paranoid", f.perfEventParanoid},
        {"lockdown", f.lockdown},
        {"capabilities", f.capabilities},
        {"load_average_1", f.loadAverage1},
        {"mem_total_kib", f.memTotalKiB},
        {"hardware_pmu", f.hardwarePmu},
        {"msr_tsc_event", f.msrTscEvent},
    };
}

nlohmann::json tscJson(const probes::TscCalibration& cal)
{
    return {
        {"hz", cal.hz},
        {"invariant", cal.invariant},
        {"calibration_seconds", cal.calibrationSeconds},
        {"read_overhead_ticks", cal.readOverheadTicks},
        {"read_overhead_min_ticks", cal.readOverheadMinTicks},
    };
}

nlohmann::json countersJson(const probes::CounterGroup& group)
{
    nlohmann::json unsupported = nlohmann::json::array();
    for (const auto& u : group.unsupported()) {
        unsupported.push_back({{"name", u.name}, {"reason", u.reason}});
    }
    return {{"target", group.target().describe()}, {"opened", group.names()}, {"unsupported", unsupported}};
}

std::string_view toString(Level level)
{
    switch (level) {
        case Level::Ok: return "ok";
        case Level::Info: return "info";
        case Level::Warn: return "warn";
        case Level::Fail: return "fail";
    }
    return "info";
}

nlohmann::json toJson(const std::vector<MachineCheck>& checks)
{
    nlohmann::json out = nlohmann::json::array();
    for (const auto& c : checks) {
        out.push_back({{"name", c.name}, {"level", toString(c.level)}, {"detail", c.detail}, {"fix", c.fix}});
    }
    return out;
}

}  // namespace nf::engine
