#pragma once
// Ownership of the XDP programs the tool attaches outside its own namespaces (xdp-rx with
// iface=NAME): an owner lock ("xdp", IFNAME; engine/run/owner_lock.h) taken before the attach and
// released after the detach. Its record names the interface and the program by id, tag and name,
// so `noisefloor cleanup` detaches what a killed run left, and only if the program attached now is
// still that one: a program attached since, or the same id reused, stays.

#include <cstdint>
#include <optional>
#include <string>

#include "base/result.h"
#include "engine/run/owner_lock.h"

namespace nf::engine::net {

struct XdpProgramMark {
    std::string ifname;
    int ifindex = 0;
    std::uint32_t progId = 0;
    std::string tag;   // bpf_prog_info.tag, hex
    std::string name;  // bpf_prog_info.name
    std::string mode;  // "skb" or "native"
};

// The mark of a loaded program (its id, tag and name) for an attach to ifname in mode.
Result<XdpProgramMark> programMark(int progFd, const std::string& ifname, int ifindex, const std::string& mode);

// The lock of ifname for this process, recording `mark`. A live owner: an error naming it. A dead
// one: its program is detached first (detachIfStillOurs), then the lock is ours.
Result<OwnerLock> claimXdp(const XdpProgramMark& mark, const std::string& dir = kOwnerLockDir);

// The mark a record holds, or nullopt (and `why`) when it is not a complete xdp record.
std::optional<XdpProgramMark> markOf(const OwnerRecord& record, std::string& why);

// Detaches the marked program if the one attached now has its id, tag and name. Returns "" when
// it was detached, else what was found instead ("already detached", "interface gone or renamed",
// "program 12 attached now is not the recorded one: left alone").
Result<std::string> detachIfStillOurs(const XdpProgramMark& mark);

}  // namespace nf::engine::net
