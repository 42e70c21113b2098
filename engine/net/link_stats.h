#pragma once
// A device's packet counters and receive-queue count, read through rtnetlink (libnl-route-3) in the
// namespace the reader was opened in: what xdp-rx reads of its testbed's two veth ends.

#include <cstdint>
#include <memory>

#include "result.h"

struct nl_sock;

namespace nf::engine::net {

struct LinkCounters {
    std::uint64_t rxPackets = 0;
    std::uint64_t rxDropped = 0;
    std::uint64_t txPackets = 0;
    std::uint64_t txDropped = 0;
    int rxQueues = 0;
};

class LinkStatsReader {
public:
    // A NETLINK_ROUTE socket in namespace `nsFd` (-1: the calling thread's).
    static Result<LinkStatsReader> open(int nsFd);
    LinkStatsReader(LinkStatsReader&& other) noexcept;
    LinkStatsReader& operator=(LinkStatsReader&&) = delete;
    LinkStatsReader(const LinkStatsReader&) = delete;
    LinkStatsReader& operator=(const LinkStatsReader&) = delete;
    ~LinkStatsReader();

    Result<LinkCounters> read(int ifindex) const;

private:
    explicit LinkStatsReader(nl_sock* sock) : m_sock(sock) {}
    nl_sock* m_sock = nullptr;
};

}  // namespace nf::engine::net
