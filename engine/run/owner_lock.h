#pragma once
// Proof of ownership for what the tool makes outside its own process (an XDP program on a real
// interface, a testbed's namespaces and devices, a CPU a run measures on): one lock file per owned
// thing, <dir>/<kind>/<name>.lock, locked with flock(2) for as long as the owner lives. The kernel
// drops the lock when the owner dies however it dies, so "held" means a live owner, in any PID
// namespace, and "stale" means the owner is gone: no pid is trusted on its own.
//
// The file holds a record of the owner (pid, its start time from /proc/<pid>/stat, the inode of its
// PID namespace, the boot id) and of what it owns (key=value pairs, e.g. prog_id, prog_tag), so
// that whoever finds it stale knows exactly what to remove and can check each object's own mark.
//
//   auto attempt = NF_TRY(OwnerLock::acquire("cpu", "3", "run 12 (spin)"));
//   if (attempt.holder) return Error{"CPU 3 is measured by " + describeOwner(*attempt.holder)};
//   m_locks.push_back(std::move(*attempt.lock));   // released when the run ends or dies

#include <sys/types.h>

#include <cstdint>
#include <map>
#include <optional>
#include <string>
#include <vector>

#include "base/result.h"

namespace nf::engine {

// /run/noisefloor: tmpfs, so a reboot forgets every lock with the processes that held them.
inline constexpr const char* kOwnerLockDir = "/run/noisefloor";

struct OwnerRecord {
    std::string kind;                // "xdp", "testbed", "cpu": a folder of the lock directory
    std::string name;                // what is owned, within its kind: "eth0", "nf123t0", "3"
    std::string description;         // who owns it, for people: "noisefloor run (xdp-rx)"
    int pid = 0;                     // as the owner saw itself (in its own PID namespace)
    std::uint64_t startTime = 0;     // field 22 of /proc/<pid>/stat: clock ticks after boot
    std::uint64_t pidNamespace = 0;  // inode of /proc/<pid>/ns/pid
    std::string bootId;
    std::map<std::string, std::string> owns;  // what exactly is owned, e.g. {"prog_id", "41"}
    bool complete = false;                    // the record was written to its end
};

// "pid 1234 (noisefloor run (xdp-rx)), started 12.3 s after boot, pid namespace 4026531836"
std::string describeOwner(const OwnerRecord& record);

// The caller's own record fields (pid, start time, PID namespace, boot id).
OwnerRecord selfRecord();

struct OwnerProbe;
struct OwnerAttempt;

class OwnerLock {
public:
    OwnerLock(OwnerLock&& other) noexcept;
    OwnerLock& operator=(OwnerLock&& other) noexcept;
    OwnerLock(const OwnerLock&) = delete;
    OwnerLock& operator=(const OwnerLock&) = delete;
    ~OwnerLock();  // release(); a claim (OwnerProbe::claim) only drops the lock and keeps the file

    // Takes kind/name for this process, or says who holds it. A stale lock of a dead owner is
    // taken over (its record is given in `previous`, so the caller can first remove what it names).
    // `name` may be any text; it is escaped for the file name. Errors: the directory or file
    // cannot be made or written.
    static Result<OwnerAttempt> acquire(const std::string& kind, const std::string& name,
                                        const std::string& description,
                                        const std::map<std::string, std::string>& owns = {},
                                        const std::string& dir = kOwnerLockDir);

    const OwnerRecord& record() const { return m_record; }
    const std::string& path() const { return m_path; }

    // Rewrites what is owned (e.g. once the program id is known); the lock is kept throughout.
    Result<void> setOwns(const std::map<std::string, std::string>& owns);

    // Removes the lock file, then drops the lock. Idempotent.
    void release();
    // Drops the lock and keeps the file: what it names was not undone, so a later `noisefloor
    // cleanup` finds the record stale and tries again. release() then does nothing.
    void keep();

private:
    OwnerLock(int fd, std::string path, OwnerRecord record, bool keepFile = false);
    friend OwnerProbe probeOwner(const std::string& path);
    int m_fd = -1;
    bool m_keepFile = false;
    std::string m_path;
    OwnerRecord m_record;
};

struct OwnerAttempt {
    std::optional<OwnerLock> lock;        // we own it now
    std::optional<OwnerRecord> holder;    // or a live owner does (its record, possibly incomplete)
    std::optional<OwnerRecord> previous;  // with `lock`: the record of a dead owner we took over
};

enum class OwnerState {
    Held,     // a live owner holds the lock
    Stale,    // its owner is gone; `claim` holds the lock now, so nobody can take it meanwhile
    NotOurs,  // not a lock of the tool: no record, or one that does not parse
};

struct OwnerProbe {
    OwnerState state = OwnerState::NotOurs;
    std::string path;
    OwnerRecord record;  // as read (Held, Stale)
    std::string why;     // NotOurs: what is missing
    // Stale only: the dead owner's lock, now held here. release() it once what it names is
    // removed; dropping it without release() keeps the file for a later cleanup.
    std::optional<OwnerLock> claim;
};

// What the lock file at `path` says about its owner.
OwnerProbe probeOwner(const std::string& path);

// Every lock file of `kind` under `dir`, probed (sorted by path).
std::vector<OwnerProbe> probeOwners(const std::string& kind, const std::string& dir = kOwnerLockDir);

// The record of a live owner of kind/name, if there is one (a quick check without taking anything).
std::optional<OwnerRecord> liveOwner(const std::string& kind, const std::string& name,
                                     const std::string& dir = kOwnerLockDir);

// The lock file of kind/name under dir.
std::string ownerLockPath(const std::string& kind, const std::string& name, const std::string& dir = kOwnerLockDir);

}  // namespace nf::engine
