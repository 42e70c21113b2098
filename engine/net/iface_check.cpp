#include "engine/net/iface_check.h"

#include <linux/ethtool.h>
#include <net/if.h>
#include <sys/socket.h>

#include <algorithm>
#include <cctype>
#include <cstdlib>
#include <cstring>
#include <filesystem>
#include <fstream>
#include <map>
#include <set>
#include <sstream>

#include "engine/net/ethtool.h"
#include "engine/net/netns.h"
#include "engine/net/xdp_check.h"

namespace nf::engine::net {

namespace {

namespace fs = std::filesystem;
using Level = MachineCheck::Level;

std::string firstLine(const fs::path& path)
{
    std::ifstream in(path);
    std::string line;
    std::getline(in, line);
    return line;
}

std::vector<std::string> queueDirs(const std::string& iface, const std::string& prefix)
{
    std::vector<std::string> out;
    std::error_code ec;
    for (const auto& e : fs::directory_iterator("/sys/class/net/" + iface + "/queues", ec)) {
        const auto name = e.path().filename().string();
        if (name.rfind(prefix, 0) == 0) {
            out.push_back(name);
        }
    }
    std::sort(out.begin(), out.end());
    return out;
}

MachineCheck driverCheck(const std::string& iface)
{
    ethtool_drvinfo info{};
    info.cmd = ETHTOOL_GDRVINFO;
    if (!net::ethtool(iface, &info)) {
        return {"driver", Level::Info, "unknown (ethtool GDRVINFO refused)", ""};
    }
    std::string detail = std::string(info.driver) + (info.version[0] != '\0' ? " " + std::string(info.version) : "");
    if (info.bus_info[0] != '\0') {
        detail += ", bus " + std::string(info.bus_info);
    }
    return {"driver", Level::Info, detail, ""};
}

MachineCheck queueCheck(const std::string& iface)
{
    const auto rx = queueDirs(iface, "rx-");
    const auto tx = queueDirs(iface, "tx-");
    return {"queues", Level::Info, std::to_string(rx.size()) + " rx, " + std::to_string(tx.size()) + " tx", ""};
}

// IRQs of the device: its MSI vectors, and /proc/interrupts lines naming the interface or device.
MachineCheck irqCheck(const std::string& iface)
{
    std::set<int> irqs;
    std::error_code ec;
    const fs::path dev = "/sys/class/net/" + iface + "/device";
    for (const auto& dir : {dev / "msi_irqs", dev / ".." / "msi_irqs"}) {
        for (const auto& e : fs::directory_iterator(dir, ec)) {
            irqs.insert(std::atoi(e.path().filename().c_str()));
        }
    }
    const std::string devName = fs::exists(dev) ? fs::canonical(dev, ec).filename().string() : "";
    std::map<int, std::string> actions;
    std::ifstream in("/proc/interrupts");
    std::string line;
    while (std::getline(in, line)) {
        std::istringstream words(line);
        std::string first;
        words >> first;
        if (first.empty() || first.back() != ':' || std::isdigit(static_cast<unsigned char>(first[0])) == 0) {
            continue;
        }
        const int irq = std::atoi(first.c_str());
        const auto name = line.substr(line.find_last_of(' ') + 1);
        if (name.find(iface) != std::string::npos || (!devName.empty() && name.rfind(devName, 0) == 0)) {
            irqs.insert(irq);
        }
        actions[irq] = name;
    }
    if (irqs.empty()) {
        return {"queue IRQs", Level::Info, "none (a virtual device: receive work runs in softirq where it is sent)",
                ""};
    }
    std::string detail;
    for (int irq : irqs) {
        detail += (detail.empty() ? "" : "; ") + std::string("IRQ ") + std::to_string(irq) +
                  (actions.count(irq) != 0 ? " (" + actions[irq] + ")" : "") + " -> CPUs " +
                  firstLine("/proc/irq/" + std::to_string(irq) + "/smp_affinity_list");
    }
    return {"queue IRQs", Level::Info, detail,
            "pin rx_cpu to, or away from, the CPU of the queue's IRQ on purpose: it is where NAPI runs"};
}

MachineCheck groCheck(const std::string& iface)
{
    ethtool_value value{ETHTOOL_GGRO, 0};
    if (!net::ethtool(iface, &value)) {
        return {"GRO", Level::Info, "unknown (ethtool GGRO refused)", ""};
    }
    return {"GRO", Level::Info, value.data != 0 ? "on" : "off", ""};
}

MachineCheck busyPollCheck(const std::string& iface)
{
    const auto poll = firstLine("/proc/sys/net/core/busy_poll");
    const auto read = firstLine("/proc/sys/net/core/busy_read");
    const auto defer = firstLine("/sys/class/net/" + iface + "/napi_defer_hard_irqs");
    const auto flush = firstLine("/sys/class/net/" + iface + "/gro_flush_timeout");
    return {"busy polling", Level::Info,
            "net.core.busy_poll=" + poll + " us, net.core.busy_read=" + read + " us, napi_defer_hard_irqs=" + defer +
                ", gro_flush_timeout=" + flush + " ns",
            ""};
}

MachineCheck irqbalanceCheck()
{
    std::error_code ec;
    for (const auto& e : fs::directory_iterator("/proc", ec)) {
        const auto name = e.path().filename().string();
        if (!name.empty() && std::isdigit(static_cast<unsigned char>(name[0])) != 0 &&
            firstLine(e.path() / "comm") == "irqbalance") {
            return {"irqbalance", Level::Warn, "running (pid " + name + "): it may move queue IRQs during a run",
                    "systemctl stop irqbalance, and set the IRQ affinity by hand"};
        }
    }
    return {"irqbalance", Level::Ok, "not running", ""};
}

MachineCheck steeringCheck(const std::string& iface, const std::string& prefix, const std::string& file,
                           const std::string& name)
{
    std::string on;
    for (const auto& q : queueDirs(iface, prefix)) {
        const auto mask = firstLine("/sys/class/net/" + iface + "/queues/" + q + "/" + file);
        if (!mask.empty() && mask.find_first_not_of("0,") != std::string::npos) {
            on += (on.empty() ? "" : ", ") + q + "=" + mask;
        }
    }
    return {name, Level::Info, on.empty() ? "off on every queue" : on, ""};
}

}  // namespace

Result<std::vector<MachineCheck>> checkInterface(const std::string& iface)
{
    if (iface.empty() || iface.size() >= IFNAMSIZ || iface.find('/') != std::string::npos ||
        if_nametoindex(iface.c_str()) == 0) {
        return Error{"--iface " + iface + ": no such network interface"};
    }
    std::vector<MachineCheck> out;
    out.push_back(driverCheck(iface));
    out.push_back(queueCheck(iface));
    out.push_back(irqCheck(iface));
    out.push_back(groCheck(iface));
    out.push_back(busyPollCheck(iface));
    out.push_back(irqbalanceCheck());
    out.push_back(steeringCheck(iface, "rx-", "rps_cpus", "RPS"));
    out.push_back(steeringCheck(iface, "tx-", "xps_cpus", "XPS"));
    for (auto& c : checkXdp(static_cast<int>(if_nametoindex(iface.c_str())))) {
        out.push_back(std::move(c));
    }
    for (auto& c : out) {
        c.name = iface + ": " + c.name;
    }
    return out;
}

}  // namespace nf::engine::net
