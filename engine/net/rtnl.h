#pragma once
// The few rtnetlink operations the testbed, `cleanup` and xdp-rx need, over libnl-route-3. Each
// socket is bound to the namespace it was opened in.

#include <array>
#include <cstdint>
#include <memory>
#include <string>
#include <vector>

#include "base/result.h"

struct nl_sock;

namespace nf::engine::net {

// A device's packet counters and receive-queue count.
struct LinkCounters {
    std::uint64_t rxPackets = 0;
    std::uint64_t rxDropped = 0;
    std::uint64_t txPackets = 0;
    std::uint64_t txDropped = 0;
    int rxQueues = 0;
};

class RtnlSocket {
public:
    // A NETLINK_ROUTE socket in namespace `nsFd` (-1: the calling thread's).
    static Result<RtnlSocket> open(int nsFd = -1);
    RtnlSocket(RtnlSocket&&) noexcept;
    RtnlSocket& operator=(RtnlSocket&&) noexcept;
    RtnlSocket(const RtnlSocket&) = delete;
    RtnlSocket& operator=(const RtnlSocket&) = delete;
    ~RtnlSocket();

    // A veth pair: `name` here, `peer` moved into namespace `peerNsFd`.
    Result<void> addVeth(const std::string& name, const std::array<std::uint8_t, 6>& mac, const std::string& peer,
                         const std::array<std::uint8_t, 6>& peerMac, int peerNsFd);
    Result<int> ifindex(const std::string& name);
    Result<void> setUp(const std::string& name);
    Result<void> addAddress(int ifindex, const std::string& cidr);
    Result<void> addStaticNeighbour(int ifindex, const std::string& ip, const std::array<std::uint8_t, 6>& mac);
    Result<void> deleteLink(const std::string& name);
    std::vector<std::string> linkNames();
    Result<LinkCounters> linkCounters(int ifindex);

private:
    explicit RtnlSocket(nl_sock* sock) : m_sock(sock) {}
    nl_sock* m_sock = nullptr;
};

}  // namespace nf::engine::net
