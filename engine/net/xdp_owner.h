#pragma once
// Owner records of XDP programs the tool attaches outside its own namespaces (xdp-rx with
// iface=NAME): written before the attach and removed after the detach, so `noisefloor cleanup` can
// detach what a killed run left. One file per attach: /run/noisefloor/xdp/<pid>-<ifindex>, lines
// `pid=`, `ifname=`, `ifindex=`, `prog_id=`, `mode=skb|native`.

#include <string>

#include "probes/result.h"

namespace nf::engine::net {

struct XdpOwnerRecord {
    int pid = 0;
    std::string ifname;
    int ifindex = 0;
    unsigned progId = 0;
    std::string mode;  // "skb" or "native"
};

// The directory of the records (/run/noisefloor/xdp unless `dir` is given, for tests).
std::string xdpOwnerDir();

// Writes the record atomically (a temporary file renamed into place); returns its path.
Result<std::string> writeOwnerRecord(const XdpOwnerRecord& record, const std::string& dir = xdpOwnerDir());

// Removes the record of `pid` and `ifindex`; a missing record is not an error.
Result<void> removeOwnerRecord(int pid, int ifindex, const std::string& dir = xdpOwnerDir());

}  // namespace nf::engine::net
