// noisefloor check: what this machine can measure and what adds noise, with fixes.

#include <algorithm>
#include <iostream>

#include "app/cli/cli.h"
#include "base/system_facts.h"
#include "engine/net/iface_check.h"
#include "engine/report/text_table.h"
#include "engine/run/cpu_claim.h"
#include "engine/run/environment.h"

namespace nf::cli {

namespace {

// Which CPUs other runs measure on now: where a run would be refused (or share, --share-cpus).
engine::MachineCheck cpusCheck(const std::vector<int>& online)
{
    const auto inUse = engine::cpusInUse(online);
    if (inUse.empty()) {
        return {.name = "CPUs in use",
                .level = engine::MachineCheck::Level::Ok,
                .detail = "no run measures on any CPU now",
                .fix = ""};
    }
    std::string detail;
    for (const auto& line : inUse) {
        detail += (detail.empty() ? "" : "; ") + line;
    }
    return {.name = "CPUs in use",
            .level = engine::MachineCheck::Level::Info,
            .detail = detail,
            .fix =
                "a run on these CPUs is refused until they are free: choose other CPUs, wait, or pass "
                "--share-cpus (its figures then carry the other run's load)"};
}

// check --cpus: the CPU topology alone, for choosing CPUs on this host from another (the GUI's --host).
int showCpus(const std::string& format)
{
    const auto facts = base::readCpuFacts();
    if (format == "json") {
        std::cout << engine::cpuTopologyJson(facts).dump(2) << '\n';
        return 0;
    }
    engine::TextTable table({"cpu", "core", "package", "smt siblings", "allowed"});
    for (const auto& c : facts.cpus) {
        const bool allowed =
            std::find(facts.allowedCpus.begin(), facts.allowedCpus.end(), c.id) != facts.allowedCpus.end();
        table.addRow({std::to_string(c.id), std::to_string(c.core), std::to_string(c.package),
                      base::formatCpuList(c.siblings), allowed ? "yes" : "no"});
    }
    table.write(std::cout);
    return 0;
}

int runChecks(const std::string& format, const std::string& iface)
{
    const auto facts = base::readSystemFacts();
    auto checks = engine::checkMachine(facts);
    checks.push_back(cpusCheck(facts.onlineCpus));
    if (!iface.empty()) {
        auto net = engine::net::checkInterface(iface);
        if (!net) {
            return fail(kExitRuntime, net.error().message);
        }
        checks.insert(checks.end(), net->begin(), net->end());
    }
    if (format == "json") {
        std::cout << engine::toJson(checks).dump(2) << '\n';
        return 0;
    }
    engine::TextTable table({"", "check", "finding"});
    for (const auto& c : checks) {
        table.addRow({std::string(engine::toString(c.level)), c.name, c.detail});
        if (!c.fix.empty()) {
            table.addRow({"", "", "fix: " + c.fix});
        }
    }
    table.write(std::cout);
    return 0;
}

}  // namespace

Command addCheckCommand(CLI::App& app)
{
    auto format = std::make_shared<std::string>("text");
    auto* sub = app.add_subcommand("check", "What this machine can measure and what adds noise, with fixes");
    auto iface = std::make_shared<std::string>();
    sub->add_option("--format", *format, "text or json")->check(CLI::IsMember({"text", "json"}))->capture_default_str();
    sub->add_option("--iface", *iface,
                    "also report network facts of this interface: driver, queues, IRQ affinity, GRO, busy "
                    "polling, irqbalance, RPS/XPS");
    auto cpus = std::make_shared<bool>(false);
    sub->add_flag("--cpus", *cpus, "only the CPUs runs could measure on: id, core, package, SMT siblings, allowed");
    return {sub, [format, iface, cpus] { return *cpus ? showCpus(*format) : runChecks(*format, *iface); }};
}

}  // namespace nf::cli
