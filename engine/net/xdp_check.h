#pragma once
// The XDP part of `noisefloor check --iface NAME`: what an AF_XDP or XDP test on the interface can
// use (generic and native mode, zero-copy sockets), what is already attached there, and what the
// machine allows (bpffs, lockdown, libxdp's multi-program dispatcher, capabilities), each with the
// fix for what is missing.

#include <cstdint>
#include <string>
#include <vector>

#include "base/result.h"
#include "engine/run/environment.h"

namespace nf::engine::net {

// The device's XDP features, from the kernel's `netdev` generic netlink family (Linux >= 6.3).
struct XdpFeatures {
    bool basic = false;     // XDP_PASS/DROP/TX/ABORTED in driver (native) mode
    bool redirect = false;  // XDP_REDIRECT from the driver, which AF_XDP needs in native mode
    bool ndoXmit = false;   // a redirect target (ndo_xdp_xmit)
    bool zeroCopy = false;  // AF_XDP zero-copy
    bool rxSg = false;      // multi-buffer receive
    std::uint32_t zcMaxSegs = 0;
};
// Fails when the kernel has no `netdev` family or does not know the device.
Result<XdpFeatures> queryXdpFeatures(int ifindex);

// An XDP program attached to a device, in the calling namespace.
struct AttachedXdp {
    std::uint32_t id = 0;
    std::string name;  // empty if the program's info cannot be read
    std::string mode;  // "native", "generic", "offload"
};
std::vector<AttachedXdp> attachedXdpPrograms(int ifindex);

// How libxdp attaches here: "multi-program dispatcher" or why it falls back to a single program.
// Tries it on a throwaway veth pair in a namespace of its own, so no real device is touched.
Result<std::string> probeLibxdpDispatcher();

std::vector<MachineCheck> checkXdp(int ifindex);

}  // namespace nf::engine::net
