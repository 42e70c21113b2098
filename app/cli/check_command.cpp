// noisefloor check: what this machine can measure and what adds noise, with fixes.

#include <iostream>

#include "app/cli/cli.h"
#include "base/system_facts.h"
#include "engine/net/iface_check.h"
#include "engine/report/text_table.h"
#include "engine/run/environment.h"

namespace nf::cli {

namespace {

int runChecks(const std::string& format, const std::string& iface)
{
    auto checks = engine::checkMachine(base::readSystemFacts());
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
    return {sub, [format, iface] { return runChecks(*format, *iface); }};
}

}  // namespace nf::cli
