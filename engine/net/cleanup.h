#pragma once
// `noisefloor cleanup`: finds what a killed run left behind, by name, and removes it. Live tests
// name every device and namespace nf<pid>...; anything so named whose process is gone is a leftover.
// (The testbed's own namespaces are held by descriptor and vanish with the process; this also
// catches named namespaces under /run/netns and devices left in the calling namespace.)

#include <string>
#include <vector>

#include "result.h"

namespace nf::engine::net {

struct Leftover {
    std::string kind;  // "namespace" (/run/netns/NAME) or "link" (in the caller's namespace)
    std::string name;
    int pid = 0;  // the owner the name carries, no longer running
};

// The pid a tool-made name carries ("nf1234t0" -> 1234), or 0 if the name is not one of ours.
int ownerPid(const std::string& name);

std::vector<Leftover> findLeftovers();

struct CleanupReport {
    std::vector<Leftover> removed;
    std::vector<std::string> failures;  // "link nf12t0: <why>"
};
CleanupReport removeLeftovers();

}  // namespace nf::engine::net
