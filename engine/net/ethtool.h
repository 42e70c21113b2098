#pragma once
// One ethtool request (SIOCETHTOOL) on a device in the calling thread's network namespace.

#include <string>

#include "probes/result.h"

namespace nf::engine::net {

// `request` is an ethtool structure whose `cmd` is set (ethtool_value, ethtool_channels, ...); it
// is filled in for a get. The error's `errnum` is the ioctl's errno (or the socket's), for callers
// that word the failure themselves.
Result<void> ethtool(const std::string& ifname, void* request);

}  // namespace nf::engine::net
