#include "engine/net/napi_defer.h"

#include <fcntl.h>
#include <net/if.h>
#include <sched.h>
#include <sys/mount.h>
#include <unistd.h>

#include <cerrno>
#include <charconv>
#include <cstdio>
#include <functional>
#include <map>
#include <optional>
#include <thread>

namespace nf::engine::net {

namespace {

constexpr const char* kDefer = "napi_defer_hard_irqs";
constexpr const char* kFlush = "gro_flush_timeout";

std::string fileOf(const std::string& ifname, const char* name)
{
    return "/sys/class/net/" + ifname + "/" + name;
}

template <typename T>
Result<T> readNumber(const std::string& path)
{
    const int fd = ::open(path.c_str(), O_RDONLY | O_CLOEXEC);
    if (fd < 0) {
        return Error::fromErrno("cannot read " + path);
    }
    char text[64] = {};
    const ssize_t n = ::read(fd, text, sizeof text - 1);
    const int err = errno;
    ::close(fd);
    if (n < 0) {
        return Error::fromErrno("cannot read " + path, err);
    }
    T value{};
    const auto [end, ec] = std::from_chars(text, text + n, value);
    if (ec != std::errc() || end == text) {
        return Error{path + ": not a number: '" + std::string(text, static_cast<std::size_t>(n)) + "'"};
    }
    return value;
}

Result<void> writeText(const std::string& path, const std::string& text)
{
    const int fd = ::open(path.c_str(), O_WRONLY | O_CLOEXEC);
    if (fd < 0) {
        return Error::fromErrno("cannot write " + path);
    }
    const ssize_t n = ::write(fd, text.data(), text.size());
    const int err = errno;
    ::close(fd);
    if (n != static_cast<ssize_t>(text.size())) {
        return Error::fromErrno("cannot write " + text + " to " + path, n < 0 ? err : EIO);
    }
    return {};
}

Result<NapiSettings> readHere(const std::string& ifname)
{
    return NapiSettings{NF_TRY(readNumber<std::int64_t>(fileOf(ifname, kDefer))),
                        NF_TRY(readNumber<std::uint64_t>(fileOf(ifname, kFlush)))};
}

Result<NapiSettings> writeHere(const std::string& ifname, const NapiSettings& s)
{
    NF_TRY(writeText(fileOf(ifname, kFlush), std::to_string(s.groFlushTimeoutNs)));
    NF_TRY(writeText(fileOf(ifname, kDefer), std::to_string(s.deferHardIrqs)));
    return readHere(ifname);
}

// Runs `work` where /sys/class/net shows the network namespace nsFd (-1: the calling thread's). A
// process's /sys shows the namespace it was mounted in, whichever namespace a thread is in, so
// `work` runs on a thread of its own that leaves the process's mount namespace (unshare: the thread
// gets a private copy), enters nsFd and mounts that namespace's sysfs over /sys (where /sys shows
// that namespace already, the kernel refuses its own superblock on itself with EBUSY, and /sys is
// used as it is). Nothing changes for any other thread or process, and the mount goes with the
// thread. Needs CAP_SYS_ADMIN.
Result<NapiSettings> inNamespace(int nsFd, const std::function<Result<NapiSettings>()>& work)
{
    std::optional<Result<NapiSettings>> out;
    std::thread thread([&] {  // a new thread starts in its creator's network namespace
        if (::unshare(CLONE_NEWNS) != 0) {
            out = Error::fromErrno("unshare(CLONE_NEWNS)");
        } else if (::mount(nullptr, "/", nullptr, MS_REC | MS_PRIVATE, nullptr) != 0) {
            out = Error::fromErrno("cannot make a private mount namespace");
        } else if (nsFd >= 0 && ::setns(nsFd, CLONE_NEWNET) != 0) {
            out = Error::fromErrno("setns into the device's network namespace");
        } else if (::mount("sysfs", "/sys", "sysfs", MS_NOSUID | MS_NODEV | MS_NOEXEC, nullptr) != 0 &&
                   errno != EBUSY) {
            out = Error::fromErrno("cannot mount the namespace's sysfs");
        } else {
            out = work();
        }
    });
    thread.join();
    return std::move(*out);
}

std::string number(const OwnerRecord& r, const char* key)
{
    const auto it = r.owns.find(key);
    return it == r.owns.end() ? std::string() : it->second;
}

template <typename T>
bool parse(const std::string& text, T& value)
{
    const auto [end, ec] = std::from_chars(text.data(), text.data() + text.size(), value);
    return !text.empty() && ec == std::errc() && end == text.data() + text.size();
}

std::map<std::string, std::string> recordOf(int ifindex, const NapiSettings& before, const NapiSettings& set)
{
    return {{"ifindex", std::to_string(ifindex)},
            {"defer_hard_irqs_before", std::to_string(before.deferHardIrqs)},
            {"gro_flush_timeout_before", std::to_string(before.groFlushTimeoutNs)},
            {"defer_hard_irqs_set", std::to_string(set.deferHardIrqs)},
            {"gro_flush_timeout_set", std::to_string(set.groFlushTimeoutNs)}};
}

}  // namespace

Result<NapiSettings> readNapiSettings(int nsFd, const std::string& ifname)
{
    return inNamespace(nsFd, [&] { return readHere(ifname); });
}

Result<NapiSettings> writeNapiSettings(int nsFd, const std::string& ifname, const NapiSettings& settings)
{
    return inNamespace(nsFd, [&] { return writeHere(ifname, settings); });
}

std::optional<NapiMark> napiMarkOf(const OwnerRecord& record, std::string& why)
{
    NapiMark m;
    m.ifname = record.name;
    const bool ok = record.complete && parse(number(record, "ifindex"), m.ifindex) && m.ifindex > 0 &&
                    parse(number(record, "defer_hard_irqs_before"), m.before.deferHardIrqs) &&
                    parse(number(record, "gro_flush_timeout_before"), m.before.groFlushTimeoutNs) &&
                    parse(number(record, "defer_hard_irqs_set"), m.set.deferHardIrqs) &&
                    parse(number(record, "gro_flush_timeout_set"), m.set.groFlushTimeoutNs);
    if (!ok) {
        why = "the record does not name the values (interface, ifindex, before and as set)";
        return std::nullopt;
    }
    return m;
}

Result<std::string> restoreIfStillOurs(const NapiMark& m)
{
    char name[IF_NAMESIZE] = {};
    if (::if_indextoname(static_cast<unsigned>(m.ifindex), name) == nullptr || m.ifname != name) {
        return std::string("interface gone or renamed");
    }
    const auto now = NF_TRY(readNapiSettings(-1, m.ifname));
    if (now == m.before) {
        return std::string("already put back");
    }
    if (now != m.set) {
        return "napi_defer_hard_irqs " + std::to_string(now.deferHardIrqs) + ", gro_flush_timeout " +
               std::to_string(now.groFlushTimeoutNs) + " now, not the " + std::to_string(m.set.deferHardIrqs) + ", " +
               std::to_string(m.set.groFlushTimeoutNs) + " the run set: changed since, left alone";
    }
    const auto back = NF_TRY(writeNapiSettings(-1, m.ifname, m.before));
    if (back != m.before) {
        return Error{"wrote napi_defer_hard_irqs " + std::to_string(m.before.deferHardIrqs) +
                     " and gro_flush_timeout " + std::to_string(m.before.groFlushTimeoutNs) + " to " + m.ifname +
                     ", but it reads " + std::to_string(back.deferHardIrqs) + " and " +
                     std::to_string(back.groFlushTimeoutNs)};
    }
    return std::string();
}

Result<std::unique_ptr<NapiDefer>> NapiDefer::apply(int nsFd, const std::string& ifname, int ifindex,
                                                    const NapiSettings& want, bool ownerRecord,
                                                    const std::string& lockDir)
{
    std::unique_ptr<NapiDefer> d(new NapiDefer(nsFd, ifname));
    if (ownerRecord) {
        auto attempt = NF_TRY(OwnerLock::acquire("napi", ifname, "noisefloor xdp-rx busy_poll", {}, lockDir));
        if (attempt.holder) {
            return Error{ifname + " is in use by a live run: " + describeOwner(*attempt.holder)};
        }
        if (attempt.previous) {  // a killed run's values may still be set: put the recorded ones back
            std::string why;
            if (auto old = napiMarkOf(*attempt.previous, why)) {
                NF_TRY(restoreIfStillOurs(*old).withContext("cannot put back the values a killed run left on " +
                                                            ifname + ": "));
            }
        }
        d->m_owner.emplace(std::move(*attempt.lock));
    }
    d->m_before = NF_TRY(readNapiSettings(nsFd, ifname));
    if (d->m_owner) {  // recorded before anything changes
        NF_TRY(d->m_owner->setOwns(recordOf(ifindex, d->m_before, want)));
    }
    d->m_changed = true;  // from here on, put back whatever happens
    d->m_set = NF_TRY(writeNapiSettings(nsFd, ifname, want));
    if (d->m_set != want) {
        return Error{"wrote napi_defer_hard_irqs " + std::to_string(want.deferHardIrqs) + " and gro_flush_timeout " +
                     std::to_string(want.groFlushTimeoutNs) + " to " + ifname + ", but it reads " +
                     std::to_string(d->m_set.deferHardIrqs) + " and " + std::to_string(d->m_set.groFlushTimeoutNs)};
    }
    return d;
}

Result<void> NapiDefer::restore()
{
    if (!m_changed) {
        return {};
    }
    const auto back = NF_TRY(writeNapiSettings(m_nsFd, m_ifname, m_before));
    if (back != m_before) {
        return Error{m_ifname + " reads napi_defer_hard_irqs " + std::to_string(back.deferHardIrqs) +
                     " and gro_flush_timeout " + std::to_string(back.groFlushTimeoutNs) + " after putting back " +
                     std::to_string(m_before.deferHardIrqs) + " and " + std::to_string(m_before.groFlushTimeoutNs)};
    }
    m_changed = false;
    if (m_owner) {
        m_owner->release();
    }
    return {};
}

NapiDefer::~NapiDefer()
{
    if (auto r = restore(); !r) {
        // Kept for `noisefloor cleanup`, which tries again from the record.
        if (m_owner) {
            m_owner->keep();
        }
        static_cast<void>(std::fprintf(stderr, "noisefloor: warning: cannot put back %s's busy-poll settings: %s%s\n",
                                       m_ifname.c_str(), r.error().message.c_str(),
                                       m_owner ? " ('noisefloor cleanup' tries again)" : ""));
    }
}

std::vector<std::pair<std::string, std::string>> NapiDefer::facts() const
{
    return {{kDefer, std::to_string(m_set.deferHardIrqs) + " (was " + std::to_string(m_before.deferHardIrqs) +
                         "; put back at the end)"},
            {kFlush, std::to_string(m_set.groFlushTimeoutNs) + " ns (was " +
                         std::to_string(m_before.groFlushTimeoutNs) + " ns; put back at the end)"}};
}

}  // namespace nf::engine::net
