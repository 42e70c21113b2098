#include "engine/analysis/environment_diff.h"

#include <functional>

namespace nf::engine {
namespace {

const nlohmann::json& object(const nlohmann::json& parent, const char* key)
{
    static const nlohmann::json empty = nlohmann::json::object();
    if (!parent.is_object()) {
        return empty;
    }
    auto it = parent.find(key);
    return it != parent.end() && it->is_object() ? *it : empty;
}

std::string text(const nlohmann::json& value)
{
    if (value.is_null()) {
        return {};
    }
    return value.is_string() ? value.get<std::string>() : value.dump();
}

int workerCpu(const RunFacts& r)
{
    const auto& m = object(r.environment, "measurement");
    auto it = m.find("worker_cpu");
    return it != m.end() && it->is_number_integer() ? it->get<int>() : -1;
}

// The governor of the worker CPU when known, else the governors of all CPUs when they agree.
std::string governor(const RunFacts& r)
{
    const auto& govs = object(object(r.environment, "system"), "governors");
    if (govs.empty()) {
        return {};
    }
    const int cpu = workerCpu(r);
    if (cpu >= 0 && govs.contains(std::to_string(cpu))) {
        return text(govs[std::to_string(cpu)]);
    }
    std::string common;
    for (const auto& [id, g] : govs.items()) {
        if (!common.empty() && common != text(g)) {
            return "mixed";
        }
        common = text(g);
    }
    return common;
}

std::string systemFact(const RunFacts& r, const char* key)
{
    const auto& sys = object(r.environment, "system");
    return sys.contains(key) ? text(sys[key]) : std::string();
}

// A fact of the kernel's identity (engine/run/environment.h, kernelIdentityJson).
std::string kernelFact(const RunFacts& r, const char* key)
{
    const auto& id = object(r.environment, "kernel");
    return id.contains(key) ? text(id[key]) : std::string();
}

std::string vulnerability(const RunFacts& r, const std::string& name)
{
    const auto& v = object(object(r.environment, "kernel"), "vulnerabilities");
    return v.contains(name) ? text(v[name]) : std::string();
}

std::string coreChoice(const RunFacts& r)
{
    const int cpu = workerCpu(r);
    return cpu >= 0 ? "CPU " + std::to_string(cpu) : std::string();
}

struct Fact {
    const char* what;
    std::function<std::string(const RunFacts&)> get;
    std::string named = {};  // when `what` is null
};

}  // namespace

std::vector<std::string> environmentDifferences(const std::vector<RunFacts>& runs)
{
    std::vector<Fact> facts = {
        {"host", [](const RunFacts& r) { return r.host; }},
        {"CPU model", [](const RunFacts& r) { return r.cpuModel; }},
        {"CPU governor", governor},
        {"CPU boost", [](const RunFacts& r) { return systemFact(r, "boost"); }},
        {"SMT", [](const RunFacts& r) { return systemFact(r, "smt_active"); }},
        {"measuring core", coreChoice},
        {"isolated CPUs", [](const RunFacts& r) { return systemFact(r, "isolated_cpus"); }},
        {"kernel command line", [](const RunFacts& r) { return systemFact(r, "kernel_cmdline"); }},
        {"kernel .config (sha256)", [](const RunFacts& r) { return kernelFact(r, "config_sha256"); }},
        {"CPU microcode", [](const RunFacts& r) { return kernelFact(r, "microcode"); }},
        {"noisefloor version", [](const RunFacts& r) { return r.toolVersion; }},
        {"workload", [](const RunFacts& r) { return text(r.spec.value("workload", nlohmann::json())); }},
    };
    std::vector<std::string> out;
    if (runs.size() < 2) {
        return out;
    }
    // Each CPU vulnerability's mitigation: spectre_v2 decides whether an indirect call is a
    // retpoline at all.
    std::vector<std::string> vulnerabilities;
    for (const auto& [name, value] : object(object(runs.front().environment, "kernel"), "vulnerabilities").items()) {
        vulnerabilities.push_back(name);
    }
    for (const auto& name : vulnerabilities) {
        facts.push_back(
            {nullptr, [name](const RunFacts& r) { return vulnerability(r, name); }, "mitigation of " + name});
    }
    // Each setting of the tested interfaces (driver, firmware, offloads, rings, coalescing, IRQ
    // affinity, RPS/XPS, XDP mode) the first run read; unreadable ones are not compared.
    for (const auto& [setting, value] : runs.front().testedState.items()) {
        const std::string name = setting;
        facts.push_back({nullptr,
                         [name](const RunFacts& r) {
                             const auto it = r.testedState.find(name);
                             const std::string v = it != r.testedState.end() ? text(*it) : std::string();
                             return v == "unavailable" ? std::string() : v;
                         },
                         name});
    }
    for (const auto& fact : facts) {
        const std::string first = fact.get(runs.front());
        for (std::size_t i = 1; i < runs.size(); ++i) {
            const std::string other = fact.get(runs[i]);
            if (!first.empty() && !other.empty() && first != other) {
                out.push_back((fact.what != nullptr ? std::string(fact.what) : fact.named) + " differs: " + first +
                              " (" + runs.front().name + ") vs " + other + " (" + runs[i].name + ")");
            }
        }
    }
    return out;
}

std::string kernelsLine(const std::vector<RunFacts>& runs)
{
    std::string line = "kernels:";
    bool sameRelease = true;
    bool sameBuild = true;
    bool buildsKnown = true;
    for (std::size_t i = 0; i < runs.size(); ++i) {
        const std::string build = kernelFact(runs[i], "build_id");
        line += (i == 0 ? " " : " vs ") + (runs[i].kernel.empty() ? std::string("unknown") : runs[i].kernel) +
                (build.empty() ? std::string() : " build " + build.substr(0, 12)) + " (" + runs[i].name + ")";
        sameRelease = sameRelease && runs[i].kernel == runs.front().kernel;
        sameBuild = sameBuild && build == kernelFact(runs.front(), "build_id");
        buildsKnown = buildsKnown && !build.empty();
    }
    if (sameRelease && !runs.empty() && !runs.front().kernel.empty()) {
        if (!buildsKnown) {
            line += " -- the same release (builds unknown: two builds without LOCALVERSION share it)";
        } else {
            line += sameBuild ? " -- the same kernel build" : " -- the same release, different builds";
        }
    }
    return line;
}

}  // namespace nf::engine
