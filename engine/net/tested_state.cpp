#include "engine/net/tested_state.h"

#include <linux/ethtool.h>
#include <net/if.h>

#include <fmt/format.h>
#include <cstring>
#include <filesystem>
#include <fstream>
#include <optional>
#include <sstream>

#include "engine/net/ethtool.h"
#include "engine/net/netns.h"
#include "engine/net/xdp_check.h"

namespace nf::engine::net {

namespace {

std::string onOff(bool on)
{
    return on ? "on" : "off";
}

// The offloads ethtool -k shows that change what the receive path does with a packet.
void readFeatures(const std::string& ifname, TestedState& state)
{
    const std::pair<std::uint32_t, const char*> flags[] = {
        {ETHTOOL_GRXCSUM, "rx-checksum"},
        {ETHTOOL_GTXCSUM, "tx-checksum"},
        {ETHTOOL_GSG, "scatter-gather"},
        {ETHTOOL_GTSO, "tso"},
        {ETHTOOL_GGSO, "gso"},
        {ETHTOOL_GGRO, "gro"},
    };
    for (const auto& [cmd, name] : flags) {
        ethtool_value value{cmd, 0};
        state[ifname + " " + name] = ethtool(ifname, &value) ? onOff(value.data != 0) : kUnavailable;
    }
    ethtool_value value{ETHTOOL_GFLAGS, 0};
    const bool flagsRead = static_cast<bool>(ethtool(ifname, &value));
    const std::pair<std::uint32_t, const char*> bits[] = {
        {ETH_FLAG_LRO, "lro"}, {ETH_FLAG_RXHASH, "rxhash"}, {ETH_FLAG_NTUPLE, "ntuple"}, {ETH_FLAG_RXVLAN, "rxvlan"}};
    for (const auto& [bit, name] : bits) {
        state[ifname + " " + name] = flagsRead ? onOff((value.data & bit) != 0) : kUnavailable;
    }
}

// The driver and its firmware (ethtool -i): a driver or firmware updated between two boots changes
// what the same kernel code costs.
void readDriver(const std::string& ifname, TestedState& state)
{
    ethtool_drvinfo info{};
    info.cmd = ETHTOOL_GDRVINFO;
    if (!ethtool(ifname, &info)) {
        state[ifname + " driver"] = state[ifname + " firmware"] = kUnavailable;
        return;
    }
    const auto text = [](const char* field, std::size_t size) { return std::string(field, strnlen(field, size)); };
    state[ifname + " driver"] = text(info.driver, sizeof info.driver) + " " + text(info.version, sizeof info.version);
    const std::string firmware = text(info.fw_version, sizeof info.fw_version);
    state[ifname + " firmware"] = firmware.empty() ? "none" : firmware;
}

// Channels, rings and interrupt coalescing (ethtool -l, -g, -c).
void readQueues(const std::string& ifname, TestedState& state)
{
    ethtool_channels channels{};
    channels.cmd = ETHTOOL_GCHANNELS;
    state[ifname + " channels"] = ethtool(ifname, &channels)
                                      ? fmt::format("rx {} tx {} other {} combined {}", channels.rx_count,
                                                    channels.tx_count, channels.other_count, channels.combined_count)
                                      : kUnavailable;
    ethtool_ringparam rings{};
    rings.cmd = ETHTOOL_GRINGPARAM;
    state[ifname + " rings"] =
        ethtool(ifname, &rings) ? fmt::format("rx {} tx {}", rings.rx_pending, rings.tx_pending) : kUnavailable;
    ethtool_coalesce coalesce{};
    coalesce.cmd = ETHTOOL_GCOALESCE;
    state[ifname + " coalescing"] =
        ethtool(ifname, &coalesce)
            ? fmt::format("rx-usecs {} rx-frames {} tx-usecs {} tx-frames {} adaptive-rx {} adaptive-tx {}",
                          coalesce.rx_coalesce_usecs, coalesce.rx_max_coalesced_frames, coalesce.tx_coalesce_usecs,
                          coalesce.tx_max_coalesced_frames, onOff(coalesce.use_adaptive_rx_coalesce != 0),
                          onOff(coalesce.use_adaptive_tx_coalesce != 0))
            : kUnavailable;
}

// The XDP programs attached and in which mode ("native nf_xsk_redirect"), "none" when none is.
void readXdp(const std::string& ifname, TestedState& state)
{
    const unsigned ifindex = ::if_nametoindex(ifname.c_str());
    if (ifindex == 0) {
        state[ifname + " xdp"] = kUnavailable;
        return;
    }
    std::string attached;
    for (const auto& p : attachedXdpPrograms(static_cast<int>(ifindex))) {
        attached += (attached.empty() ? "" : ", ") + p.mode + " " + p.name;
    }
    state[ifname + " xdp"] = attached.empty() ? "none" : attached;
}

std::optional<std::string> readLine(const std::filesystem::path& path)
{
    std::ifstream in(path);
    std::string line;
    if (!in || !std::getline(in, line)) {
        return std::nullopt;
    }
    return line;
}

// RPS and XPS masks per queue, and the affinity of the device's interrupts, from /sys and /proc:
// only for a device in this process's own namespace (/sys shows the namespace it was mounted in).
void readMasks(const TestedDevice& device, TestedState& state)
{
    const std::string& ifname = device.ifname;
    const std::filesystem::path queues = "/sys/class/net/" + ifname + "/queues";
    std::error_code ec;
    if (device.nsFd >= 0 || !std::filesystem::is_directory(queues, ec)) {
        state[ifname + " rps"] = state[ifname + " xps"] = state[ifname + " irq affinity"] = kUnavailable;
        return;
    }
    std::map<std::string, std::string> rps;
    std::map<std::string, std::string> xps;
    for (const auto& q : std::filesystem::directory_iterator(queues, ec)) {
        const auto name = q.path().filename().string();
        if (name.rfind("rx-", 0) == 0) {
            rps[name] = readLine(q.path() / "rps_cpus").value_or(kUnavailable);
        } else if (name.rfind("tx-", 0) == 0) {
            xps[name] = readLine(q.path() / "xps_cpus").value_or(kUnavailable);
        }
    }
    const auto join = [](const std::map<std::string, std::string>& masks) {
        std::string out;
        for (const auto& [queue, mask] : masks) {
            out += (out.empty() ? "" : " ") + queue + "=" + mask;
        }
        return out.empty() ? std::string(kUnavailable) : out;
    };
    state[ifname + " rps"] = join(rps);
    state[ifname + " xps"] = join(xps);
    std::map<std::string, std::string> irqs;
    for (const auto& irq : std::filesystem::directory_iterator("/sys/class/net/" + ifname + "/device/msi_irqs", ec)) {
        const auto n = irq.path().filename().string();
        irqs[n] = readLine("/proc/irq/" + n + "/smp_affinity_list").value_or(kUnavailable);
    }
    state[ifname + " irq affinity"] = join(irqs);
}

}  // namespace

TestedState readTestedState(const std::vector<TestedDevice>& devices)
{
    TestedState state;
    for (const auto& device : devices) {
        if (device.ifname.empty()) {
            continue;
        }
        readMasks(device, state);
        std::optional<NetnsGuard> guard;
        if (device.nsFd >= 0) {
            auto entered = NetnsGuard::enter(device.nsFd);
            if (!entered) {
                state[device.ifname + " namespace"] = kUnavailable;
                continue;
            }
            guard.emplace(std::move(*entered));
        }
        readDriver(device.ifname, state);
        readFeatures(device.ifname, state);
        readQueues(device.ifname, state);
        readXdp(device.ifname, state);
    }
    return state;
}

}  // namespace nf::engine::net
