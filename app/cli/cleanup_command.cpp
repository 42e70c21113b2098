// noisefloor cleanup: removes the namespaces and devices, and detaches the XDP programs, that a killed
// live run left behind.

#include <iostream>

#include "app/cli/cli.h"
#include "engine/net/cleanup.h"
#include "engine/net/cpu_pin.h"

namespace nf::cli {

namespace {

int runCleanup(bool dryRun)
{
    if (dryRun) {
        const auto found = engine::net::findLeftovers();
        for (const auto& l : found) {
            std::cout << (l.kind == "xdp" ? "would detach " : "would remove ") << l.kind << " " << l.name << " (pid "
                      << l.pid << " is gone)\n";
        }
        if (found.empty()) {
            std::cout << "nothing to remove\n";
        }
        return 0;
    }
    if (auto r = engine::net::requireNetworkCapabilities("cleanup"); !r) {
        return fail(kExitRuntime, r.error().message);
    }
    const auto report = engine::net::removeLeftovers();
    for (const auto& l : report.removed) {
        std::cout << (l.kind == "xdp" ? "detached " : "removed ") << l.kind << " " << l.name << " (pid " << l.pid
                  << " is gone)\n";
    }
    for (const auto& n : report.notes) {
        std::cout << "forgot " << n << "\n";
    }
    if (report.removed.empty() && report.failures.empty()) {
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
        "Remove network namespaces and devices (nf<pid>...) and detach XDP programs left by live runs whose "
        "process is gone");
    sub->add_flag("--dry-run", *dryRun, "only list what would be removed");
    return {sub, [dryRun] { return runCleanup(*dryRun); }};
}

}  // namespace nf::cli
