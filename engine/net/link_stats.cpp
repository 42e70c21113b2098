#include "net/link_stats.h"

#include <netlink/netlink.h>
#include <netlink/route/link.h>

#include <optional>
#include <utility>

#include "net/netns.h"

namespace nf::engine::net {

Result<LinkStatsReader> LinkStatsReader::open(int nsFd)
{
    std::optional<NetnsGuard> guard;
    if (nsFd >= 0) {
        auto g = NetnsGuard::enter(nsFd);
        if (!g) {
            return g.error();
        }
        guard.emplace(std::move(*g));
    }
    nl_sock* sock = nl_socket_alloc();
    if (sock == nullptr) {
        return Error{"cannot allocate a netlink socket"};
    }
    if (const int err = nl_connect(sock, NETLINK_ROUTE); err < 0) {
        nl_socket_free(sock);
        return Error{std::string("cannot open a NETLINK_ROUTE socket: ") + nl_geterror(err)};
    }
    return LinkStatsReader(sock);
}

LinkStatsReader::LinkStatsReader(LinkStatsReader&& other) noexcept : m_sock(std::exchange(other.m_sock, nullptr)) {}

LinkStatsReader::~LinkStatsReader()
{
    if (m_sock != nullptr) {
        nl_socket_free(m_sock);
    }
}

Result<LinkCounters> LinkStatsReader::read(int ifindex) const
{
    rtnl_link* link = nullptr;
    if (const int err = rtnl_link_get_kernel(m_sock, ifindex, nullptr, &link); err < 0) {
        return Error{"cannot read the counters of ifindex " + std::to_string(ifindex) + ": " + nl_geterror(err)};
    }
    LinkCounters c;
    c.rxPackets = rtnl_link_get_stat(link, RTNL_LINK_RX_PACKETS);
    c.rxDropped = rtnl_link_get_stat(link, RTNL_LINK_RX_DROPPED);
    c.txPackets = rtnl_link_get_stat(link, RTNL_LINK_TX_PACKETS);
    c.txDropped = rtnl_link_get_stat(link, RTNL_LINK_TX_DROPPED);
    c.rxQueues = static_cast<int>(rtnl_link_get_num_rx_queues(link));
    rtnl_link_put(link);
    return c;
}

}  // namespace nf::engine::net
