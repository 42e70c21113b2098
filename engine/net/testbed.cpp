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
    auto guard = NF_TRY(NetnsGuard::enter(nsFd));
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
    // On an error the destructor removes whatever was made.
    NF_TRY(options.path == TestbedPath::Veth ? bed->setUpVeth() : bed->setUpLoopback());
    return bed;
}

Result<void> Testbed::setUpLoopback()
{
    m_rxNs = NF_TRY(createNetns());
    auto sock = NF_TRY(RtnlSocket::open(m_rxNs.get()));
    NF_TRY(loopbackUp(sock));
    auto index = NF_TRY(sock.ifindex("lo"));
    m_rx = {m_rxNs.get(), "lo", index, ipv4("127.0.0.1"), {}};
    m_tx = m_rx;
    return {};
}

Result<void> Testbed::setUpVeth()
{
    static std::atomic<int> serial{0};
    const int n = serial++;
    m_txNs = NF_TRY(createNetns());
    m_rxNs = NF_TRY(createNetns());
    m_tx = {m_txNs.get(), namePrefix() + "t" + std::to_string(n), 0, ipv4(kTxAddr), kTxMac};
    m_rx = {m_rxNs.get(), namePrefix() + "r" + std::to_string(n), 0, ipv4(kRxAddr), kRxMac};

    // The owner lock names both namespaces (by inode) and both devices before the devices exist:
    // `noisefloor cleanup` removes a device of a dead testbed only from a namespace it recorded.
    auto owner = NF_TRY(OwnerLock::acquire("testbed", m_tx.ifname, "noisefloor live testbed",
                                           {{"tx_netns", std::to_string(netnsInode(m_txNs.get()))},
                                            {"rx_netns", std::to_string(netnsInode(m_rxNs.get()))},
                                            {"tx_link", m_tx.ifname},
                                            {"rx_link", m_rx.ifname}}));
    if (owner.holder) {
        return Error{"testbed " + m_tx.ifname + " is in use by " + describeOwner(*owner.holder)};
    }
    m_owner.emplace(std::move(*owner.lock));

    auto txSock = NF_TRY(RtnlSocket::open(m_txNs.get()));
    auto rxSock = NF_TRY(RtnlSocket::open(m_rxNs.get()));
    NF_TRY(txSock.addVeth(m_tx.ifname, m_tx.mac, m_rx.ifname, m_rx.mac, m_rxNs.get()));
    m_vethMade = true;
    struct Side {
        RtnlSocket& sock;
        Endpoint& self;
        const Endpoint& peer;
    };
    for (Side side : {Side{txSock, m_tx, m_rx}, Side{rxSock, m_rx, m_tx}}) {
        NF_TRY(loopbackUp(side.sock));
        const int index = NF_TRY(side.sock.ifindex(side.self.ifname));
        side.self.ifindex = index;
        char text[INET_ADDRSTRLEN] = {};
        ::inet_ntop(AF_INET, &side.self.addr, text, sizeof text);
        NF_TRY(side.sock.addAddress(index, std::string(text) + "/24"));
        ::inet_ntop(AF_INET, &side.peer.addr, text, sizeof text);
        NF_TRY(side.sock.addStaticNeighbour(index, text, side.peer.mac));
    }
    NF_TRY(setGro(m_rxNs.get(), m_rx.ifname, m_options.rxGro));
    for (Side side : {Side{rxSock, m_rx, m_tx}, Side{txSock, m_tx, m_rx}}) {
        NF_TRY(side.sock.setUp(side.self.ifname));
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
