#include "engine/net/rtnl.h"

#include <linux/if.h>
#include <linux/neighbour.h>
#include <netlink/errno.h>
#include <netlink/netlink.h>
#include <netlink/route/addr.h>
#include <netlink/route/link.h>
#include <netlink/route/link/veth.h>
#include <netlink/route/neighbour.h>
#include <sys/socket.h>

#include <optional>
#include <utility>

#include "engine/net/netns.h"

namespace nf::engine::net {

namespace {

Error nlError(const std::string& what, int err)
{
    return Error{what + ": " + nl_geterror(err), 0};
}

// Owners of libnl objects.
struct LinkPut {
    void operator()(rtnl_link* l) const { rtnl_link_put(l); }
};
struct AddrPut {
    void operator()(nl_addr* a) const { nl_addr_put(a); }
};
using LinkPtr = std::unique_ptr<rtnl_link, LinkPut>;
using AddrPtr = std::unique_ptr<nl_addr, AddrPut>;

AddrPtr macAddr(const std::array<std::uint8_t, 6>& mac)
{
    return AddrPtr(nl_addr_build(AF_LLC, mac.data(), mac.size()));
}

Result<AddrPtr> parseAddr(const std::string& text, int family)
{
    nl_addr* a = nullptr;
    if (int err = nl_addr_parse(text.c_str(), family, &a); err < 0) {
        return nlError("bad address " + text, err);
    }
    return AddrPtr(a);
}

}  // namespace

Result<RtnlSocket> RtnlSocket::open(int nsFd)
{
    std::optional<NetnsGuard> guard;
    if (nsFd >= 0) {
        guard.emplace(NF_TRY(NetnsGuard::enter(nsFd)));
    }
    nl_sock* sock = nl_socket_alloc();
    if (sock == nullptr) {
        return Error{"cannot allocate a netlink socket"};
    }
    if (int err = nl_connect(sock, NETLINK_ROUTE); err < 0) {
        nl_socket_free(sock);
        return nlError("cannot open a rtnetlink socket", err);
    }
    return RtnlSocket(sock);
}

RtnlSocket::RtnlSocket(RtnlSocket&& other) noexcept : m_sock(std::exchange(other.m_sock, nullptr)) {}

RtnlSocket& RtnlSocket::operator=(RtnlSocket&& other) noexcept
{
    if (this != &other) {
        if (m_sock != nullptr) {
            nl_socket_free(m_sock);
        }
        m_sock = std::exchange(other.m_sock, nullptr);
    }
    return *this;
}

RtnlSocket::~RtnlSocket()
{
    if (m_sock != nullptr) {
        nl_socket_free(m_sock);
    }
}

Result<void> RtnlSocket::addVeth(const std::string& name, const std::array<std::uint8_t, 6>& mac,
                                 const std::string& peer, const std::array<std::uint8_t, 6>& peerMac, int peerNsFd)
{
    LinkPtr link(rtnl_link_veth_alloc());
    if (!link) {
        return Error{"cannot allocate a veth link"};
    }
    rtnl_link_set_name(link.get(), name.c_str());
    auto addr = macAddr(mac);
    rtnl_link_set_addr(link.get(), addr.get());
    LinkPtr peerLink(rtnl_link_veth_get_peer(link.get()));
    rtnl_link_set_name(peerLink.get(), peer.c_str());
    auto peerAddr = macAddr(peerMac);
    rtnl_link_set_addr(peerLink.get(), peerAddr.get());
    if (peerNsFd >= 0) {
        rtnl_link_set_ns_fd(peerLink.get(), peerNsFd);
    }
    if (int err = rtnl_link_add(m_sock, link.get(), NLM_F_CREATE | NLM_F_EXCL); err < 0) {
        return nlError("cannot create veth pair " + name + "/" + peer, err);
    }
    return {};
}

Result<int> RtnlSocket::ifindex(const std::string& name)
{
    rtnl_link* raw = nullptr;
    if (int err = rtnl_link_get_kernel(m_sock, 0, name.c_str(), &raw); err < 0) {
        return nlError("no interface " + name, err);
    }
    LinkPtr link(raw);
    return rtnl_link_get_ifindex(link.get());
}

Result<void> RtnlSocket::setUp(const std::string& name)
{
    rtnl_link* raw = nullptr;
    if (int err = rtnl_link_get_kernel(m_sock, 0, name.c_str(), &raw); err < 0) {
        return nlError("no interface " + name, err);
    }
    LinkPtr link(raw);
    LinkPtr change(rtnl_link_alloc());
    rtnl_link_set_flags(change.get(), IFF_UP);
    if (int err = rtnl_link_change(m_sock, link.get(), change.get(), 0); err < 0) {
        return nlError("cannot bring " + name + " up", err);
    }
    return {};
}

Result<void> RtnlSocket::addAddress(int ifindex, const std::string& cidr)
{
    auto local = NF_TRY(parseAddr(cidr, AF_INET));
    std::unique_ptr<rtnl_addr, void (*)(rtnl_addr*)> addr(rtnl_addr_alloc(), rtnl_addr_put);
    rtnl_addr_set_ifindex(addr.get(), ifindex);
    rtnl_addr_set_local(addr.get(), local.get());
    if (int err = rtnl_addr_add(m_sock, addr.get(), 0); err < 0) {
        return nlError("cannot add address " + cidr, err);
    }
    return {};
}

Result<void> RtnlSocket::addStaticNeighbour(int ifindex, const std::string& ip, const std::array<std::uint8_t, 6>& mac)
{
    auto dst = NF_TRY(parseAddr(ip, AF_INET));
    std::unique_ptr<rtnl_neigh, void (*)(rtnl_neigh*)> neigh(rtnl_neigh_alloc(), rtnl_neigh_put);
    rtnl_neigh_set_ifindex(neigh.get(), ifindex);
    rtnl_neigh_set_dst(neigh.get(), dst.get());
    auto ll = macAddr(mac);
    rtnl_neigh_set_lladdr(neigh.get(), ll.get());
    rtnl_neigh_set_state(neigh.get(), NUD_PERMANENT);
    if (int err = rtnl_neigh_add(m_sock, neigh.get(), NLM_F_CREATE | NLM_F_REPLACE); err < 0) {
        return nlError("cannot add static neighbour " + ip, err);
    }
    return {};
}

Result<void> RtnlSocket::deleteLink(const std::string& name)
{
    LinkPtr link(rtnl_link_alloc());
    rtnl_link_set_name(link.get(), name.c_str());
    if (int err = rtnl_link_delete(m_sock, link.get()); err < 0) {
        return nlError("cannot delete " + name, err);
    }
    return {};
}

std::vector<std::string> RtnlSocket::linkNames()
{
    std::vector<std::string> names;
    nl_cache* cache = nullptr;
    if (rtnl_link_alloc_cache(m_sock, AF_UNSPEC, &cache) < 0) {
        return names;
    }
    for (nl_object* o = nl_cache_get_first(cache); o != nullptr; o = nl_cache_get_next(o)) {
        names.emplace_back(rtnl_link_get_name(reinterpret_cast<rtnl_link*>(o)));  // NOLINT
    }
    nl_cache_free(cache);
    return names;
}

Result<LinkCounters> RtnlSocket::linkCounters(int ifindex)
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
