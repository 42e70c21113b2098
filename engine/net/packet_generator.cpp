// The `packet` generator of `noisefloor generate`: one AF_PACKET socket bound to the named device,
// `batch` copies of one Ethernet frame a sendmmsg call, paced by Pacer. Also what it needs to know
// about devices: their MAC and IPv4 address, and the device a route goes out of.

#include <arpa/inet.h>
#include <ifaddrs.h>
#include <linux/if_ether.h>
#include <linux/if_packet.h>
#include <net/if.h>
#include <sys/ioctl.h>
#include <sys/socket.h>

#include <atomic>
#include <cstdio>
#include <cstring>

#include "engine/net/batch_sender.h"
#include "engine/net/pacer.h"
#include "engine/net/remote_generator.h"

namespace nf::engine::net {

std::string formatMac(const std::array<std::uint8_t, 6>& mac)
{
    char text[18];
    (void)std::snprintf(text, sizeof text, "%02x:%02x:%02x:%02x:%02x:%02x", mac[0], mac[1], mac[2], mac[3], mac[4],
                        mac[5]);
    return text;
}

std::optional<std::array<std::uint8_t, 6>> parseMac(const std::string& text)
{
    std::array<unsigned, 6> b{};
    char tail = 0;
    if (text.size() != 17 ||
        std::sscanf(text.c_str(), "%2x:%2x:%2x:%2x:%2x:%2x%c", &b[0], &b[1], &b[2], &b[3], &b[4], &b[5], &tail) != 6) {
        return std::nullopt;
    }
    std::array<std::uint8_t, 6> mac{};
    for (std::size_t i = 0; i < mac.size(); ++i) {
        mac[i] = static_cast<std::uint8_t>(b[i]);
    }
    return mac;
}

std::string formatAddr(const in_addr& addr)
{
    char text[INET_ADDRSTRLEN] = {};
    ::inet_ntop(AF_INET, &addr, text, sizeof text);
    return text;
}

Result<Endpoint> localEndpoint(const std::string& ifname)
{
    Endpoint e;
    e.ifname = ifname;
    if (ifname.empty() || ifname.size() >= IFNAMSIZ || ifname.find('/') != std::string::npos) {
        return Error{"'" + ifname + "' is not an interface name"};
    }
    e.ifindex = static_cast<int>(if_nametoindex(ifname.c_str()));
    if (e.ifindex == 0) {
        return Error{ifname + ": no such network interface"};
    }
    Fd sock(::socket(AF_INET, SOCK_DGRAM | SOCK_CLOEXEC, 0));
    if (!sock.valid()) {
        return Error::fromErrno("socket");
    }
    ifreq req{};
    std::memcpy(req.ifr_name, ifname.c_str(), ifname.size());
    if (::ioctl(sock.get(), SIOCGIFHWADDR, &req) != 0) {
        return Error::fromErrno(ifname + ": cannot read its MAC address");
    }
    if (req.ifr_hwaddr.sa_family != 1 /* ARPHRD_ETHER */) {
        return Error{ifname + ": not an Ethernet device"};
    }
    std::memcpy(e.mac.data(), req.ifr_hwaddr.sa_data, e.mac.size());
    ifaddrs* list = nullptr;
    if (::getifaddrs(&list) != 0) {
        return Error::fromErrno("getifaddrs");
    }
    bool found = false;
    for (const ifaddrs* a = list; a != nullptr && !found; a = a->ifa_next) {
        if (a->ifa_addr != nullptr && a->ifa_addr->sa_family == AF_INET && ifname == a->ifa_name) {
            e.addr = reinterpret_cast<const sockaddr_in*>(a->ifa_addr)->sin_addr;  // NOLINT
            found = true;
        }
    }
    ::freeifaddrs(list);
    if (!found) {
        return Error{ifname + ": has no IPv4 address"};
    }
    return e;
}

Result<std::string> routeDevice(const in_addr& dst)
{
    Fd sock(::socket(AF_INET, SOCK_DGRAM | SOCK_CLOEXEC, 0));
    sockaddr_in to{};
    to.sin_family = AF_INET;
    to.sin_port = htons(9);
    to.sin_addr = dst;
    // A UDP connect sends nothing: it only asks the routing table for the source address.
    if (!sock.valid() || ::connect(sock.get(), reinterpret_cast<const sockaddr*>(&to), sizeof to) != 0) {  // NOLINT
        return Error::fromErrno("no route to " + formatAddr(dst));
    }
    sockaddr_in local{};
    socklen_t len = sizeof local;
    if (::getsockname(sock.get(), reinterpret_cast<sockaddr*>(&local), &len) != 0) {  // NOLINT
        return Error::fromErrno("getsockname");
    }
    ifaddrs* list = nullptr;
    if (::getifaddrs(&list) != 0) {
        return Error::fromErrno("getifaddrs");
    }
    std::string name;
    for (const ifaddrs* a = list; a != nullptr && name.empty(); a = a->ifa_next) {
        if (a->ifa_addr != nullptr && a->ifa_addr->sa_family == AF_INET &&
            reinterpret_cast<const sockaddr_in*>(a->ifa_addr)->sin_addr.s_addr == local.sin_addr.s_addr) {  // NOLINT
            name = a->ifa_name;
        }
    }
    ::freeifaddrs(list);
    if (name.empty() || name == "lo") {
        return Error{"no device routes to " + formatAddr(dst) + " (name one with tx_iface=NAME)"};
    }
    return name;
}

namespace {

class PacketGenerator : public BatchSender {
public:
    PacketGenerator(Fd sock, const Endpoint& from, const GeneratorOptions& options, std::vector<std::uint8_t> frame)
        : BatchSender(std::move(sock), options, std::move(frame)), m_from(from)
    {
    }
    ~PacketGenerator() override { BatchSender::stop(); }  // the loop counts into m_offered
    PacketGenerator(const PacketGenerator&) = delete;
    PacketGenerator& operator=(const PacketGenerator&) = delete;

    std::uint64_t offered() const override { return m_offered.load(std::memory_order_relaxed); }
    std::string describe() const override { return describeAs("packet (AF_PACKET sendmmsg) on " + m_from.ifname); }

private:
    void loop(const std::stop_token& stop) override
    {
        std::uint64_t sent = BatchSender::sent();
        std::uint64_t offered = m_offered.load(std::memory_order_relaxed);
        const Pacer pacer(options().rate, offered);
        while (!stop.stop_requested()) {
            pacer.wait(offered, [&] { return stop.stop_requested(); });
            const int n = sendBatch();
            offered += batch();
            if (n > 0) {
                sent += static_cast<std::uint64_t>(n);
            }
            storeSent(sent);
            m_offered.store(offered, std::memory_order_relaxed);
        }
    }

    Endpoint m_from;
    std::atomic<std::uint64_t> m_offered{0};
};

}  // namespace

Result<std::unique_ptr<Generator>> makePacketGenerator(const Endpoint& from, const Endpoint& to,
                                                       const GeneratorOptions& options)
{
    // Protocol 0: this socket receives nothing, it only sends.
    Fd sock(::socket(AF_PACKET, SOCK_RAW | SOCK_CLOEXEC, 0));
    if (!sock.valid()) {
        return Error::fromErrno("cannot open the generator's packet socket (needs CAP_NET_RAW)");
    }
    sockaddr_ll addr{};
    addr.sll_family = AF_PACKET;
    addr.sll_ifindex = from.ifindex;
    addr.sll_protocol = 0;
    if (::bind(sock.get(), reinterpret_cast<const sockaddr*>(&addr), sizeof addr) != 0) {  // NOLINT
        return Error::fromErrno("cannot bind the packet socket to " + from.ifname);
    }
    return std::unique_ptr<Generator>(
        std::make_unique<PacketGenerator>(std::move(sock), from, options, udpFrame(from, to, options)));
}

}  // namespace nf::engine::net
