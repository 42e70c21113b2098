#include "engine/net/ethtool.h"

#include <linux/ethtool.h>
#include <linux/sockios.h>
#include <net/if.h>
#include <sys/ioctl.h>
#include <sys/socket.h>

#include <cstdlib>
#include <cstring>
#include <memory>
#include <optional>

#include "engine/net/netns.h"

namespace nf::engine::net {

namespace {

Result<void> ioctlOn(int sock, const std::string& ifname, void* request)
{
    ifreq ifr{};
    std::strncpy(ifr.ifr_name, ifname.c_str(), IFNAMSIZ - 1);
    ifr.ifr_data = static_cast<char*>(request);
    if (::ioctl(sock, SIOCETHTOOL, &ifr) != 0) {
        return Error::fromErrno("ethtool on " + ifname);
    }
    return {};
}

// A variable-length ethtool structure: the header followed by `n` items of `item` bytes.
template <typename T>
std::unique_ptr<T, decltype(&std::free)> withItems(std::size_t n, std::size_t item)
{
    return {static_cast<T*>(std::calloc(1, sizeof(T) + n * item)), &std::free};
}

}  // namespace

Result<void> ethtool(const std::string& ifname, void* request)
{
    Fd sock(::socket(AF_INET, SOCK_DGRAM | SOCK_CLOEXEC, 0));
    if (!sock.valid()) {
        return Error::fromErrno("cannot open an ethtool socket");
    }
    return ioctlOn(sock.get(), ifname, request);
}

Result<DeviceStats> DeviceStats::open(int nsFd, const std::string& ifname)
{
    DeviceStats s;
    s.m_ifname = ifname;
    {
        std::optional<NetnsGuard> guard;
        if (nsFd >= 0) {
            guard.emplace(NF_TRY(NetnsGuard::enter(nsFd)));
        }
        s.m_sock = Fd(::socket(AF_INET, SOCK_DGRAM | SOCK_CLOEXEC, 0));
    }
    if (!s.m_sock.valid()) {
        return Error::fromErrno("cannot open an ethtool socket");
    }
    auto info = withItems<ethtool_sset_info>(1, sizeof(std::uint32_t));
    info->cmd = ETHTOOL_GSSET_INFO;
    info->sset_mask = 1ULL << ETH_SS_STATS;
    if (auto r = ioctlOn(s.m_sock.get(), ifname, info.get()); !r || info->sset_mask == 0) {
        return s;  // no statistics of its own
    }
    const std::uint32_t count = info->data[0];
    auto strings = withItems<ethtool_gstrings>(count, ETH_GSTRING_LEN);
    strings->cmd = ETHTOOL_GSTRINGS;
    strings->string_set = ETH_SS_STATS;
    strings->len = count;
    NF_TRY(ioctlOn(s.m_sock.get(), ifname, strings.get()));
    for (std::uint32_t i = 0; i < strings->len; ++i) {
        const auto* name = reinterpret_cast<const char*>(strings->data + static_cast<std::size_t>(i) * ETH_GSTRING_LEN);
        s.m_names.emplace_back(name, strnlen(name, ETH_GSTRING_LEN));
    }
    return s;
}

DeviceStats deviceStats(int nsFd, const std::string& ifname)
{
    auto s = DeviceStats::open(nsFd, ifname);
    return s ? std::move(*s) : DeviceStats{};
}

Result<std::vector<std::uint64_t>> DeviceStats::read() const
{
    if (m_names.empty()) {
        return std::vector<std::uint64_t>{};
    }
    auto stats = withItems<ethtool_stats>(m_names.size(), sizeof(std::uint64_t));
    stats->cmd = ETHTOOL_GSTATS;
    stats->n_stats = static_cast<std::uint32_t>(m_names.size());
    NF_TRY(ioctlOn(m_sock.get(), m_ifname, stats.get()));
    return std::vector<std::uint64_t>(stats->data, stats->data + std::min<std::size_t>(stats->n_stats, m_names.size()));
}

}  // namespace nf::engine::net
