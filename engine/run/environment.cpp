#include "engine/run/environment.h"

#include <map>

#include "engine/model/experiment_spec.h"

namespace nf::engine {

using Level = MachineCheck::Level;

nlohmann::json systemFactsJson(const base::SystemFacts& f)
{
    nlohmann::json governors = nlohmann::json::object();
    nlohmann::json siblings = nlohmann::json::object();
    for (const auto& c : f.cpus) {
        if (!c.governor.empty()) {
            governors[std::to_string(c.id)] = c.governor;
        }
        siblings[std::to_string(c.id)] = base::formatCpuList(c.siblings);
    }
    return {
        {"hostname", f.hostname},
        {"kernel_release", f.kernelRelease},
        {"kernel_version", f.kernelVersion},
        {"cpu_model", f.cpuModel},
        {"cpu_flags", f.cpuFlags},
        {"hypervisor", f.hypervisor},
        {"online_cpus", base::formatCpuList(f.onlineCpus)},
        {"allowed_cpus", base::formatCpuList(f.allowedCpus)},
        {"smt_active", f.smtActive},
        {"smt_siblings", siblings},
        {"governors", governors},
        {"boost", f.boost},
        {"isolated_cpus", base::formatCpuList(f.isolatedCpus)},
        {"nohz_full_cpus", base::formatCpuList(f.nohzFullCpus)},
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

nlohmann::json cpuTopologyJson(const base::SystemFacts& f)
{
    nlohmann::json cpus = nlohmann::json::array();
    for (const auto& c : f.cpus) {
        cpus.push_back(
            {{"id", c.id}, {"core", c.core}, {"package", c.package}, {"siblings", base::formatCpuList(c.siblings)}});
    }
    return {
        {"online", base::formatCpuList(f.onlineCpus)}, {"allowed", base::formatCpuList(f.allowedCpus)}, {"cpus", cpus}};
}

nlohmann::json kernelIdentityJson(const probes::KernelIdentity& id)
{
    return {{"build_id", id.buildId},
            {"boot_id", id.bootId},
            {"release", id.release},
            {"version", id.version},
            {"config_sha256", id.configSha256},
            {"config_source", id.configSource},
            {"cmdline", id.cmdline},
            {"microcode", id.microcode},
            {"vulnerabilities", id.vulnerabilities},
            {"sysroot", id.sysroot}};
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

nlohmann::json countersJson(const probes::CounterGroup& group, const probes::SimulatedPmu* simulated)
{
    nlohmann::json unsupported = nlohmann::json::array();
    for (const auto& u : group.unsupported()) {
        unsupported.push_back({{"name", u.name}, {"reason", u.reason}});
    }
    const bool userMode = group.mode() == probes::CounterMode::User;
    std::string modes = group.userOnly().empty() ? "user and kernel" : "user only for user_only";
    if (userMode) {
        modes = "hardware events user mode only (kernel excluded); software events user and kernel" +
                std::string(group.userOnly().empty() ? "" : ", except user_only");
    }
    nlohmann::json json = {{"target", group.target().describe()},
                           {"opened", group.names()},
                           {"unsupported", unsupported},
                           {"mode", toString(userMode ? CountersMode::User : CountersMode::All)},
                           {"modes", modes},
                           {"user_only", group.userOnly()},
                           {"backend", simulated != nullptr ? "simulated" : "perf"}};
    if (simulated != nullptr) {
        nlohmann::json rates = nlohmann::json::object();
        for (const auto& r : probes::simulatedRates()) {
            rates[std::string(r.event)] = {{"per_tsc_tick", r.perTick}, {"per_operation", r.perOperation}};
        }
        json["simulated"] = {{"what", "SIMULATED counters: made up from the TSC and the operation count"},
                             {"running", simulated->running},
                             {"period_ms", simulated->periodMs},
                             {"fail_read", simulated->failRead},
                             {"rates", rates}};
    }
    return json;
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
