// noisefloor cleanup: removes what a killed run left behind and can be proven to be the tool's
// (engine/net/cleanup.h); lists what only looks like it as "not ours, left alone".

#include <iostream>

#include "app/cli/cli.h"
#include "app/cli/terminal_text.h"
#include "engine/net/cleanup.h"
#include "engine/net/cpu_pin.h"

namespace nf::cli {

namespace {

using engine::net::LeftoverState;

void printLeftAlone(const std::vector<engine::net::Leftover>& found)
{
    for (const auto& l : found) {
        if (l.state == LeftoverState::NotOurs) {
            std::cout << "not ours, left alone: " << terminalText(l.kind + " " + l.name) << " (" << terminalText(l.why)
                      << ")\n";
        } else if (l.state == LeftoverState::InUse) {
            std::cout << "in use, left alone: " << terminalText(l.kind + " " + l.name) << " (" << terminalText(l.why)
                      << ")\n";
        }
    }
}

int runCleanup(bool dryRun)
{
    if (dryRun) {
        const auto found = engine::net::findLeftovers();
        bool any = false;
        for (const auto& l : found) {
            if (l.state == LeftoverState::Remove) {
                std::cout << (l.kind == "xdp"    ? "would detach "
                              : l.kind == "napi" ? "would put back "
                                                 : "would remove ")
                          << terminalText(l.kind + " " + l.name) << " (" << terminalText(l.why) << ")\n";
                any = true;
            }
        }
        printLeftAlone(found);
        if (!any) {
            std::cout << "nothing to remove\n";
        }
        return 0;
    }
    if (auto r = engine::net::requireNetworkCapabilities("cleanup"); !r) {
        return fail(kExitRuntime, r.error().message);
    }
    const auto report = engine::net::removeLeftovers();
    for (const auto& line : report.removed) {
        std::cout << terminalText(line) << "\n";
    }
    for (const auto& n : report.notes) {
        std::cout << "forgot " << terminalText(n) << "\n";
    }
    printLeftAlone(report.found);
    if (report.removed.empty() && report.notes.empty() && report.failures.empty()) {
        std::cout << "nothing to remove\n";
    }
    for (const auto& f : report.failures) {
        fail(kExitRuntime, "could not remove " + f);
    }
    return report.failures.empty() ? 0 : kExitRuntime;
}

}  // namespace

Command addCleanupCommand(CLI::App& app)
{
    auto dryRun = std::make_shared<bool>(false);
    auto* sub = app.add_subcommand(
        "cleanup",
        "Detach XDP programs and remove testbed devices that killed runs left, when an owner lock proves them the "
        "tool's; list what only looks like it as not ours");
    sub->add_flag("--dry-run", *dryRun, "only list what would be removed");
    return {sub, [dryRun] { return runCleanup(*dryRun); }};
}

}  // namespace nf::cli
