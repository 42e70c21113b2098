#pragma once
// Runs that do not silently share CPUs: a run holds an owner lock (engine/run/owner_lock.h) on each
// CPU it measures on, /run/noisefloor/cpu/<n>.lock, for as long as it runs. The kernel drops the
// lock when the process ends, however it ends, so a crashed run never blocks the next one. A run
// that finds a CPU held by a live run refuses to start and names that run, unless it was asked to
// share (--share-cpus), in which case the sharing is a warning stored with the run.
//
// The lock file records who holds the CPU, for people and for `cleanup`; what decides is a key in
// the abstract socket namespace (unix(7)), "noisefloor/cpu/<n>", bound and listened on by the run
// that measures on CPU n. The kernel frees it with the process like the flock, but there is no
// file to delete under it, it needs no writable directory (a user without root, whose
// /run/noisefloor cannot be made, locks in $XDG_RUNTIME_DIR/noisefloor or /run/user/<uid>/noisefloor
// and is still seen by every other run), and connecting to it names its holder (SO_PEERCRED)
// whatever that is. A run that shares binds "noisefloor/cpu/<n>/shared/<pid>" instead, so that
// every later run on that CPU sees it (/proc/net/unix): one that does not share is refused, one
// that shares is warned. The run already there is told too: it looks for new sharers on its CPUs
// while it runs (SharerWatch) and stores a warning naming each, with the repetitions it overlapped.

#include <chrono>
#include <string>
#include <utility>
#include <vector>

#include "base/result.h"
#include "engine/run/owner_lock.h"

namespace nf::engine {

struct PreparedExperiment;

// The CPUs the experiment measures on: the worker CPU of in-process and command workloads; every
// variant's tx_cpu and rx_cpu for live tests. Sorted, without duplicates.
std::vector<int> measuredCpus(const PreparedExperiment& prepared);

// A bound key (see above): the socket, closed with the object.
class CpuKey {
public:
    explicit CpuKey(int fd) : m_fd(fd) {}
    CpuKey(CpuKey&& other) noexcept : m_fd(std::exchange(other.m_fd, -1)) {}
    CpuKey& operator=(CpuKey&& other) noexcept;
    CpuKey(const CpuKey&) = delete;
    CpuKey& operator=(const CpuKey&) = delete;
    ~CpuKey();

private:
    int m_fd = -1;
};

// The runs that come to share a run's CPUs (--share-cpus) after it claimed them: their keys
// "<key>/shared/<pid>" in /proc/net/unix, looked for while the run runs. Those there at the claim
// are left out (claimCpus warned of them already). Used on one thread.
class SharerWatch {
public:
    SharerWatch() = default;
    SharerWatch(std::vector<int> cpus, std::string dir, std::vector<std::pair<int, int>> known);

    // Looks now and counts what it finds to repetition `repetition` (1-based, as stored): `always`
    // at a repetition's end, else (while one runs) at most every 250 ms.
    void look(int repetition, bool always);
    // One line per sharer found: "CPU 1 was shared by pid 4242 (noisefloor ... --share-cpus), a run
    // that joined it with --share-cpus, during repetitions 2-4".
    std::vector<std::string> warnings() const;

private:
    struct Seen {
        int cpu = 0;
        int pid = 0;
        std::string who;
        int first = 0;
        int last = 0;
    };
    std::vector<int> m_cpus;
    std::string m_dir;
    std::vector<std::pair<int, int>> m_known;  // (cpu, pid) of those there at the claim
    std::vector<Seen> m_seen;
    std::chrono::steady_clock::time_point m_looked;
};

struct CpuClaims {
    std::vector<OwnerLock> locks;       // released when the claims are destroyed
    std::vector<CpuKey> keys;           // likewise
    std::vector<std::string> warnings;  // with share: one line per other run on a CPU
    SharerWatch sharers;                // those that join later
};

// Where a user's CPU lock files go when `kOwnerLockDir` cannot be used: $XDG_RUNTIME_DIR/noisefloor,
// else /run/user/<uid>/noisefloor.
std::string userLockDir();

// The runs measuring on each of `cpus` now, as its key and the keys of its sharers name them: one
// line per run, "CPU 1: pid 4242 (noisefloor run into x.db (spin))" (", sharing it (--share-cpus)"
// for a sharer). Empty when none is. For `check` and the Environment tab.
std::vector<std::string> cpusInUse(const std::vector<int>& cpus, const std::string& dir = kOwnerLockDir);

// Takes the lock of every CPU in `cpus` for `description` ("noisefloor run udp-rx"). A CPU held by a
// live run is an error naming it, or with `share` a warning. Errors also when the lock directory
// cannot be used.
Result<CpuClaims> claimCpus(const std::vector<int>& cpus, const std::string& description, bool share,
                            const std::string& dir = kOwnerLockDir);

}  // namespace nf::engine
