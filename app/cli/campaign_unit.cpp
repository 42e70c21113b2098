// `campaign install NAME` and `campaign remove NAME`: the systemd unit that runs `noisefloor
// campaign next NAME` once at every boot, after the network is up. It is written under the
// identity root (NOISEFLOOR_SYSROOT, else /) as etc/systemd/system/noisefloor-campaign-NAME.service,
// and enabled (or disabled) with systemctl only when systemd runs this machine and no other root is
// named. `remove` deletes only a unit that this command wrote (its first line says so).

#include <algorithm>
#include <cctype>
#include <filesystem>
#include <fstream>
#include <iostream>

#include <fmt/format.h>

#include "app/cli/atomic_file.h"
#include "app/cli/campaign.h"
#include "app/cli/run_lookup.h"
#include "app/cli/self_process.h"
#include "data/campaign_store.h"
#include "probes/kernel_identity.h"

namespace nf::cli {
namespace {

namespace fs = std::filesystem;

std::string unitName(const std::string& campaign)
{
    return "noisefloor-campaign-" + campaign + ".service";
}

fs::path unitPath(const std::string& campaign)
{
    const std::string root = probes::identityRoot();
    return fs::path(root.empty() ? "/" : root) / "etc/systemd/system" / unitName(campaign);
}

std::string marker(const std::string& campaign)
{
    return "# written by noisefloor campaign install " + campaign;
}

bool systemdRuns()
{
    std::error_code ec;
    return probes::identityRoot().empty() && fs::is_directory("/run/systemd/system", ec);
}

// systemd's quoting of one word of ExecStart: double quotes, with \ and " escaped, % (a
// specifier) and $ (a variable) doubled.
std::string execWord(const std::string& word)
{
    std::string out = "\"";
    for (const char c : word) {
        if (c == '\\' || c == '"') {
            out += '\\';
        }
        out += c == '%' ? std::string("%%") : c == '$' ? std::string("$$") : std::string(1, c);
    }
    return out + "\"";
}

// A path in a unit's setting: % doubled (systemd expands specifiers there).
std::string unitPathValue(const std::string& path)
{
    std::string out;
    for (const char c : path) {
        out += c == '%' ? std::string("%%") : std::string(1, c);
    }
    return out;
}

bool hasControl(const std::string& text)
{
    return std::any_of(text.begin(), text.end(), [](unsigned char c) { return c < 0x20 || c == 0x7f; });
}

bool validCampaignName(const std::string& name)
{
    return !name.empty() && name.size() <= 64 && name.front() != '.' && name.front() != '-' &&
           std::all_of(name.begin(), name.end(),
                       [](unsigned char c) { return std::isalnum(c) != 0 || c == '_' || c == '.' || c == '-'; });
}

std::string unitText(const engine::Campaign& c, const std::string& db)
{
    return fmt::format(
        "{marker}\n"
        "[Unit]\n"
        "Description=noisefloor campaign {name}: the recipe after each boot\n"
        "Wants=network-online.target\n"
        "After=network-online.target multi-user.target\n"
        "\n"
        "[Service]\n"
        "Type=oneshot\n"
        "WorkingDirectory={workdir}\n"
        "ExecStart={self} --db {db} campaign next {quoted}\n"
        "TimeoutStartSec=infinity\n"
        "\n"
        "[Install]\n"
        "WantedBy=multi-user.target\n",
        fmt::arg("marker", marker(c.plan.name)), fmt::arg("name", c.plan.name),
        fmt::arg("workdir", unitPathValue(c.plan.workdir)), fmt::arg("self", execWord(selfExecutable())),
        fmt::arg("db", execWord(db)), fmt::arg("quoted", execWord(c.plan.name)));
}

}  // namespace

int installCampaignUnit(const std::string& name, const Context& ctx)
{
    const std::string db = fs::absolute(databasePath(ctx)).string();
    if (!validCampaignName(name)) {
        return fail(kExitUsage, "campaign name '" + name + "': 1-64 letters, digits, '_', '.' or '-'");
    }
    if (hasControl(db)) {
        return fail(kExitUsage, "the database path holds a control character; a unit file cannot name it");
    }
    auto store = openExisting(ctx);
    if (!store) {
        return failWith(store.error());
    }
    auto campaign = data::loadCampaign(*store, name);
    if (!campaign) {
        return failWith(usageError(campaign.error().message));
    }
    if (hasControl(campaign->plan.workdir)) {
        return fail(kExitUsage, "the campaign's directory holds a control character; a unit file cannot name it");
    }
    const fs::path path = unitPath(name);
    std::error_code ec;
    fs::create_directories(path.parent_path(), ec);
    if (auto written = writeFileWhole(path.string(), unitText(*campaign, db)); !written) {
        return fail(kExitRuntime, written.error().message);
    }
    std::cout << "wrote " << path.string() << '\n';
    if (!systemdRuns()) {
        std::cout << "not enabled: systemd does not run this machine"
                  << (probes::identityRoot().empty() ? "" : " (NOISEFLOOR_SYSROOT is set)")
                  << "; run 'noisefloor campaign next " << name << "' after each boot\n";
        return 0;
    }
    for (const std::vector<std::string>& argv :
         {std::vector<std::string>{"systemctl", "daemon-reload"}, {"systemctl", "enable", unitName(name)}}) {
        auto status = runProgram(argv);
        if (!status || *status != 0) {
            return fail(kExitRuntime,
                        argv[0] + " " + argv[1] + " failed; " + path.string() + " is written but not enabled");
        }
    }
    std::cout << "enabled " << unitName(name) << ": campaign next runs at every boot\n";
    return 0;
}

int removeCampaignUnit(const std::string& name)
{
    if (!validCampaignName(name)) {
        return fail(kExitUsage, "campaign name '" + name + "': 1-64 letters, digits, '_', '.' or '-'");
    }
    const fs::path path = unitPath(name);
    std::ifstream in(path);
    if (!in) {
        return fail(kExitRuntime, "no unit " + path.string() + " to remove");
    }
    std::string first;
    std::getline(in, first);
    if (first != marker(name)) {
        return fail(kExitRuntime, path.string() + " was not written by noisefloor campaign install; left as it is");
    }
    if (systemdRuns()) {
        (void)runProgram({"systemctl", "disable", unitName(name)});
    }
    std::error_code ec;
    if (!fs::remove(path, ec)) {
        return fail(kExitRuntime, "cannot remove " + path.string() + ": " + ec.message());
    }
    if (systemdRuns()) {
        (void)runProgram({"systemctl", "daemon-reload"});
    }
    std::cout << "removed " << path.string() << '\n';
    return 0;
}

}  // namespace nf::cli
