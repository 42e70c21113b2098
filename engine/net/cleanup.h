#pragma once
// `noisefloor cleanup`: finds what a killed run left behind, by name, and removes it. Live tests
// name every device and namespace nf<pid>...; anything so named whose process is gone is a leftover.
// (The testbed's own namespaces are held by descriptor and vanish with the process; this also
// catches named namespaces under /run/netns and devices left in the calling namespace.)
// An XDP program attached outside the tool's namespaces (xdp-rx on a real interface) is announced
// first by an owner record, /run/noisefloor/xdp/<pid>-<ifindex>; a record whose pid is gone names
// a program to detach, and only that program: a different one attached since stays.

#include <cstdint>
#include <string>
#include <vector>

#include "probes/result.h"

namespace nf::engine::net {

struct Leftover {
    std::string kind{};  // "namespace" (/run/netns/NAME), "link" (in the caller's namespace) or "xdp"
    std::string name{};  // for "xdp": "program ID (MODE) on IFNAME"
    int pid = 0;         // the owner the name carries, no longer running
    // "xdp" only: from the owner record.
    std::string record{};
    std::string ifname{};
    int ifindex = 0;
    std::uint32_t progId = 0;
    std::string mode{};  // "skb" or "native"
};

// Where owner records of XDP attachments live.
inline constexpr const char* kXdpOwnerDir = "/run/noisefloor/xdp";

// The pid a tool-made name carries ("nf1234t0" -> 1234), or 0 if the name is not one of ours.
int ownerPid(const std::string& name);

// `xdpOwnerDir` is for tests; the tool always uses kXdpOwnerDir.
std::vector<Leftover> findLeftovers(const std::string& xdpOwnerDir = kXdpOwnerDir);

struct CleanupReport {
    std::vector<Leftover> removed;
    std::vector<std::string> failures;  // "link nf12t0: <why>"
    std::vector<std::string> notes;     // "xdp ...: already detached"
};
CleanupReport removeLeftovers(const std::string& xdpOwnerDir = kXdpOwnerDir);

}  // namespace nf::engine::net
