#pragma once
// `noisefloor cleanup`: removes what a killed run left behind, and only what it can prove is the
// tool's. The proof is an owner lock (engine/run/owner_lock.h) whose owner is gone: the kernel has
// dropped its flock, so no live process in any PID namespace holds it. Its record names exactly
// what to remove, and each object must still carry the tool's mark:
//   xdp      the program attached now on the recorded interface has the recorded id, tag and name;
//   napi     the recorded interface (same ifindex) still holds the napi_defer_hard_irqs and
//            gro_flush_timeout a busy-polling run set: the recorded old values are written back;
//   testbed  a recorded device is removed only from a network namespace whose inode was recorded
//            (the testbed's namespaces are anonymous and usually went with the process).
// A name that merely looks like the tool's (nf<digits>t0, a /run/netns/nf... file), an owner
// lock without a record, or a record of an earlier version without a lock, is "not ours" and left
// alone; a lock held by a live owner is "in use" and left alone.

#include <string>
#include <vector>

#include "base/result.h"
#include "engine/run/owner_lock.h"

namespace nf::engine::net {

enum class LeftoverState {
    Remove,   // proven ours and its owner is gone
    InUse,    // a live owner holds it
    NotOurs,  // no proof that the tool made it
};

struct Leftover {
    std::string kind;  // "xdp", "napi", "testbed", "link", "namespace", "record"
    std::string name;  // "program 41 (skb) on eth0", "nf123t0", "/run/netns/nf9t0"
    LeftoverState state = LeftoverState::NotOurs;
    std::string why;  // "pid 1234 is gone (...)", "in use by pid ...", "no owner lock names it"
};

// What cleanup would do, without changing anything. `lockDir` is for tests.
std::vector<Leftover> findLeftovers(const std::string& lockDir = kOwnerLockDir);

struct CleanupReport {
    std::vector<Leftover> found;        // everything looked at, with its state
    std::vector<std::string> removed;   // "detached xdp program 41 (skb) on eth0 (pid 12 is gone)", "put back ..."
    std::vector<std::string> notes;     // "xdp ... : already detached"
    std::vector<std::string> failures;  // "link nf12t0: <why>"
};
CleanupReport removeLeftovers(const std::string& lockDir = kOwnerLockDir);

// "nf1234t0" -> true: a name of the pattern the tool gives devices (not a proof of anything).
bool looksLikeToolName(const std::string& name);

}  // namespace nf::engine::net
