#include "engine/net/testbed.h"

#include <arpa/inet.h>
#include <linux/ethtool.h>
#include <net/if.h>
#include <sys/socket.h>
#include <unistd.h>

#include <sys/stat.h>

#include <atomic>
#include <cstring>

#include "engine/net/ethtool.h"
#include "engine/net/rtnl.h"

namespace nf::engine::net {

namespace {

constexpr const char* kTxAddr = "192.0.2.1";
constexpr const char* kRxAddr = "192.0.2.2";
constexpr std::array<std::uint8_t, 6> kTxMac = {0x02, 0x6e, 0x66, 0x00, 0x00, 0x01};  // locally administered
constexpr std::array<std::uint8_t, 6> kRxMac = {0x02, 0x6e, 0x66, 0x00, 0x00, 0x02};

in_addr ipv4(const char* text)
{
    in_addr a{};
    ::inet_pton(AF_INET, text, &a);
    return a;
}

// Brings `lo` up in the namespace a socket is bound to (a new namespace has it down).
Result<void> loopbackUp(RtnlSocket& sock)
{
    return sock.setUp("lo");
}

}  // namespace

std::uint64_t netnsInode(int nsFd)
{
    struct stat st {};
    return ::fstat(nsFd, &st) == 0 ? st.st_ino : 0;
}

std::string Testbed::namePrefix()
{
    return "nf" + std::to_string(::getpid());
}

Result<void> setGro(int nsFd, const std::string& ifname, bool on)
{
    auto guard = NetnsGuard::enter(nsFd);
    if (!guard) {
        return guard.error();
    }
    ethtool_value value{ETHTOOL_SGRO, on ? 1U : 0U};
    if (auto r = ethtool(ifname, &value); !r) {
        return Error::fromErrno(std::string("cannot turn GRO ") + (on ? "on" : "off") + " on " + ifname,
                                r.error().errnum);
    }
    return {};
}

Result<std::unique_ptr<Testbed>> Testbed::create(const TestbedOptions& options)
{
    std::unique_ptr<Testbed> bed(new Testbed());
    bed->m_options = options;
    auto r = options.path == TestbedPath::Veth ? bed->setUpVeth() : bed->setUpLoopback();
    if (!r) {
        return r.error();  // the destructor removes whatever was made
    }
    return bed;
}

Result<void> Testbed::setUpLoopback()
{
    auto ns = createNetns();
    if (!ns) {
        return ns.error();
    }
    m_rxNs = std::move(*ns);
    auto sock = RtnlSocket::open(m_rxNs.get());
    if (!sock) {
        return sock.error();
    }
    if (auto r = loopbackUp(*sock); !r) {
        return r;
    }
    auto index = sock->ifindex("lo");
    if (!index) {
        return index.error();
    }
    m_rx = {m_rxNs.get(), "lo", *index, ipv4("127.0.0.1"), {}};
    m_tx = m_rx;
    return {};
}

Result<void> Testbed::setUpVeth()
{
    static std::atomic<int> serial{0};
    const int n = serial++;
    auto txNs = createNetns();
    if (!txNs) {
        return txNs.error();
    }
    m_txNs = std::move(*txNs);
    auto rxNs = createNetns();
    if (!rxNs) {
        return rxNs.error();
    }
    m_rxNs = std::move(*rxNs);
    m_tx = {m_txNs.get(), namePrefix() + "t" + std::to_string(n), 0, ipv4(kTxAddr), kTxMac};
    m_rx = {m_rxNs.get(), namePrefix() + "r" + std::to_string(n), 0, ipv4(kRxAddr), kRxMac};

    // The owner lock names both namespaces (by inode) and both devices before the devices exist:
    // `noisefloor cleanup` removes a device of a dead testbed only from a namespace it recorded.
    auto owner = OwnerLock::acquire("testbed", m_tx.ifname, "noisefloor live testbed",
                                    {{"tx_netns", std::to_string(netnsInode(m_txNs.get()))},
                                     {"rx_netns", std::to_string(netnsInode(m_rxNs.get()))},
                                     {"tx_link", m_tx.ifname},
                                     {"rx_link", m_rx.ifname}});
    if (!owner) {
        return owner.error();
    }
    if (owner->holder) {
        return Error{"testbed " + m_tx.ifname + " is in use by " + describeOwner(*owner->holder)};
    }
    m_owner.emplace(std::move(*owner->lock));

    auto txSock = RtnlSocket::open(m_txNs.get());
    if (!txSock) {
        return txSock.error();
    }
    auto rxSock = RtnlSocket::open(m_rxNs.get());
    if (!rxSock) {
        return rxSock.error();
    }
    if (auto r = txSock->addVeth(m_tx.ifname, m_tx.mac, m_rx.ifname, m_rx.mac, m_rxNs.get()); !r) {
        return r;
    }
    m_vethMade = true;
    struct Side {
        RtnlSocket& sock;
        Endpoint& self;
        const Endpoint& peer;
    };
    for (Side side : {Side{*txSock, m_tx, m_rx}, Side{*rxSock, m_rx, m_tx}}) {
        if (auto r = loopbackUp(side.sock); !r) {
            return r;
        }
        auto index = side.sock.ifindex(side.self.ifname);
        if (!index) {
            return index.error();
        }
        side.self.ifindex = *index;
        char text[INET_ADDRSTRLEN] = {};
        ::inet_ntop(AF_INET, &side.self.addr, text, sizeof text);
        if (auto r = side.sock.addAddress(*index, std::string(text) + "/24"); !r) {
            return r;
        }
        ::inet_ntop(AF_INET, &side.peer.addr, text, sizeof text);
        if (auto r = side.sock.addStaticNeighbour(*index, text, side.peer.mac); !r) {
            return r;
        }
    }
    if (auto r = setGro(m_rxNs.get(), m_rx.ifname, m_options.rxGro); !r) {
        return r;
    }
    for (Side side : {Side{*rxSock, m_rx, m_tx}, Side{*txSock, m_tx, m_rx}}) {
        if (auto r = side.sock.setUp(side.self.ifname); !r) {
            return r;
        }
    }
    return {};
}

Testbed::~Testbed()
{
    // Deleting one end deletes the pair; the namespaces go when their last descriptor closes.
    if (m_vethMade && m_txNs.valid()) {
        if (auto sock = RtnlSocket::open(m_txNs.get())) {
            static_cast<void>(sock->deleteLink(m_tx.ifname));
        }
    }
}

}  // namespace nf::engine::net
