#pragma once
// The device settings that preferred busy polling needs (the kernel's
// Documentation/networking/napi.rst, "Preferred busy polling"): napi_defer_hard_irqs and
// gro_flush_timeout in /sys/class/net/DEV. SO_PREFER_BUSY_POLL alone does not keep the device's
// interrupts off; with these set, NAPI defers re-arming them for napi_defer_hard_irqs empty polls
// and a gro_flush_timeout timer, so the application's busy polls do the receive work.
//
// NapiDefer sets them for a run and puts the old values back at its end. On a device outside the
// tool's own namespaces (xdp-rx iface=NAME), the old values are recorded first in an owner lock
// ("napi", IFNAME; engine/run/owner_lock.h), so that `noisefloor cleanup` puts them back after a
// run killed with SIGKILL: only while the device has the recorded ifindex and still holds the
// values the run set (a value changed since is someone else's and stays).

#include <cstdint>
#include <memory>
#include <optional>
#include <string>
#include <utility>
#include <vector>

#include "base/result.h"
#include "engine/run/owner_lock.h"

namespace nf::engine::net {

struct NapiSettings {
    std::int64_t deferHardIrqs = 0;       // napi_defer_hard_irqs
    std::uint64_t groFlushTimeoutNs = 0;  // gro_flush_timeout
    bool operator==(const NapiSettings&) const = default;
};

// What the napi.rst example uses: defer 2 empty polls, flush GRO (and re-arm) after 200 us.
inline constexpr NapiSettings kBusyPollNapi{2, 200'000};

// The settings of `ifname` in the network namespace nsFd (-1: the calling thread's), read through a
// sysfs mounted for that namespace on a thread of its own, in a mount namespace of its own, so
// nothing changes for anyone else (the process's /sys shows only the namespace it was mounted in).
// Needs CAP_SYS_ADMIN, as xdp-rx does anyway.
Result<NapiSettings> readNapiSettings(int nsFd, const std::string& ifname);
// Writes both, then reads them back: the values the device holds now.
Result<NapiSettings> writeNapiSettings(int nsFd, const std::string& ifname, const NapiSettings& settings);

// What an owner record of kind "napi" says: the device, and its values before and as set.
struct NapiMark {
    std::string ifname;
    int ifindex = 0;
    NapiSettings before;
    NapiSettings set;
};

// The mark a record holds, or nullopt (and `why`) when it is not a complete napi record (a run
// killed before it changed anything).
std::optional<NapiMark> napiMarkOf(const OwnerRecord& record, std::string& why);

// Writes mark.before back if the device is still the recorded one and holds mark.set. Returns ""
// when restored, else what was found instead ("interface gone or renamed", "napi_defer_hard_irqs
// is 5 now, not the 2 the run set: left alone").
Result<std::string> restoreIfStillOurs(const NapiMark& mark);

class NapiDefer {
public:
    // Sets `want` on ifname (in nsFd; -1: this namespace). With `ownerRecord`, takes the owner lock
    // napi/IFNAME under lockDir first (a live holder is an error; a dead one's values are put back
    // first) and records the old values before writing.
    static Result<std::unique_ptr<NapiDefer>> apply(int nsFd, const std::string& ifname, int ifindex,
                                                    const NapiSettings& want, bool ownerRecord,
                                                    const std::string& lockDir = kOwnerLockDir);
    NapiDefer(const NapiDefer&) = delete;
    NapiDefer& operator=(const NapiDefer&) = delete;
    // Puts the old values back, then releases the owner lock; a failed restore keeps the record
    // for `noisefloor cleanup` and says so on stderr.
    ~NapiDefer();

    const NapiSettings& before() const { return m_before; }
    const NapiSettings& set() const { return m_set; }
    // Puts the old values back now (the destructor then does nothing more).
    Result<void> restore();

    // napi_defer_hard_irqs and gro_flush_timeout: "2 (was 0; put back at the end)".
    std::vector<std::pair<std::string, std::string>> facts() const;

private:
    NapiDefer(int nsFd, std::string ifname) : m_nsFd(nsFd), m_ifname(std::move(ifname)) {}

    int m_nsFd = -1;
    std::string m_ifname;
    NapiSettings m_before;
    NapiSettings m_set;
    bool m_changed = false;
    std::optional<OwnerLock> m_owner;
};

}  // namespace nf::engine::net
