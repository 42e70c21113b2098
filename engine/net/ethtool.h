#pragma once
// One ethtool request (SIOCETHTOOL) on a device in the calling thread's network namespace.

#include <cstdint>
#include <string>
#include <vector>

#include "base/result.h"
#include "engine/net/netns.h"

namespace nf::engine::net {

// `request` is an ethtool structure whose `cmd` is set (ethtool_value, ethtool_channels, ...); it
// is filled in for a get. The error's `errnum` is the ioctl's errno (or the socket's), for callers
// that word the failure themselves.
Result<void> ethtool(const std::string& ifname, void* request);

// A device's own statistics, `ethtool -S`: the names once (ETHTOOL_GSTRINGS), the values at every
// read (ETHTOOL_GSTATS), through a socket opened in the device's namespace. veth, for instance,
// counts per queue what XDP passed, redirected and dropped, and what it dropped itself.
class DeviceStats {
public:
    // `nsFd` -1: the calling thread's namespace. A device without statistics has no names.
    static Result<DeviceStats> open(int nsFd, const std::string& ifname);
    const std::vector<std::string>& names() const { return m_names; }
    // Cumulative values, in names() order.
    Result<std::vector<std::uint64_t>> read() const;

private:
    Fd m_sock;
    std::string m_ifname;
    std::vector<std::string> m_names;
};

// The device's statistics, or none when they cannot be read (the run then goes without them).
DeviceStats deviceStats(int nsFd, const std::string& ifname);

}  // namespace nf::engine::net
