#include "engine/net/ethtool.h"

#include <linux/sockios.h>
#include <net/if.h>
#include <sys/ioctl.h>
#include <sys/socket.h>

#include <cstring>

#include "engine/net/netns.h"

namespace nf::engine::net {

Result<void> ethtool(const std::string& ifname, void* request)
{
    Fd sock(::socket(AF_INET, SOCK_DGRAM | SOCK_CLOEXEC, 0));
    if (!sock.valid()) {
        return Error::fromErrno("cannot open an ethtool socket");
    }
    ifreq ifr{};
    std::strncpy(ifr.ifr_name, ifname.c_str(), IFNAMSIZ - 1);
    ifr.ifr_data = static_cast<char*>(request);
    if (::ioctl(sock.get(), SIOCETHTOOL, &ifr) != 0) {
        return Error::fromErrno("ethtool on " + ifname);
    }
    return {};
}

}  // namespace nf::engine::net
