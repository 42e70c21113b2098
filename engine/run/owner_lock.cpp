#include "engine/run/owner_lock.h"

#include <fcntl.h>
#include <sys/file.h>
#include <sys/stat.h>
#include <unistd.h>

#include <algorithm>
#include <cctype>
#include <cerrno>
#include <chrono>
#include <cstdio>
#include <filesystem>
#include <fstream>
#include <iterator>
#include <sstream>
#include <thread>
#include <utility>

namespace nf::engine {

namespace {

constexpr mode_t kDirMode = 0755;
constexpr mode_t kFileMode = 0644;

std::string readText(const std::string& path)
{
    std::ifstream in(path, std::ios::binary);
    return {std::istreambuf_iterator<char>(in), std::istreambuf_iterator<char>()};
}

std::uint64_t startTimeOf(const std::string& procDir)
{
    const std::string stat = readText(procDir + "/stat");
    const auto paren = stat.rfind(')');  // the command name may hold spaces and parentheses
    if (paren == std::string::npos) {
        return 0;
    }
    std::istringstream fields(stat.substr(paren + 1));
    std::string field;
    for (int i = 3; i <= 22 && fields >> field; ++i) {
        if (i == 22) {
            return std::strtoull(field.c_str(), nullptr, 10);
        }
    }
    return 0;
}

// Lock names are any text; a file name keeps [A-Za-z0-9_-] and '.' past the first character.
std::string escapeName(const std::string& name)
{
    std::string out;
    for (std::size_t i = 0; i < name.size(); ++i) {
        const auto c = static_cast<unsigned char>(name[i]);
        const bool plain = (std::isalnum(c) != 0) || c == '_' || c == '-' || (c == '.' && i > 0);
        if (plain) {
            out += static_cast<char>(c);
        } else {
            char hex[4];
            (void)std::snprintf(hex, sizeof hex, "%%%02X", c);
            out += hex;
        }
    }
    return out.empty() ? "%" : out;
}

std::string escapeValue(const std::string& v)
{
    std::string out;
    for (const char c : v) {
        if (c == '\\') {
            out += "\\\\";
        } else if (c == '\n') {
            out += "\\n";
        } else {
            out += c;
        }
    }
    return out;
}

std::string unescapeValue(const std::string& v)
{
    std::string out;
    for (std::size_t i = 0; i < v.size(); ++i) {
        if (v[i] == '\\' && i + 1 < v.size()) {
            out += v[i + 1] == 'n' ? '\n' : v[i + 1];
            ++i;
        } else {
            out += v[i];
        }
    }
    return out;
}

std::string formatRecord(const OwnerRecord& r)
{
    std::string text = "kind=" + escapeValue(r.kind) + "\nname=" + escapeValue(r.name) +
                       "\ndescription=" + escapeValue(r.description) + "\npid=" + std::to_string(r.pid) +
                       "\nstart_time=" + std::to_string(r.startTime) + "\npid_ns=" + std::to_string(r.pidNamespace) +
                       "\nboot_id=" + escapeValue(r.bootId) + "\n";
    for (const auto& [k, v] : r.owns) {
        text += "own." + escapeValue(k) + "=" + escapeValue(v) + "\n";
    }
    return text + "end=1\n";
}

// Parses a record; nullopt with `why` when it is not one.
std::optional<OwnerRecord> parseRecord(const std::string& text, std::string& why)
{
    OwnerRecord r;
    bool kind = false;
    bool name = false;
    std::istringstream in(text);
    std::string line;
    while (std::getline(in, line)) {
        const auto eq = line.find('=');
        if (eq == std::string::npos) {
            continue;
        }
        const std::string key = line.substr(0, eq);
        const std::string value = unescapeValue(line.substr(eq + 1));
        if (key == "kind") {
            r.kind = value;
            kind = true;
        } else if (key == "name") {
            r.name = value;
            name = true;
        } else if (key == "description") {
            r.description = value;
        } else if (key == "pid") {
            r.pid = static_cast<int>(std::strtol(value.c_str(), nullptr, 10));
        } else if (key == "start_time") {
            r.startTime = std::strtoull(value.c_str(), nullptr, 10);
        } else if (key == "pid_ns") {
            r.pidNamespace = std::strtoull(value.c_str(), nullptr, 10);
        } else if (key == "boot_id") {
            r.bootId = value;
        } else if (key.rfind("own.", 0) == 0) {
            r.owns[key.substr(4)] = value;
        } else if (key == "end") {
            r.complete = true;
        }
    }
    if (!kind || !name || r.pid <= 0) {
        why = text.empty() ? "an empty lock file" : "no owner record in it";
        return std::nullopt;
    }
    return r;
}

std::string readFd(int fd)
{
    std::string text;
    char buffer[4096];
    off_t at = 0;
    for (;;) {
        const ssize_t n = ::pread(fd, buffer, sizeof buffer, at);
        if (n < 0 && errno == EINTR) {
            continue;
        }
        if (n <= 0 || text.size() > 1'000'000) {
            break;
        }
        text.append(buffer, static_cast<std::size_t>(n));
        at += n;
    }
    return text;
}

Result<void> writeFd(int fd, const std::string& text, const std::string& path)
{
    if (::ftruncate(fd, 0) != 0) {
        return Error::fromErrno("cannot write " + path);
    }
    std::size_t done = 0;
    while (done < text.size()) {
        const ssize_t n = ::pwrite(fd, text.data() + done, text.size() - done, static_cast<off_t>(done));
        if (n < 0 && errno == EINTR) {
            continue;
        }
        if (n <= 0) {
            return Error::fromErrno("cannot write " + path, n < 0 ? errno : ENOSPC);
        }
        done += static_cast<std::size_t>(n);
    }
    return {};
}

// Whether `fd` is still the file at `path` (a releaser may have unlinked it before we locked it).
bool stillAt(int fd, const std::string& path)
{
    struct stat a {};
    struct stat b {};
    return ::fstat(fd, &a) == 0 && ::stat(path.c_str(), &b) == 0 && a.st_dev == b.st_dev && a.st_ino == b.st_ino;
}

Result<void> makeDir(const std::string& dir)
{
    // Explicit modes: the umask can only take bits away from 0755.
    std::string sofar;
    std::size_t at = 0;
    while (at != std::string::npos) {
        at = dir.find('/', at + 1);
        sofar = dir.substr(0, at);
        if (sofar.empty()) {
            continue;
        }
        if (::mkdir(sofar.c_str(), kDirMode) != 0 && errno != EEXIST) {
            return Error::fromErrno("cannot create " + sofar);
        }
    }
    return {};
}

OwnerRecord namedRecord(const std::string& kind, const std::string& name)
{
    OwnerRecord r;
    r.kind = kind;
    r.name = name;
    return r;
}

}  // namespace

std::string describeOwner(const OwnerRecord& r)
{
    std::string text = "pid " + std::to_string(r.pid);
    if (!r.description.empty()) {
        text += " (" + r.description + ")";
    }
    if (r.pidNamespace != 0) {
        text += " in pid namespace " + std::to_string(r.pidNamespace);
    }
    return text;
}

OwnerRecord selfRecord()
{
    OwnerRecord r;
    r.pid = static_cast<int>(::getpid());
    r.startTime = startTimeOf("/proc/self");
    struct stat ns {};
    if (::stat("/proc/self/ns/pid", &ns) == 0) {
        r.pidNamespace = ns.st_ino;
    }
    r.bootId = readText("/proc/sys/kernel/random/boot_id");
    if (!r.bootId.empty() && r.bootId.back() == '\n') {
        r.bootId.pop_back();
    }
    return r;
}

std::string ownerLockPath(const std::string& kind, const std::string& name, const std::string& dir)
{
    return dir + "/" + escapeName(kind) + "/" + escapeName(name) + ".lock";
}

OwnerLock::OwnerLock(int fd, std::string path, OwnerRecord record, bool keepFile)
    : m_fd(fd), m_keepFile(keepFile), m_path(std::move(path)), m_record(std::move(record))
{
}

OwnerLock::OwnerLock(OwnerLock&& other) noexcept
    : m_fd(std::exchange(other.m_fd, -1)),
      m_keepFile(other.m_keepFile),
      m_path(std::move(other.m_path)),
      m_record(std::move(other.m_record))
{
}

OwnerLock& OwnerLock::operator=(OwnerLock&& other) noexcept
{
    if (this != &other) {
        if (m_keepFile && m_fd >= 0) {
            ::close(m_fd);
            m_fd = -1;
        }
        release();
        m_fd = std::exchange(other.m_fd, -1);
        m_keepFile = other.m_keepFile;
        m_path = std::move(other.m_path);
        m_record = std::move(other.m_record);
    }
    return *this;
}

OwnerLock::~OwnerLock()
{
    if (m_keepFile && m_fd >= 0) {
        ::close(m_fd);
        m_fd = -1;
    }
    release();
}

void OwnerLock::release()
{
    if (m_fd < 0) {
        return;
    }
    // Unlink first, while still holding the lock: an acquirer that opened this file meanwhile
    // finds it no longer at the path once it gets the lock, and starts again.
    if (stillAt(m_fd, m_path)) {
        ::unlink(m_path.c_str());
    }
    ::close(m_fd);
    m_fd = -1;
}

void OwnerLock::keep()
{
    if (m_fd >= 0) {
        ::close(m_fd);
        m_fd = -1;
    }
}

Result<void> OwnerLock::setOwns(const std::map<std::string, std::string>& owns)
{
    m_record.owns = owns;
    m_record.complete = true;
    return writeFd(m_fd, formatRecord(m_record), m_path);
}

Result<OwnerAttempt> OwnerLock::acquire(const std::string& kind, const std::string& name,
                                        const std::string& description, const std::map<std::string, std::string>& owns,
                                        const std::string& dir)
{
    const std::string path = ownerLockPath(kind, name, dir);
    const std::string folder = path.substr(0, path.rfind('/'));
    NF_TRY(makeDir(folder));
    for (int attempt = 0; attempt < 100; ++attempt) {
        const int fd = ::open(path.c_str(), O_RDWR | O_CREAT | O_CLOEXEC | O_NOFOLLOW, kFileMode);
        if (fd < 0) {
            return Error::fromErrno("cannot open " + path);
        }
        if (::flock(fd, LOCK_EX | LOCK_NB) != 0) {
            const int err = errno;
            if (err != EWOULDBLOCK) {
                ::close(fd);
                return Error::fromErrno("cannot lock " + path, err);
            }
            if (attempt < 20) {  // a prober (cleanup, liveOwner) holds it for a moment only
                ::close(fd);
                std::this_thread::sleep_for(std::chrono::milliseconds(5));
                continue;
            }
            std::string why;
            auto held = parseRecord(readFd(fd), why);
            ::close(fd);
            OwnerAttempt a;
            if (!held) {  // being written right now: say what we know
                held = namedRecord(kind, name);
            }
            a.holder = std::move(*held);
            return a;
        }
        if (!stillAt(fd, path)) {  // released and unlinked between our open and our lock
            ::close(fd);
            continue;
        }
        OwnerAttempt a;
        const std::string before = readFd(fd);
        std::string why;
        if (auto previous = parseRecord(before, why)) {
            a.previous = std::move(*previous);
        }
        OwnerRecord self = selfRecord();
        self.kind = kind;
        self.name = name;
        self.description = description;
        self.owns = owns;
        self.complete = true;
        if (auto written = writeFd(fd, formatRecord(self), path); !written) {
            OwnerLock dropped(fd, path, self);  // unlinks: a lock without its record proves nothing
            return written.error();
        }
        a.lock = OwnerLock(fd, path, std::move(self));
        return a;
    }
    return Error{"cannot lock " + path + ": it keeps being replaced"};
}

OwnerProbe probeOwner(const std::string& path)
{
    OwnerProbe p;
    p.path = path;
    const int fd = ::open(path.c_str(), O_RDWR | O_CLOEXEC | O_NOFOLLOW | O_NONBLOCK);
    if (fd < 0) {
        p.why = "cannot open it: " + errnoText(errno);
        return p;
    }
    struct stat st {};
    if (::fstat(fd, &st) != 0 || !S_ISREG(st.st_mode)) {
        ::close(fd);
        p.why = "not a regular file";
        return p;
    }
    const bool held = ::flock(fd, LOCK_EX | LOCK_NB) != 0 && errno == EWOULDBLOCK;
    auto record = parseRecord(readFd(fd), p.why);
    if (held) {
        ::close(fd);
        p.state = OwnerState::Held;
        p.record = record ? std::move(*record) : OwnerRecord{};
        return p;
    }
    if (!record) {
        ::close(fd);  // unlocked and no record: nothing proves it is the tool's
        return p;
    }
    if (!stillAt(fd, path)) {  // its owner released it just now
        ::close(fd);
        p.why = "released meanwhile";
        return p;
    }
    p.state = OwnerState::Stale;
    p.record = *record;
    p.claim = OwnerLock(fd, path, std::move(*record), true);
    return p;
}

std::vector<OwnerProbe> probeOwners(const std::string& kind, const std::string& dir)
{
    std::vector<std::string> paths;
    std::error_code ec;
    for (const auto& entry : std::filesystem::directory_iterator(dir + "/" + escapeName(kind), ec)) {
        if (entry.path().extension() == ".lock") {
            paths.push_back(entry.path().string());
        }
    }
    std::sort(paths.begin(), paths.end());
    std::vector<OwnerProbe> out;
    out.reserve(paths.size());
    for (const auto& path : paths) {
        out.push_back(probeOwner(path));
    }
    return out;
}

std::optional<OwnerRecord> liveOwner(const std::string& kind, const std::string& name, const std::string& dir)
{
    const std::string path = ownerLockPath(kind, name, dir);
    const int fd = ::open(path.c_str(), O_RDONLY | O_CLOEXEC | O_NOFOLLOW);
    if (fd < 0) {
        return std::nullopt;
    }
    std::optional<OwnerRecord> out;
    if (::flock(fd, LOCK_SH | LOCK_NB) != 0 && errno == EWOULDBLOCK) {
        std::string why;
        out = parseRecord(readFd(fd), why);
        if (!out) {
            out = namedRecord(kind, name);
        }
    }
    ::close(fd);  // a shared lock we got goes with the descriptor
    return out;
}

}  // namespace nf::engine
